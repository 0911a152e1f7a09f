import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  conversionReviewOutcome,
  conversionReviewRequest,
} from "../../../../packages/apiserver/src/apiextensions/conversion/conversion-review.js";
import {
  ConvertedObjectError,
  restoreConvertedObject,
} from "../../../../packages/apiserver/src/apiextensions/conversion/converted-object.js";

/**
 * The ConversionReview the conversion webhook client sends and the checks of its answer, in
 * apiextensions-apiserver's words (`pkg/apiserver/conversion/webhook_converter.go`).
 */

const original: JsonObject = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: {
    name: "w",
    namespace: "ns",
    uid: "u-1",
    resourceVersion: "7",
    labels: { a: "1" },
    finalizers: ["f"],
  },
  spec: { replicas: 1 },
};

function refusal(converted: JsonObject): ConvertedObjectError {
  try {
    restoreConvertedObject(original, converted, "example.com/v1beta1");
  } catch (err) {
    expect(err).toBeInstanceOf(ConvertedObjectError);
    return err as ConvertedObjectError;
  }
  throw new Error("the converted object was accepted");
}

describe("conversion review", () => {
  it("asks in the first known review version", () => {
    expect(
      conversionReviewRequest(["v2", "v1beta1", "v1"], [original], "example.com/v1beta1", "u"),
    ).toEqual({
      reviewVersion: "v1beta1",
      body: {
        kind: "ConversionReview",
        apiVersion: "apiextensions.k8s.io/v1beta1",
        request: { uid: "u", desiredAPIVersion: "example.com/v1beta1", objects: [original] },
      },
    });
    expect(conversionReviewRequest(["v2"], [original], "example.com/v1", "u")).toBeUndefined();
  });

  it("checks a v1 answer's kind, uid and result; a v1beta1 answer's result only", () => {
    const answer = (response: JsonObject, kind = "ConversionReview"): JsonObject => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind,
      response,
    });
    expect(conversionReviewOutcome("v1", "u", answer({}, "Other"))).toEqual({
      error:
        "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=Other",
    });
    expect(conversionReviewOutcome("v1", "u", answer({ uid: "x" }))).toEqual({
      error: 'expected response.uid="u", got "x"',
    });
    expect(
      conversionReviewOutcome("v1", "u", answer({ uid: "u", result: { status: "Failure" } })),
    ).toEqual({
      error: "response.result.status was 'Failure', not 'Success'",
    });
    expect(
      conversionReviewOutcome(
        "v1",
        "u",
        answer({ uid: "u", result: { status: "Failure", message: "nope" } }),
      ),
    ).toEqual({ error: "nope" });
    expect(
      conversionReviewOutcome("v1beta1", "u", {
        response: { result: { status: "Success" }, convertedObjects: [1] },
      }),
    ).toEqual({ convertedObjects: [1] });
    expect(conversionReviewOutcome("v1", "u", answer(undefined as unknown as JsonObject))).toEqual({
      error: "no response provided",
    });
  });

  it("keeps the original metadata but the answered labels and annotations", () => {
    const restored = restoreConvertedObject(
      original,
      {
        apiVersion: "example.com/v1beta1",
        kind: "Widget",
        metadata: {
          name: "w",
          namespace: "ns",
          uid: "u-1",
          resourceVersion: "1",
          labels: { b: "2" },
          finalizers: [],
        },
        spec: { replicaCount: 1 },
      },
      "example.com/v1beta1",
    );
    expect(restored).toEqual({
      apiVersion: "example.com/v1beta1",
      kind: "Widget",
      metadata: {
        name: "w",
        namespace: "ns",
        uid: "u-1",
        resourceVersion: "7",
        labels: { b: "2" },
        finalizers: ["f"],
      },
      spec: { replicaCount: 1 },
    });
  });

  it("refuses another version, kind, name or uid, and invalid labels", () => {
    const base = {
      apiVersion: "example.com/v1beta1",
      kind: "Widget",
      metadata: { name: "w", namespace: "ns", uid: "u-1" },
    };
    expect(refusal({ ...base, apiVersion: "example.com/v1" })).toMatchObject({
      what: "type",
      message: "invalid groupVersion (expected example.com/v1beta1, received example.com/v1)",
    });
    expect(refusal({ ...base, kind: "Gadget" }).message).toBe(
      "invalid kind (expected Widget, received Gadget)",
    );
    expect(refusal({ ...base, metadata: { ...base.metadata, uid: "u-2" } })).toMatchObject({
      what: "identity",
      message: "must have the same UID: u-1 != u-2",
    });
    // Identity is checked before metadata, as kube does: no metadata is another name.
    expect(refusal({ apiVersion: base.apiVersion, kind: "Widget" }).message).toBe(
      "must have the same name: w != ",
    );
    expect(
      refusal({ ...base, metadata: { ...base.metadata, labels: { "bad key!": "x" } } }).message,
    ).toMatch(/^metadata\.labels: Invalid value: "bad key!": /);
    expect(
      refusal({ ...base, metadata: { ...base.metadata, annotations: { a: 1 } } }).message,
    ).toBe("metadata.annotations[a] must be a string, but is number in converted object");
  });
});
