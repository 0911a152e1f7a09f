import { describe, expect, it } from "vitest";
import { builtinResources, type ResourceInfo } from "kubekit";
import { customResourceDefinitionStrategy } from "../../../../packages/apiserver/src/kinds/custom-resource-definition.js";
import { deploymentStrategy } from "../../../../packages/apiserver/src/kinds/deployment.js";
import {
  coreEventStrategy,
  eventsApiEventStrategy,
} from "../../../../packages/apiserver/src/kinds/event.js";
import { genericStrategy } from "../../../../packages/apiserver/src/kinds/generic.js";
import { podStrategy } from "../../../../packages/apiserver/src/kinds/pod.js";
import { strategyFor } from "../../../../packages/apiserver/src/kinds/strategies.js";
import { policyFor } from "../../../../packages/apiserver/src/registry/registry.js";

/**
 * The lookup of each served resource's strategy (`strategies.ts`), and the generic store's
 * switches each kind's strategy sets (`policyFor`), per resource as kube-apiserver's
 * registries set them.
 */

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

describe("strategyFor: every built-in resource", () => {
  it("maps both Event APIs to their own strategies over one storage", () => {
    expect(strategyFor({ group: "", plural: "events" })).toBe(coreEventStrategy);
    expect(strategyFor({ group: "events.k8s.io", plural: "events" })).toBe(eventsApiEventStrategy);
  });

  it("gives these built-in resources a strategy of their own, the others the generic one", () => {
    const own = builtinResources
      .filter((r) => strategyFor(r) !== genericStrategy)
      .map((r) => `${r.group}/${r.plural}`);
    expect([...new Set(own)].sort()).toEqual([
      "/configmaps",
      "/endpoints",
      "/events",
      "/namespaces",
      "/nodes",
      "/persistentvolumeclaims",
      "/persistentvolumes",
      "/pods",
      "/replicationcontrollers",
      "/secrets",
      "/serviceaccounts",
      "/services",
      "admissionregistration.k8s.io/mutatingwebhookconfigurations",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "admissionregistration.k8s.io/validatingadmissionpolicybindings",
      "admissionregistration.k8s.io/validatingwebhookconfigurations",
      "apiextensions.k8s.io/customresourcedefinitions",
      "apps/daemonsets",
      "apps/deployments",
      "apps/replicasets",
      "apps/statefulsets",
      "authentication.k8s.io/selfsubjectreviews",
      "authorization.k8s.io/localsubjectaccessreviews",
      "authorization.k8s.io/selfsubjectaccessreviews",
      "authorization.k8s.io/selfsubjectrulesreviews",
      "authorization.k8s.io/subjectaccessreviews",
      "autoscaling/horizontalpodautoscalers",
      "batch/cronjobs",
      "batch/jobs",
      "certificates.k8s.io/certificatesigningrequests",
      "coordination.k8s.io/leases",
      "discovery.k8s.io/endpointslices",
      "events.k8s.io/events",
      "networking.k8s.io/ingresses",
      "networking.k8s.io/networkpolicies",
      "networking.k8s.io/servicecidrs",
      "policy/poddisruptionbudgets",
      "rbac.authorization.k8s.io/clusterrolebindings",
      "rbac.authorization.k8s.io/clusterroles",
      "rbac.authorization.k8s.io/rolebindings",
      "rbac.authorization.k8s.io/roles",
      "storage.k8s.io/storageclasses",
    ]);
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
      "admissionregistration.k8s.io/mutatingwebhookconfigurations",
      "admissionregistration.k8s.io/validatingadmissionpolicies",
      "admissionregistration.k8s.io/validatingadmissionpolicybindings",
      "admissionregistration.k8s.io/validatingwebhookconfigurations",
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
