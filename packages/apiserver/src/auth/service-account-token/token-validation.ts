/**
 * What makes a verified service-account token's claims valid, as kube's validators check them:
 * bound tokens (`pkg/serviceaccount/claims.go` validator.Validate: expiry and not-before with
 * a one-minute leeway, the service account and the bound pod, secret or node still there with
 * the same uid) and legacy tokens (`pkg/serviceaccount/legacy.go`: the Secret still holds
 * this very token, the service account's uid matches). Errors are kube's messages.
 */
import { timingSafeEqual } from "node:crypto";
import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf, quoteGo } from "kubekit/apimachinery";
import type { Storage } from "../../storage/storage.js";
import { splitServiceAccountUsername } from "../service-account-user.js";
import { LEGACY_CLAIMS } from "./token-claims.js";

/** go-jose's `DefaultLeeway`: one minute either side for exp, nbf, iat and deletions. */
const LEEWAY_SECONDS = 60;

/** What a valid token says about its holder (kube's `ServiceAccountInfo`). */
export interface ServiceAccountInfo {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly podName?: string;
  readonly podUid?: string;
  readonly nodeName?: string;
  readonly nodeUid?: string;
  /** `JTI=<jti>` for bound tokens. */
  readonly credentialId?: string;
}

/** A validation outcome: the holder, or kube's error message. */
export type ValidationResult = ServiceAccountInfo | { readonly error: string };

/** Storage ids of what tokens refer to. */
const IDS = {
  serviceaccount: "/serviceaccounts",
  pod: "/pods",
  secret: "/secrets",
  node: "/nodes",
};

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The ref at `claims[key]` as {name, uid}, when it is an object. */
function refAt(claims: JsonObject, key: string): { name: string; uid: string } | undefined {
  const value = claims[key];
  return isJsonObject(value) ? { name: text(value["name"]), uid: text(value["uid"]) } : undefined;
}

/**
 * Looks up an object a token refers to: kube's lister NotFound (`pod "NAME" not found`), or
 * `<kind> NS/NAME has been deleted` when it was deleted more than the leeway ago.
 */
function lookup(
  storage: Storage,
  kind: keyof typeof IDS,
  namespace: string,
  name: string,
  nowSeconds: number,
): JsonObject | { error: string } {
  const obj = storage.get(IDS[kind], namespace === "" ? name : `${namespace}/${name}`);
  if (!obj) return { error: `${kind} ${quoteGo(name)} not found` };
  const deleted = text(metadataOf(obj)?.["deletionTimestamp"]);
  if (deleted !== "" && Date.parse(deleted) / 1000 < nowSeconds - LEEWAY_SECONDS) {
    const what = kind === "serviceaccount" ? "service account" : kind;
    return { error: `${what} ${namespace === "" ? "" : `${namespace}/`}${name} has been deleted` };
  }
  return obj;
}

function uidOf(obj: JsonObject): string {
  return text(metadataOf(obj)?.["uid"]);
}

/** Checks exp, nbf and iat against `nowSeconds` with the leeway. */
function checkTimes(claims: JsonObject, nowSeconds: number): string | undefined {
  const number = (key: string): number | undefined =>
    typeof claims[key] === "number" ? claims[key] : undefined;
  const exp = number("exp");
  const nbf = number("nbf");
  const iat = number("iat");
  if (exp !== undefined && nowSeconds - LEEWAY_SECONDS > exp)
    return "service account token has expired";
  if (nbf !== undefined && nowSeconds + LEEWAY_SECONDS < nbf)
    return "service account token is not valid yet";
  if (iat !== undefined && nowSeconds + LEEWAY_SECONDS < iat)
    return "service account token is issued in the future";
  return undefined;
}

