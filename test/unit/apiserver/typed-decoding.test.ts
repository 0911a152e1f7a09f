import { describe, expect, it } from "vitest";
import { messageNameForKind } from "../../../packages/kubekit/src/core/field-table.js";
import { typedDecodingProblem } from "../../../packages/apiserver/src/schema/typed-decoding.js";

describe("typedDecodingProblem", () => {
  const configMap = messageNameForKind("", "v1", "ConfigMap");
  const pod = messageNameForKind("", "v1", "Pod");
  const crd = messageNameForKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition");

  it("accepts well-typed objects, nulls and unknown fields", () => {
    expect(typedDecodingProblem({ data: { a: "1" }, binaryData: null, extra: 5 }, configMap)).toBe(
      undefined,
    );
    expect(
      typedDecodingProblem(
        {
          spec: {
            containers: [{ name: "c", image: "x", ports: [{ containerPort: 80 }] }],
            terminationGracePeriodSeconds: 30,
            overhead: { cpu: 1 },
          },
          metadata: { creationTimestamp: null, labels: { a: "b" } },
        },
        pod,
      ),
    ).toBe(undefined);
  });

  it("names the Go struct, the JSON path and the Go type", () => {
    expect(typedDecodingProblem({ data: { a: true } }, configMap)).toBe(
      "json: cannot unmarshal bool into Go struct field ConfigMap.data of type string",
    );
    expect(typedDecodingProblem({ spec: { containers: [{ name: 3 }] } }, pod)).toBe(
      "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string",
    );
    expect(typedDecodingProblem({ spec: { activeDeadlineSeconds: 1.5 } }, pod)).toBe(
      "json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64",
    );
    expect(typedDecodingProblem({ metadata: { labels: ["a"] } }, configMap)).toBe(
      "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    );
  });

  it("leaves schema types of CRDs and unknown messages alone", () => {
    expect(
      typedDecodingProblem(
        {
          spec: {
            versions: [
              {
                name: "v1",
                schema: { openAPIV3Schema: { type: "object", additionalProperties: true } },
              },
            ],
          },
        },
        crd,
      ),
    ).toBe(undefined);
    expect(typedDecodingProblem({ spec: "x" }, undefined)).toBe(undefined);
  });
});
