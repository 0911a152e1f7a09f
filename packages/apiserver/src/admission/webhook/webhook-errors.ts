/**
 * kube's wording of webhook failures (`admission/plugin/webhook/errors/statuserror.go`,
 * `k8s.io/apiserver/pkg/util/webhook/error.go`): a denial is the webhook's Status with
 * `admission webhook "NAME" denied the request: MESSAGE` (code at least 400); a call that
 * failed is an `ErrCallingWebhook` (`failed calling webhook "NAME": REASON`), which
 * failurePolicy Ignore skips and Fail turns into a 500 InternalError.
 */
import {
  newBadRequest,
  newInternalError,
  StatusError,
  type JsonObject,
  type Status,
  type StatusReason,
} from "kubekit";

/** A webhook that could not be called or answered wrongly (kube's `ErrCallingWebhook`). */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
    this.name = "CallingWebhookError";
  }

  /** The answer when failurePolicy is Fail: 500 `Internal error occurred: failed calling webhook …`. */
  toStatusError(): StatusError {
    return newInternalError(this.message);
  }
}

/** kube's `ToStatusErr`: the denial of webhook `name` with the response's `status`. */
export function webhookDenial(name: string, result: JsonObject | undefined): StatusError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const given = result ?? {};
  const message = typeof given["message"] === "string" ? given["message"] : "";
  const reason = typeof given["reason"] === "string" ? given["reason"] : "";
  const code = typeof given["code"] === "number" && given["code"] >= 400 ? given["code"] : 400;
  const text =
    message !== ""
      ? `${deniedBy}: ${message}`
      : reason !== ""
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: text,
    ...(reason !== "" ? { reason: reason as StatusReason } : {}),
    ...(typeof given["details"] === "object" && given["details"] !== null
      ? { details: given["details"] as Status["details"] }
      : {}),
    code,
  };
  return new StatusError(status);
}

/** kube's `NewDryRunUnsupportedErr`: 400 for a dryRun request to a webhook with side effects. */
export function dryRunUnsupported(name: string): StatusError {
  return newBadRequest(`admission webhook "${name}" does not support dry run`);
}