/** Validates the claims of a bound token (issuer, signature and audience checked already). */
export function validateBoundToken(
  storage: Storage,
  claims: JsonObject,
  nowSeconds: number,
): ValidationResult {
  const timeError = checkTimes(claims, nowSeconds);
  if (timeError !== undefined) return { error: timeError };
  const k8s = isJsonObject(claims["kubernetes.io"]) ? claims["kubernetes.io"] : {};
  const namespace = text(k8s["namespace"]);
  const sa = refAt(k8s, "serviceaccount") ?? { name: "", uid: "" };
  const account = lookup(storage, "serviceaccount", namespace, sa.name, nowSeconds);
  if ("error" in account) return { error: text(account["error"]) };
  if (uidOf(account) !== sa.uid)
    return { error: `service account UID (${uidOf(account)}) does not match claim (${sa.uid})` };
  const secret = refAt(k8s, "secret");
  if (secret) {
    const found = lookup(storage, "secret", namespace, secret.name, nowSeconds);
    if ("error" in found) return { error: text(found["error"]) };
    if (uidOf(found) !== secret.uid)
      return {
        error: `secret UID (${uidOf(found)}) does not match service account secret ref claim (${secret.uid})`,
      };
  }
  const pod = refAt(k8s, "pod");
  if (pod) {
    const found = lookup(storage, "pod", namespace, pod.name, nowSeconds);
    if ("error" in found) return { error: text(found["error"]) };
    if (uidOf(found) !== pod.uid)
      return { error: `pod UID (${uidOf(found)}) does not match pod claim (${pod.uid})` };
  }
  const node = refAt(k8s, "node");
  if (node && !pod) {
    const found = lookup(storage, "node", "", node.name, nowSeconds);
    if ("error" in found) return { error: text(found["error"]) };
    if (uidOf(found) !== node.uid)
      return { error: `node UID (${uidOf(found)}) does not match claim (${node.uid})` };
  }
  const jti = text(claims["jti"]);
  return {
    namespace,
    name: sa.name,
    uid: sa.uid,
    ...(pod ? { podName: pod.name, podUid: pod.uid } : {}),
    ...(node ? { nodeName: node.name, ...(node.uid === "" ? {} : { nodeUid: node.uid }) } : {}),
    ...(jti === "" ? {} : { credentialId: `JTI=${jti}` }),
  };
}

/** Validates a legacy token (issuer and signature checked already) against its Secret. */
export function validateLegacyToken(
  storage: Storage,
  token: string,
  claims: JsonObject,
  nowSeconds: number,
): ValidationResult {
  const namespace = text(claims[LEGACY_CLAIMS.namespace]);
  const secretName = text(claims[LEGACY_CLAIMS.secretName]);
  const name = text(claims[LEGACY_CLAIMS.serviceAccountName]);
  const uid = text(claims[LEGACY_CLAIMS.serviceAccountUid]);
  const subject = text(claims["sub"]);
  if (subject === "") return { error: "sub claim is missing" };
  if (namespace === "") return { error: "namespace claim is missing" };
  if (secretName === "") return { error: "secretName claim is missing" };
  if (name === "") return { error: "serviceAccountName claim is missing" };
  if (uid === "") return { error: "serviceAccountUID claim is missing" };
  const split = splitServiceAccountUsername(subject);
  if (!split || split.namespace !== namespace || split.name !== name)
    return { error: "sub claim is invalid" };
  const secret = lookup(storage, "secret", namespace, secretName, nowSeconds);
  if ("error" in secret) return { error: "token has been invalidated" };
  const data = isJsonObject(secret["data"]) ? secret["data"] : {};
  const stored = Buffer.from(text(data["token"]), "base64");
  const presented = Buffer.from(token, "utf8");
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented))
    return { error: "token does not match server's copy" };
  const account = lookup(storage, "serviceaccount", namespace, name, nowSeconds);
  if ("error" in account) {
    const message = text(account["error"]);
    return { error: message.replace(/^service account /, "ServiceAccount ") };
  }
  if (uidOf(account) !== uid)
    return { error: `ServiceAccount UID (${uidOf(account)}) does not match claim (${uid})` };
  return { namespace, name, uid };
}
