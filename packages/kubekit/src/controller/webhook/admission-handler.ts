/**
 * An admission webhook over a function of the request (controller-runtime's `admission.Webhook`
 * with a `HandlerFunc`, `pkg/webhook/admission/webhook.go`): decoding, the answer's completion
 * (`Response.Complete`: the uid echoed, a status code, the patch encoded), and the denials for
 * bad input, errors and the request's deadline.
 */
import { errorMessage } from "../../core/error-message.js";
import type { JsonPatchOperation } from "../../core/json-patch.js";
import type { JsonValue } from "../../core/json.js";
import { StatusError } from "../../core/status.js";
import {
  AdmissionReviewDecodeError,
  admissionReviewResponse,
  decodeAdmissionReview,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionStatus,
} from "./admission-review.js";
import {
  untilAborted,
  type WebhookAnswer,
  type WebhookHandler,
  type WebhookRequest,
} from "./webhook-handler.js";

/** What an admission function answers; the server completes it into an {@link AdmissionResponse}. */
export interface AdmissionResult {
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /**
   * The status sent with the answer. Default: `{ code: 200 }` when allowed; for a denial,
   * code 403 and reason `Forbidden` where they are not set (a denial's message is what the
   * API server's client sees after `admission webhook "NAME" denied the request: `).
   */
  readonly status?: AdmissionStatus;
  /** JSON Patch operations to apply to the object (only when allowed). */
  readonly patch?: readonly JsonPatchOperation[];
  /** Warnings the API server returns to its client as `Warning` headers. */
  readonly warnings?: readonly string[];
  /** Annotations the API server adds to its audit event. */
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

/** An admission function: answers one request; `signal` aborts at the request's deadline. */
export type AdmissionFunction = (
  request: AdmissionRequest,
  signal: AbortSignal,
) => AdmissionResult | Promise<AdmissionResult>;

/**
 * The denial for `error` thrown by an admission function: a {@link StatusError}'s code, reason,
 * message and details (controller-runtime's `validationResponseFromStatus`), any other error's
 * message with `code` (403 for validators and defaulters, as controller-runtime's `Denied`).
 */
export function denialOf(error: unknown, code: number): AdmissionResult {
  if (error instanceof StatusError) {
    const { code: statusCode, reason, message, details } = error.status;
    return {
      allowed: false,
      status: {
        code: statusCode,
        ...(reason !== undefined && reason !== "" ? { reason } : {}),
        ...(message !== undefined ? { message } : {}),
        ...(details !== undefined ? { details } : {}),
      },
    };
  }
  return {
    allowed: false,
    status: {
      code,
      ...(code === 403 ? { reason: "Forbidden" } : {}),
      message: errorMessage(error),
    },
  };
}

/** A failure of the request itself (controller-runtime's `Errored`): `allowed: false` with `code` and `message`. */
export function erroredResult(code: number, message: string): AdmissionResult {
  return { allowed: false, status: { code, message } };
}

/** controller-runtime's `Response.Complete`: the uid, a status with a code, the patch as base64. */
function complete(uid: string, result: AdmissionResult): AdmissionResponse {
  const status: AdmissionStatus = result.allowed
    ? { ...result.status, code: result.status?.code ?? 200 }
    : {
        ...result.status,
        code: result.status?.code ?? 403,
        ...(result.status?.code === undefined && result.status?.reason === undefined
          ? { reason: "Forbidden" }
          : {}),
      };
  const patch = result.allowed && result.patch !== undefined && result.patch.length > 0;
  return {
    uid,
    allowed: result.allowed,
    status,
    ...(patch
      ? {
          patch: Buffer.from(JSON.stringify(result.patch)).toString("base64"),
          patchType: "JSONPatch",
        }
      : {}),
    ...(result.auditAnnotations !== undefined ? { auditAnnotations: result.auditAnnotations } : {}),
    ...(result.warnings !== undefined && result.warnings.length > 0
      ? { warnings: result.warnings }
      : {}),
  };
}

/** The deadline's denial: 504 Timeout, naming the caller's timeout. */
function timedOut(request: WebhookRequest): AdmissionResult {
  const within =
    request.timeoutMs !== undefined
      ? ` within the request's timeout of ${request.timeoutMs} ms`
      : "";
  return {
    allowed: false,
    status: { code: 504, reason: "Timeout", message: `the webhook did not answer${within}` },
  };
}

/**
 * An admission webhook (validating or mutating) over `fn`, for {@link WebhookServer.register}.
 *
 * Guarantees:
 * - The AdmissionReview's version (`admission.k8s.io/v1` or `v1beta1`) is echoed, and so is the
 *   request's `uid`.
 * - A body that is no AdmissionReview is answered with HTTP 400 and a response whose status
 *   (code 400) says what is wrong.
 * - `fn` throwing a {@link StatusError} denies with its status; any other throw denies with
 *   code 500 and the error's message (controller-runtime's recovered panic). Never a crash.
 * - When `fn` has not answered as the request's `?timeout=` runs out, the answer is a denial
 *   with code 504 (reason `Timeout`) sent before the caller gives up; `fn`'s signal aborts.
 * - Patches are sent only when allowed and not empty, base64-encoded with `patchType:
 *   "JSONPatch"`.
 *
 * @example
 * A webhook that denies ConfigMaps named `forbidden`:
 *
 * ```ts
 * import { WebhookServer, admissionHandler } from "kubekit";
 *
 * const server = new WebhookServer({ port: 0, certDir: "/tmp/k8s-webhook-server/serving-certs" });
 * server.register(
 *   "/validate-configmaps",
 *   admissionHandler((request) =>
 *     request.name === "forbidden"
 *       ? { allowed: false, status: { message: "this name is reserved" } }
 *       : { allowed: true },
 *   ),
 * );
 * ```
 */
export function admissionHandler(fn: AdmissionFunction): WebhookHandler {
  return {
    async handle(request: WebhookRequest): Promise<WebhookAnswer> {
      let decoded;
      try {
        decoded = decodeAdmissionReview(request.body);
      } catch (error) {
        if (!(error instanceof AdmissionReviewDecodeError)) throw error;
        return { status: 400, body: badAdmissionReview(error.message) };
      }
      const { version, request: admission } = decoded;
      const work = (async () => fn(admission, request.signal))().catch((error: unknown) => {
        request.logger.error("admission webhook: the handler failed", {
          uid: admission.uid,
          error,
        });
        return denialOf(error, 500);
      });
      const result = await untilAborted(work, request.signal, () => timedOut(request));
      return {
        status: 200,
        body: admissionReviewResponse(version, complete(admission.uid, result)),
      };
    },
    badRequest: badAdmissionReview,
  };
}

/** The answer to a body that is no AdmissionReview (controller-runtime's `Errored(400, err)`). */
function badAdmissionReview(message: string): JsonValue {
  return admissionReviewResponse("admission.k8s.io/v1", complete("", erroredResult(400, message)));
}
