/**
 * The `AdmissionReview` wire types (`k8s.io/api/admission/v1/types.go`; v1beta1 has the same
 * fields) and their decoding as controller-runtime decodes them
 * (`pkg/webhook/admission/http.go`): a body that names no version is read as v1, and the answer
 * names the version the request used.
 */
import type { GroupVersionKind, GroupVersionResource } from "../../core/gvk.js";
import { isJsonObject } from "../../core/json.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { StatusDetails } from "../../core/status.js";

/** The AdmissionReview versions a webhook server answers; the answer echoes the request's. */
export type AdmissionReviewVersion = "admission.k8s.io/v1" | "admission.k8s.io/v1beta1";

/** The operation being admitted. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** Who sent the request that is admitted (authentication/v1 `UserInfo`). */
export interface AdmissionUserInfo {
  /** The user's name. */
  readonly username?: string;
  /** A unique value identifying the user across time. */
  readonly uid?: string;
  /** The groups the user belongs to. */
  readonly groups?: readonly string[];
  /** Further information the authenticator provided. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The request of an AdmissionReview (admission/v1 `AdmissionRequest`), with its objects typed
 * as `T` (their wire JSON; nothing checks that they have `T`'s shape).
 */
export interface AdmissionRequest<T = JsonObject> {
  /** Identifies this admission call; the answer carries it back. */
  readonly uid: string;
  /** The kind of the object being admitted, as the webhook configuration matched it. */
  readonly kind: GroupVersionKind;
  /** The resource being admitted, as the webhook configuration matched it. */
  readonly resource: GroupVersionResource;
  /** The subresource (e.g. `status`, `scale`), if any. */
  readonly subResource?: string;
  /** The kind the client sent (differs from `kind` under `matchPolicy: Equivalent`). */
  readonly requestKind?: GroupVersionKind;
  /** The resource the client sent (differs from `resource` under `matchPolicy: Equivalent`). */
  readonly requestResource?: GroupVersionResource;
  /** The subresource the client sent. */
  readonly requestSubResource?: string;
  /** The object's name (may be empty on CREATE with `generateName`). */
  readonly name?: string;
  /** The object's namespace (absent for cluster-scoped objects). */
  readonly namespace?: string;
  /** What is being done. */
  readonly operation: AdmissionOperation;
  /** Who asks. */
  readonly userInfo: AdmissionUserInfo;
  /** The new object (CREATE, UPDATE, CONNECT); absent on DELETE. */
  readonly object?: T;
  /** The existing object (UPDATE, DELETE). */
  readonly oldObject?: T;
  /** Whether nothing will be persisted (a dry run). */
  readonly dryRun?: boolean;
  /** The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`, ...). */
  readonly options?: JsonObject;
}

/**
 * The `status` of an admission answer (a `metav1.Status` as kube-apiserver reads it): for a
 * denial, the code (default 403 for denials built by kubekit), reason and message the API
 * server passes on to its client.
 */
export interface AdmissionStatus {
  /** The HTTP status code the API server answers its client with. */
  readonly code?: number;
  /** The machine-readable reason, e.g. `Forbidden`, `Invalid`. */
  readonly reason?: string;
  /** What the client reads after `admission webhook "NAME" denied the request: `. */
  readonly message?: string;
  /** The Status details (e.g. the causes of an `Invalid`). */
  readonly details?: StatusDetails;
}

/** The response of an AdmissionReview as it goes on the wire (admission/v1 `AdmissionResponse`). */
export interface AdmissionResponse {
  /** The request's `uid`. */
  readonly uid: string;
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /** The status: a denial's code, reason and message. */
  readonly status?: AdmissionStatus;
  /** A base64 JSON Patch (RFC 6902), with `patchType: "JSONPatch"`. */
  readonly patch?: string;
  /** Present with `patch`. */
  readonly patchType?: "JSONPatch";
  /** Annotations the API server adds to its audit event. */
  readonly auditAnnotations?: Readonly<Record<string, string>>;
  /** Warnings the API server returns to its client as `Warning` headers. */
  readonly warnings?: readonly string[];
}

/** An AdmissionReview request, decoded. */
export interface DecodedAdmissionReview {
  /** The review's version, echoed by the answer. */
  readonly version: AdmissionReviewVersion;
  /** The request. */
  readonly request: AdmissionRequest;
}

/** An AdmissionReview that cannot be decoded; its message says what is wrong, and where. */
export class AdmissionReviewDecodeError extends Error {
  override readonly name = "AdmissionReviewDecodeError";
}

const VERSIONS: ReadonlySet<string> = new Set<AdmissionReviewVersion>([
  "admission.k8s.io/v1",
  "admission.k8s.io/v1beta1",
]);
const OPERATIONS: ReadonlySet<string> = new Set<AdmissionOperation>([
  "CREATE",
  "UPDATE",
  "DELETE",
  "CONNECT",
]);

/**
 * Decodes a parsed AdmissionReview body: an object whose `apiVersion` (default v1) is
 * `admission.k8s.io/v1` or `v1beta1`, whose `kind` (if any) is `AdmissionReview`, and whose
 * `request` has a string `uid` and a known `operation`; `object` and `oldObject`, when
 * present, are objects or null.
 *
 * @throws {AdmissionReviewDecodeError} naming the first field that is wrong.
 */
export function decodeAdmissionReview(body: JsonValue): DecodedAdmissionReview {
  if (!isJsonObject(body))
    throw new AdmissionReviewDecodeError("an AdmissionReview must be a JSON object");
  const apiVersion = body["apiVersion"] ?? "admission.k8s.io/v1";
  if (typeof apiVersion !== "string" || !VERSIONS.has(apiVersion)) {
    throw new AdmissionReviewDecodeError(
      `apiVersion: unsupported AdmissionReview version ${JSON.stringify(apiVersion)}, expected admission.k8s.io/v1 or admission.k8s.io/v1beta1`,
    );
  }
  const kind = body["kind"];
  if (kind !== undefined && kind !== "AdmissionReview") {
    throw new AdmissionReviewDecodeError(
      `kind: expected AdmissionReview, got ${JSON.stringify(kind)}`,
    );
  }
  const request = body["request"];
  if (!isJsonObject(request))
    throw new AdmissionReviewDecodeError("request: missing or not an object");
  if (typeof request["uid"] !== "string")
    throw new AdmissionReviewDecodeError("request.uid: missing or not a string");
  const operation = request["operation"];
  if (typeof operation !== "string" || !OPERATIONS.has(operation)) {
    throw new AdmissionReviewDecodeError(
      `request.operation: unknown operation ${JSON.stringify(operation ?? null)}`,
    );
  }
  for (const field of ["object", "oldObject"] as const) {
    const value = request[field];
    if (value !== undefined && value !== null && !isJsonObject(value)) {
      throw new AdmissionReviewDecodeError(`request.${field}: not an object`);
    }
  }
  for (const field of ["kind", "resource"] as const) {
    if (request[field] !== undefined && !isJsonObject(request[field])) {
      throw new AdmissionReviewDecodeError(`request.${field}: not an object`);
    }
  }
  const decoded: JsonObject = {
    ...request,
    userInfo: isJsonObject(request["userInfo"]) ? request["userInfo"] : {},
  };
  for (const field of ["object", "oldObject"] as const) {
    if (decoded[field] === null) delete decoded[field];
  }
  return {
    version: apiVersion as AdmissionReviewVersion,
    request: decoded as unknown as AdmissionRequest,
  };
}

/** The AdmissionReview answer of `version` carrying `response`. */
export function admissionReviewResponse(
  version: AdmissionReviewVersion,
  response: AdmissionResponse,
): JsonObject {
  return {
    apiVersion: version,
    kind: "AdmissionReview",
    response: response as unknown as JsonObject,
  };
}
