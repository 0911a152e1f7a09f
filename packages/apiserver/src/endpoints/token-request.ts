/**
 * `POST serviceaccounts/NAME/token`: a TokenRequest (authentication.k8s.io/v1), answered as
 * kube's `pkg/registry/core/serviceaccount/storage/token.go` TokenREST.Create: the spec
 * validated (expirationSeconds 600..2^32, default 3600; audiences default the API
 * audiences), the service account and the bound Pod, Secret or Node looked up (uid checked),
 * and an RS256 JWT signed with the server's key with kube's claims. A pod-bound token asked
 * for 3607 s (the kubelet's projected tokens) lives a year and warns after 3607 s, as with
 * `--service-account-extend-token-expiration`.
 */
import {
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  type FieldError,
  type JsonObject,
} from "kubekit";
import { fieldInvalid, formatTime, isJsonObject, metadataOf } from "kubekit/apimachinery";
import { defaultAccessControl } from "../authorization/access-control.js";
import type { ObjectRef } from "../auth/service-account-token/token-claims.js";
import { decodeObjectBody, readBody } from "../encoding/request-body.js";
import type { ServerContext } from "../server/server-context.js";
import { sendJson } from "./responses.js";
import type { VerbRequest } from "./verb-request.js";

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** The kubelet's request that gets an extended token (`token.WarnOnlyBoundTokenExpirationSeconds`). */
const WARN_ONLY_EXPIRATION_SECONDS = 3607;
/** How long an extended token lives (`token.ExpirationExtensionSeconds`, a year). */
const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600;

const GROUP_KIND = { group: "authentication.k8s.io", kind: "TokenRequest" };

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function refOf(obj: JsonObject): ObjectRef {
  const meta = metadataOf(obj) ?? {};
  return { name: text(meta["name"]), uid: text(meta["uid"]) };
}

/** kube's ValidateTokenRequest (`pkg/apis/authentication/validation/validation.go`). */
function validateExpiration(seconds: unknown): FieldError[] {
  const at = "spec.expirationSeconds";
  if (typeof seconds !== "number" || !Number.isInteger(seconds))
    return [fieldInvalid(at, seconds ?? null, "must be an integer number of seconds")];
  if (seconds < MIN_EXPIRATION_SECONDS)
    return [fieldInvalid(at, seconds, "may not specify a duration less than 10 minutes")];
  if (seconds > MAX_EXPIRATION_SECONDS)
    return [fieldInvalid(at, seconds, "may not specify a duration larger than 2^32 seconds")];
  return [];
}

/** The object a bound token refers to, found and checked. */
interface Bound {
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

/** Looks up `boundObjectRef` (Pod, Secret or Node of core/v1) as TokenREST.Create does. */
function resolveBoundObject(
  ctx: ServerContext,
  namespace: string,
  serviceAccount: string,
  ref: JsonObject,
): Bound {
  const kind = text(ref["kind"]);
  const apiVersion = text(ref["apiVersion"]);
  const name = text(ref["name"]);
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const version = apiVersion.includes("/")
    ? apiVersion.slice(apiVersion.indexOf("/") + 1)
    : apiVersion;
  const get = (storageId: string, resource: string, key: string): JsonObject => {
    const obj = ctx.storage.get(storageId, key);
    if (!obj) throw newNotFound({ group: "", resource }, name);
    return obj;
  };
  let bound: Bound;
  let uid: string;
  if (group === "" && kind === "Pod") {
    const pod = get("/pods", "pods", `${namespace}/${name}`);
    const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
    if (text(spec["serviceAccountName"]) !== serviceAccount)
      throw newBadRequest(
        `cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`,
      );
    const nodeName = text(spec["nodeName"]);
    const node = nodeName === "" ? undefined : ctx.storage.get("/nodes", nodeName);
    bound = {
      pod: refOf(pod),
      ...(nodeName === "" ? {} : { node: node ? refOf(node) : { name: nodeName, uid: "" } }),
    };
    uid = refOf(pod).uid;
  } else if (group === "" && kind === "Secret") {
    const secret = get("/secrets", "secrets", `${namespace}/${name}`);
    bound = { secret: refOf(secret) };
    uid = refOf(secret).uid;
  } else if (group === "" && kind === "Node") {
    const node = get("/nodes", "nodes", name);
    bound = { node: refOf(node) };
    uid = refOf(node).uid;
  } else {
    throw newBadRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  const askedUid = text(ref["uid"]);
  if (askedUid !== "" && askedUid !== uid)
    throw newConflict(
      { group, resource: kind },
      name,
      `the UID in the bound object reference (${askedUid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  return bound;
}

/** Answers a TokenRequest (see the module comment). */
export async function handleTokenRequest(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, req, res } = request;
  const body = decodeObjectBody(req.headers["content-type"], await readBody(req, ctx));
  const obj = isJsonObject(body) ? body : {};
  const spec = isJsonObject(obj["spec"]) ? obj["spec"] : {};
  const expirationSeconds = spec["expirationSeconds"] ?? DEFAULT_EXPIRATION_SECONDS;
  const errors = validateExpiration(expirationSeconds);
  if (errors.length > 0) throw newInvalid(GROUP_KIND, "", errors);
  const meta = isJsonObject(obj["metadata"]) ? obj["metadata"] : {};
  const bodyName = text(meta["name"]);
  if (bodyName !== "" && bodyName !== name)
    throw newInvalid(GROUP_KIND, name, [
      fieldInvalid("metadata.name", bodyName, "must match the service account name if specified"),
    ]);
  const bodyNamespace = text(meta["namespace"]);
  if (bodyNamespace !== "" && bodyNamespace !== namespace)
    throw newInvalid(GROUP_KIND, name, [
      fieldInvalid(
        "metadata.namespace",
        bodyNamespace,
        "must match the service account namespace if specified",
      ),
    ]);
  const account = ctx.storage.get(entry.storageId, `${namespace}/${name}`);
  if (!account) throw newNotFound({ group: "", resource: "serviceaccounts" }, name);
  const tokens = (ctx.access ?? defaultAccessControl(ctx)).serviceAccountTokens;
  const asked = Array.isArray(spec["audiences"])
    ? spec["audiences"].filter((a): a is string => typeof a === "string")
    : [];
  const audiences = asked.length > 0 ? asked : [...tokens.apiAudiences];
  const boundRef = isJsonObject(spec["boundObjectRef"]) ? spec["boundObjectRef"] : undefined;
  const bound = boundRef ? resolveBoundObject(ctx, namespace, name, boundRef) : {};
  const requested = expirationSeconds as number;
  const extended =
    bound.pod !== undefined &&
    requested === WARN_ONLY_EXPIRATION_SECONDS &&
    audiences.every((a) => tokens.apiAudiences.includes(a));
  const now = ctx.clock.now();
  const { token } = await tokens.issueBound({
    namespace,
    serviceAccount: refOf(account),
    ...bound,
    audiences,
    expirationSeconds: extended ? EXTENDED_EXPIRATION_SECONDS : requested,
    ...(extended ? { warnAfterSeconds: requested } : {}),
  });
  sendJson(res, 201, {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: formatTime(now) },
    spec: { audiences, expirationSeconds: requested, boundObjectRef: boundRef ?? null },
    status: { token, expirationTimestamp: formatTime(now + requested * 1000) },
  });
}
