import { describe, expect, it } from "vitest";
import { messageNameForKind } from "../../../packages/kubekit/src/core/field-table.js";
import { builtinResources, type ResourceInfo } from "kubekit";
import { customResourceDefinitionStrategy } from "../../../packages/apiserver/src/kinds/custom-resource-definition.js";
import { deploymentStrategy } from "../../../packages/apiserver/src/kinds/deployment.js";
import { genericStrategy } from "../../../packages/apiserver/src/kinds/generic.js";
import { podStrategy } from "../../../packages/apiserver/src/kinds/pod.js";
import { defaultImagePullPolicy } from "../../../packages/apiserver/src/kinds/pod-spec.js";
import { strategyFor } from "../../../packages/apiserver/src/kinds/strategies.js";
import { policyFor } from "../../../packages/apiserver/src/resource-policy.js";
import { typedDecodingProblem } from "../../../packages/apiserver/src/typed-decoding.js";

describe("strategyFor", () => {
  it("maps built-in resources to their kind's strategy, any version", () => {
    expect(strategyFor({ group: "", plural: "pods" })).toBe(podStrategy);
    expect(strategyFor({ group: "apps", plural: "deployments" })).toBe(deploymentStrategy);
    expect(
      strategyFor({ group: "apiextensions.k8s.io", plural: "customresourcedefinitions" }),
    ).toBe(customResourceDefinitionStrategy);
  });

  it("gives custom resources and unknown resources the generic strategy", () => {
    expect(strategyFor({ group: "", plural: "pods", custom: {} })).toBe(genericStrategy);
    expect(strategyFor({ group: "example.com", plural: "widgets" })).toBe(genericStrategy);
    expect(strategyFor({ group: "", plural: "limitranges" })).toBe(genericStrategy);
  });
});

describe("defaultImagePullPolicy (SetDefaults_Container)", () => {
  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["localhost:5000/nginx", "Always"],
    ["localhost:5000/nginx:1.2", "IfNotPresent"],
    ["nginx:1.27", "IfNotPresent"],
    ["nginx@sha256:abc", "IfNotPresent"],
    ["nginx:latest@sha256:abc", "Always"],
    ["", "IfNotPresent"],
  ])("%s → %s", (image, policy) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });
});

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

describe("policyFor: the generic store's switches from each kind's strategy", () => {
  const info = (group: string, plural: string): ResourceInfo => {
    const found = builtinResources.find((r) => r.group === group && r.plural === plural);
    if (!found) throw new Error(`no built-in resource ${group}/${plural}`);
    return found;
  };

  it("tracks generation for workloads and spec/status kinds only", () => {
    const tracked = builtinResources
      .filter((r) => policyFor(r).tracksGeneration)
      .map((r) => `${r.group}/${r.plural}`);
    expect([...new Set(tracked)].sort()).toEqual([
      "/pods",
      "/replicationcontrollers",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "apiextensions.k8s.io/customresourcedefinitions",
      "apps/daemonsets",
      "apps/deployments",
      "apps/replicasets",
      "apps/statefulsets",
      "autoscaling/horizontalpodautoscalers",
      "batch/cronjobs",
      "batch/jobs",
      "discovery.k8s.io/endpointslices",
      "networking.k8s.io/ingresses",
      "networking.k8s.io/networkpolicies",
      "networking.k8s.io/servicecidrs",
      "policy/poddisruptionbudgets",
    ]);
  });

  it("sets create-on-update, conditional updates, DELETE answers and name rules per kind", () => {
    expect(policyFor(info("coordination.k8s.io", "leases"))).toMatchObject({
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
    });
    expect(policyFor(info("", "endpoints")).allowCreateOnUpdate).toBe(true);
    expect(policyFor(info("", "events")).allowCreateOnUpdate).toBe(true);
    expect(policyFor(info("events.k8s.io", "events")).allowCreateOnUpdate).toBe(false);
    expect(policyFor(info("", "namespaces")).nameRule).toBe("label");
    expect(policyFor(info("", "services")).nameRule).toBe("dns1035");
    expect(policyFor(info("rbac.authorization.k8s.io", "roles")).nameRule).toBe("path-segment");
    expect(policyFor(info("storage.k8s.io", "storageclasses")).deleteReturnsObject).toBe(true);
    expect(policyFor(info("", "configmaps"))).toMatchObject({
      tracksGeneration: false,
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: true,
      deleteReturnsObject: false,
      nameRule: "subdomain",
    });
    expect(Object.keys(policyFor(info("", "pods")).selectableFields)).toContain("spec.nodeName");
    expect(
      policyFor(info("certificates.k8s.io", "certificatesigningrequests")).selectableFields[
        "spec.signerName"
      ]?.({ spec: { signerName: "x" } }),
    ).toBe("x");
  });
});
