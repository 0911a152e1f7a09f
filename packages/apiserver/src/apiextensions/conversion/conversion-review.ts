/**
 * The `ConversionReview` exchanged with a CRD's conversion webhook
 * (`createConversionReviewObjects` and `getConvertedObjectsFromResponse` in apiextensions-apiserver
 * `pkg/apiserver/conversion/webhook_converter.go`): the request in the first version of
 * `conversionReviewVersions` that kube knows (`v1beta1` or `v1`), and the converted objects of a
 * response, or the reason it is refused in kube's words.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";

const REVIEW_GROUP = "apiextensions.k8s.io";

/** A review to send, and the version it is in. */
export interface ConversionReviewRequest {
  readonly reviewVersion: "v1" | "v1beta1";
  readonly body: JsonObject;
}

/**
 * The review carrying `objects` to `desiredAPIVersion`; undefined when no version of
 * `conversionReviewVersions` is known (kube: `no supported conversion review versions`).
 */
export function conversionReviewRequest(
  conversionReviewVersions: readonly string[],
  objects: readonly JsonObject[],
  desiredAPIVersion: string,
  uid: string,
): ConversionReviewRequest | undefined {
  const reviewVersion = conversionReviewVersions.find((v) => v === "v1" || v === "v1beta1");
  if (reviewVersion !== "v1" && reviewVersion !== "v1beta1") return undefined;
  return {
    reviewVersion,
    body: {
      kind: "ConversionReview",
      apiVersion: `${REVIEW_GROUP}/${reviewVersion}`,
      request: { uid, desiredAPIVersion, objects: [...objects] },
    },
  };
}

/** What a response gives: the converted objects, or the error text after `failed: `. */
export type ConversionReviewOutcome =
  { readonly convertedObjects: readonly JsonValue[] } | { readonly error: string };

function gvkOf(review: JsonObject): string {
  const apiVersion = typeof review["apiVersion"] === "string" ? review["apiVersion"] : "";
  const kind = typeof review["kind"] === "string" ? review["kind"] : "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return `${group}/${apiVersion.slice(slash + 1)}, Kind=${kind}`;
}

/**
 * The converted objects of a webhook's answer to a review of `reviewVersion` with `uid`. A v1
 * answer must be a v1 ConversionReview echoing the uid; a v1beta1 answer is checked for neither
 * (kube skips both for compatibility). A result other than `Success` is refused with its message.
 */
export function conversionReviewOutcome(
  reviewVersion: "v1" | "v1beta1",
  uid: string,
  answer: JsonValue,
): ConversionReviewOutcome {
  if (!isJsonObject(answer)) return { error: "response is not a ConversionReview object" };
  if (reviewVersion === "v1") {
    const expected = `${REVIEW_GROUP}/v1, Kind=ConversionReview`;
    const got = gvkOf(answer);
    if (got !== expected) return { error: `expected webhook response of ${expected}, got ${got}` };
  }
  const response = answer["response"];
  if (!isJsonObject(response)) return { error: "no response provided" };
  if (reviewVersion === "v1") {
    const got = typeof response["uid"] === "string" ? response["uid"] : "";
    if (got !== uid) return { error: `expected response.uid="${uid}", got "${got}"` };
  }
  const result = isJsonObject(response["result"]) ? response["result"] : {};
  if (result["status"] !== "Success") {
    const message = typeof result["message"] === "string" ? result["message"] : "";
    if (message !== "") return { error: message };
    const status = typeof result["status"] === "string" ? result["status"] : "";
    return { error: `response.result.status was '${status}', not 'Success'` };
  }
  const converted = response["convertedObjects"];
  return { convertedObjects: Array.isArray(converted) ? converted : [] };
}
