/**
 * Custom resources converted by their CRD's conversion webhook (`webhookConverter.Convert` in
 * apiextensions-apiserver `pkg/apiserver/conversion/webhook_converter.go`): the objects not
 * already at the desired version go to the webhook in one ConversionReview (a list page in one
 * review, a single object alone); objects at the desired version — storage-version objects
 * read at the storage version — are never sent. Every failure is kube's error: HTTP 500 with
 * no reason and the message `conversion webhook for <group>/<version>, Kind=<Kind> failed: …`
 * (the object's own version, as `ErrorToAPIStatus` answers a plain error).
 */
import { randomUUID } from "node:crypto";
import { newStatusError, type JsonObject, type StatusError } from "kubekit";
import { callWebhook } from "../../admission/webhook-client/index.js";
import { boundedText } from "../../admission/webhook-client/bounded-text.js";
import type { CustomResourceConversionWebhook } from "../../registry/served-resource.js";
import type { ServerContext } from "../../server/server-context.js";
import { conversionReviewOutcome, conversionReviewRequest } from "./conversion-review.js";
import { ConvertedObjectError, restoreConvertedObject } from "./converted-object.js";

/** kube's webhook client timeout for conversion webhooks (`defaultRequestTimeout`, 30 s). */
const CONVERSION_TIMEOUT_MS = 30_000;

/** kube-apiserver's largest request body (`MaxRequestBodyBytes`, 3 MiB), so the largest object. */
const MAX_OBJECT_BYTES = 3 * 1024 * 1024;

/** Go's `GroupVersionKind.String()` of an object: `group/version, Kind=Kind`. */
function gvkText(obj: JsonObject): string {
  const apiVersion = typeof obj["apiVersion"] === "string" ? obj["apiVersion"] : "";
  const kind = typeof obj["kind"] === "string" ? obj["kind"] : "";
  return `${apiVersion.includes("/") ? apiVersion : `/${apiVersion}`}, Kind=${kind}`;
}

function conversionError(message: string): StatusError {
  return newStatusError(500, "", boundedText(message));
}

/**
 * `objects` at `desiredAPIVersion` (`group/version`), in the same order: those already there
 * returned as they are, the others converted by `webhook` in one review. `isList` picks kube's
 * wording of a refused object (`converted object at index N` of a list).
 * @throws StatusError (500) when the webhook cannot be called or its answer is refused.
 */
export async function convertThroughWebhook(
  webhook: CustomResourceConversionWebhook,
  ctx: ServerContext,
  objects: readonly JsonObject[],
  desiredAPIVersion: string,
  isList: boolean,
): Promise<JsonObject[]> {
  const toConvert = objects.filter((o) => o["apiVersion"] !== desiredAPIVersion);
  const first = toConvert[0];
  if (first === undefined) return [...objects];
  const prefix = `conversion webhook for ${gvkText(first)}`;
  const uid = randomUUID();
  const request = conversionReviewRequest(
    webhook.conversionReviewVersions,
    toConvert,
    desiredAPIVersion,
    uid,
  );
  if (!request) throw conversionError("no supported conversion review versions");
  let answer;
  try {
    answer = await callWebhook(ctx, webhook.clientConfig, request.body, {
      timeoutMs: CONVERSION_TIMEOUT_MS,
      // An answer may be as large as the objects sent, each at most a request body.
      maxResponseBytes: MAX_OBJECT_BYTES * toConvert.length,
    });
  } catch (err) {
    throw conversionError(`${prefix} failed: ${(err as Error).message}`);
  }
  const outcome = conversionReviewOutcome(request.reviewVersion, uid, answer);
  if ("error" in outcome) throw conversionError(`${prefix} failed: ${outcome.error}`);
  const converted = outcome.convertedObjects;
  if (converted.length !== toConvert.length) {
    throw conversionError(
      `${prefix} returned ${converted.length} objects, expected ${toConvert.length}`,
    );
  }
  let index = 0;
  return objects.map((original) => {
    if (original["apiVersion"] === desiredAPIVersion) return original;
    const i = index++;
    try {
      return restoreConvertedObject(original, converted[i] ?? null, desiredAPIVersion);
    } catch (err) {
      if (!(err instanceof ConvertedObjectError)) throw err;
      const where = isList
        ? err.what === "metadata"
          ? `invalid metadata in object at index ${i}`
          : `invalid converted object at index ${i}`
        : {
            type: "invalid object at index 0",
            identity: "invalid object",
            metadata: "invalid metadata",
          }[err.what];
      throw conversionError(`${prefix} returned ${where}: ${err.message}`);
    }
  });
}
