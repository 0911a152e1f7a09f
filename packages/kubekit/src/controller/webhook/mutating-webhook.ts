/**
 * A mutating (defaulting) admission webhook of one kind, from a function that changes the
 * object (controller-runtime's `CustomDefaulter` and `WithCustomDefaulter`,
 * `pkg/webhook/admission/defaulter_custom.go`): the server computes the JSON Patch.
 */
import { deepClone } from "../../core/json.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import { createJsonPatch } from "../../core/json-patch-diff.js";
import type { AdmissionRequest } from "./admission-review.js";
import {
  admissionHandler,
  denialOf,
  erroredResult,
  type AdmissionResult,
} from "./admission-handler.js";
import type { WebhookHandler } from "./webhook-handler.js";

/**
 * The defaulting function of a kind `T`: changes `obj` (a deep copy of the request's object)
 * in place, or returns the changed object. Throw to deny (a `StatusError` denies with its
 * status, any other error with 403 and its message). `signal` aborts at the request's deadline.
 */
export interface CustomDefaulter<T> {
  /** Defaults `obj` of a CREATE or UPDATE. */
  default(obj: T, request: AdmissionRequest<T>, signal: AbortSignal): void | T | Promise<void | T>;
}

/**
 * A mutating webhook for kind `T`, for {@link WebhookServer.register}: on CREATE and UPDATE,
 * `default` gets a deep copy of `request.object`; the answer allows with the JSON Patch from
 * the request's object to the changed one (none when nothing changed). DELETE and CONNECT
 * are allowed unchanged, as controller-runtime's defaulter allows DELETE.
 *
 * Guarantees: applying the patch to the request's object gives the changed object (see
 * {@link createJsonPatch}); a request without an object is answered with code 400; a throw
 * denies; everything {@link admissionHandler} guarantees (versions, uid, deadline).
 *
 * @example
 * A webhook that sets a Deployment's replicas to 1 when they are unset:
 *
 * ```ts
 * import type { Deployment } from "kubernetes-types/apps/v1.js";
 * import { WebhookServer, mutatingWebhookFor } from "kubekit";
 *
 * const server = new WebhookServer({ port: 0, certDir: "/tmp/k8s-webhook-server/serving-certs" });
 * server.register(
 *   "/mutate-apps-v1-deployment",
 *   mutatingWebhookFor<Deployment>({
 *     default(deployment) {
 *       deployment.spec ??= { selector: {}, template: {} };
 *       deployment.spec.replicas ??= 1;
 *     },
 *   }),
 * );
 * ```
 */
export function mutatingWebhookFor<T = JsonObject>(defaulter: CustomDefaulter<T>): WebhookHandler {
  return admissionHandler(async (request, signal): Promise<AdmissionResult> => {
    if (request.operation !== "CREATE" && request.operation !== "UPDATE") return { allowed: true };
    const original = request.object;
    if (original === undefined) return erroredResult(400, "there is no content to decode");
    const copy = deepClone(original) as unknown as T;
    let changed: T;
    try {
      changed =
        (await defaulter.default(copy, request as unknown as AdmissionRequest<T>, signal)) ?? copy;
    } catch (error) {
      return denialOf(error, 403);
    }
    // What JSON would carry: undefined members dropped, as the object is sent on the wire.
    const modified = JSON.parse(JSON.stringify(changed)) as JsonValue;
    const patch = createJsonPatch(original, modified);
    return patch.length > 0 ? { allowed: true, patch } : { allowed: true };
  });
}
