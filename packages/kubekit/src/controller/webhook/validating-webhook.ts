/**
 * A validating admission webhook of one kind, from validation functions (controller-runtime's
 * `CustomValidator` and `WithCustomValidator`, `pkg/webhook/admission/validator_custom.go`).
 */
import type { JsonObject } from "../../core/json.js";
import type { AdmissionRequest } from "./admission-review.js";
import {
  admissionHandler,
  denialOf,
  erroredResult,
  type AdmissionResult,
} from "./admission-handler.js";
import type { WebhookHandler } from "./webhook-handler.js";

/**
 * What a validation function returns: nothing, or warnings (sent back to the API server's
 * client as `Warning` headers). To deny, throw: a `StatusError` denies with its status, any
 * other error with code 403 and its message.
 */
export type ValidationWarnings = void | readonly string[];

/**
 * The validation functions of a kind `T` (wire JSON; nothing checks that the objects have
 * `T`'s shape). A missing function allows its operation. `signal` aborts at the request's
 * deadline.
 */
export interface CustomValidator<T> {
  /** Validates `request.object` of a CREATE. */
  validateCreate?(
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
  /** Validates an UPDATE from `oldObj` (`request.oldObject`) to `obj` (`request.object`). */
  validateUpdate?(
    oldObj: T,
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
  /** Validates the DELETE of `obj` (`request.oldObject`). */
  validateDelete?(
    obj: T,
    request: AdmissionRequest<T>,
    signal: AbortSignal,
  ): ValidationWarnings | Promise<ValidationWarnings>;
}

/** controller-runtime's decoder message for a request without the object it needs. */
const NO_CONTENT = "there is no content to decode";

/**
 * A validating webhook for kind `T`, for {@link WebhookServer.register}: CREATE calls
 * `validateCreate(request.object)`, UPDATE `validateUpdate(request.oldObject, request.object)`,
 * DELETE `validateDelete(request.oldObject)` (as kube-apiserver sends it), CONNECT is allowed.
 *
 * Guarantees: allowed with the returned warnings, or denied when the function throws (a
 * `StatusError`'s status, else 403 `Forbidden` with the error's message); a request without
 * the object the operation needs is answered with code 400 (`there is no content to
 * decode`); everything {@link admissionHandler} guarantees (versions, uid, deadline).
 * The objects handed to the functions are the request's own: read them, do not keep them.
 *
 * @example
 * A webhook that denies Deployments with more than ten replicas:
 *
 * ```ts
 * import type { Deployment } from "kubernetes-types/apps/v1.js";
 * import { WebhookServer, validatingWebhookFor } from "kubekit";
 *
 * const server = new WebhookServer({ port: 0, certDir: "/tmp/k8s-webhook-server/serving-certs" });
 * server.register(
 *   "/validate-apps-v1-deployment",
 *   validatingWebhookFor<Deployment>({
 *     validateCreate(deployment) {
 *       if ((deployment.spec?.replicas ?? 1) > 10) throw new Error("replicas must be at most 10");
 *     },
 *     validateUpdate(_old, deployment) {
 *       if ((deployment.spec?.replicas ?? 1) > 10) throw new Error("replicas must be at most 10");
 *       return deployment.spec?.paused === true ? ["the Deployment is paused"] : [];
 *     },
 *   }),
 * );
 * ```
 */
export function validatingWebhookFor<T = JsonObject>(
  validator: CustomValidator<T>,
): WebhookHandler {
  return admissionHandler(async (raw, signal): Promise<AdmissionResult> => {
    const request = raw as unknown as AdmissionRequest<T>;
    const { object, oldObject } = request;
    let warnings: ValidationWarnings = undefined;
    try {
      switch (request.operation) {
        case "CREATE":
          if (object === undefined) return erroredResult(400, NO_CONTENT);
          warnings = await validator.validateCreate?.(object, request, signal);
          break;
        case "UPDATE":
          if (object === undefined || oldObject === undefined)
            return erroredResult(400, NO_CONTENT);
          warnings = await validator.validateUpdate?.(oldObject, object, request, signal);
          break;
        case "DELETE":
          if (oldObject === undefined) return erroredResult(400, NO_CONTENT);
          warnings = await validator.validateDelete?.(oldObject, request, signal);
          break;
        default:
          break;
      }
    } catch (error) {
      return denialOf(error, 403);
    }
    return { allowed: true, ...(warnings !== undefined ? { warnings } : {}) };
  });
}
