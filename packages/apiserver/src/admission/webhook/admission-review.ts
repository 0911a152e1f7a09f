/**
 * The AdmissionReview a webhook is sent and the checks of its answer (kube's
 * `admission/plugin/webhook/request/admissionreview.go`: `CreateAdmissionObjects` in the first
 * version of `admissionReviewVersions` the server speaks, `admission.k8s.io/v1` or `v1beta1`;
 * `VerifyAdmissionResponse`: a response present, for v1 the request's uid and the v1
 * AdmissionReview kind, patch and patchType together and only from mutating webhooks).
 */
import { formatApiVersion, type JsonObject, type JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { AdmissionAttributes } from "../admission-attributes.js";
import { objectKindOf, requestNamespace, type WebhookInvocation } from "./webhook-matching.js";

/** The AdmissionReview versions the server sends, by preference of the webhook. */
const SUPPORTED_VERSIONS = ["v1", "v1beta1"];

/** The first of `versions` the server speaks, or undefined (kube's error then names both). */
export function reviewVersionFor(versions: readonly string[]): string | undefined {
  return versions.find((v) => SUPPORTED_VERSIONS.includes(v));
}

/** The object as the webhook sees it: at the version of the resource it matched. */
export function versionedObject(
  obj: JsonObject | undefined,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
): JsonObject | undefined {
  if (!obj || invocation.entry === attrs.entry || attrs.subresource !== "") return obj;
  return { ...obj, apiVersion: formatApiVersion(invocation.entry.info) };
}

/** `AdmissionRequest` without object and oldObject (what matchConditions' `request` sees too). */
export function admissionRequestOf(
  uid: string,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
): JsonObject {
  const info = attrs.entry.info;
  const matched = invocation.entry.info;
  const user = attrs.userInfo;
  const namespace = requestNamespace(attrs);
  return {
    uid,
    kind: { ...invocation.kind },
    resource: { group: matched.group, version: matched.version, resource: matched.plural },
    ...(attrs.subresource !== "" ? { subResource: attrs.subresource } : {}),
    requestKind: { ...objectKindOf(attrs.entry, attrs.subresource) },
    requestResource: { group: info.group, version: info.version, resource: info.plural },
    ...(attrs.subresource !== "" ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name !== "" ? { name: attrs.name } : {}),
    ...(namespace !== "" ? { namespace } : {}),
    operation: attrs.operation,
    userInfo: {
      username: user.name,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    },
  };
}

/** The AdmissionReview body sent to the webhook. */
export function admissionReviewOf(
  version: string,
  request: JsonObject,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
): JsonObject {
  const object = versionedObject(attrs.object, attrs, invocation) ?? null;
  const oldObject = versionedObject(attrs.oldObject, attrs, invocation) ?? null;
  return {
    kind: "AdmissionReview",
    apiVersion: `admission.k8s.io/${version}`,
    request: { ...request, object, oldObject, dryRun: attrs.dryRun, options: attrs.options },
  };
}

/** A webhook's answer, checked. */
export interface VerifiedAdmissionResponse {
  readonly allowed: boolean;
  /** `status` of a denial (metav1.Status), when given. */
  readonly result: JsonObject | undefined;
  /** The decoded `patch` (base64 JSON text), when given. */
  readonly patch: string | undefined;
  readonly patchType: string | undefined;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** Thrown by {@link verifyAdmissionResponse}: the message is kube's reason. */
export class InvalidAdmissionResponseError extends Error {}

function gvkText(apiVersion: JsonValue | undefined, kind: JsonValue | undefined): string {
  const av = typeof apiVersion === "string" ? apiVersion : "";
  const slash = av.indexOf("/");
  const group = slash < 0 ? "" : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  const k = typeof kind === "string" ? kind : "";
  return group === "" ? `/${version}, Kind=${k}` : `${group}/${version}, Kind=${k}`;
}

function stringRecord(value: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Checks the patch fields of a response (kube's rules differ for mutating and validating). */
function patchOf(
  response: JsonObject,
  mutating: boolean,
): { patch: string | undefined; patchType: string | undefined } {
  const rawPatch = typeof response["patch"] === "string" ? response["patch"] : "";
  const rawType = response["patchType"];
  const hasType = rawType !== undefined && rawType !== null;
  if (!mutating) {
    if (rawPatch !== "")
      throw new InvalidAdmissionResponseError("validating webhook may not return response.patch");
    if (hasType)
      throw new InvalidAdmissionResponseError(
        "validating webhook may not return response.patchType",
      );
    return { patch: undefined, patchType: undefined };
  }
  if (rawPatch !== "" && !hasType)
    throw new InvalidAdmissionResponseError(
      "webhook returned response.patch but not response.patchType",
    );
  if (rawPatch === "" && hasType)
    throw new InvalidAdmissionResponseError(
      "webhook returned response.patchType but not response.patch",
    );
  if (hasType && (typeof rawType !== "string" || rawType === "")) {
    throw new InvalidAdmissionResponseError(
      `webhook returned invalid response.patchType of ${JSON.stringify(typeof rawType === "string" ? rawType : "")}`,
    );
  }
  const patch = rawPatch === "" ? undefined : Buffer.from(rawPatch, "base64").toString("utf8");
  return { patch, patchType: hasType ? String(rawType) : undefined };
}

/** Checks a webhook's answer to a review of `version` with `uid` (kube's `VerifyAdmissionResponse`). */
export function verifyAdmissionResponse(
  version: string,
  uid: string,
  mutating: boolean,
  body: JsonValue,
): VerifiedAdmissionResponse {
  if (!isJsonObject(body)) {
    throw new InvalidAdmissionResponseError("the response is not a JSON object");
  }
  const response = body["response"];
  if (!isJsonObject(response))
    throw new InvalidAdmissionResponseError("webhook response was absent");
  if (version === "v1") {
    const gotUid = typeof response["uid"] === "string" ? response["uid"] : "";
    if (gotUid !== uid) {
      throw new InvalidAdmissionResponseError(`expected response.uid="${uid}", got "${gotUid}"`);
    }
    const gvk = gvkText(body["apiVersion"], body["kind"]);
    if (gvk !== "admission.k8s.io/v1, Kind=AdmissionReview") {
      throw new InvalidAdmissionResponseError(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvk}`,
      );
    }
  }
  const { patch, patchType } = patchOf(response, mutating);
  const warnings = Array.isArray(response["warnings"])
    ? response["warnings"].filter((w): w is string => typeof w === "string")
    : [];
  return {
    allowed: response["allowed"] === true,
    result: isJsonObject(response["status"]) ? response["status"] : undefined,
    patch,
    patchType,
    warnings,
    auditAnnotations: stringRecord(response["auditAnnotations"]),
  };
}
