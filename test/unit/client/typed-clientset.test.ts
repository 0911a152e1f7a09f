import { readFile } from "node:fs/promises";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Scale } from "kubernetes-types/autoscaling/v1.js";
import type { Namespace, Pod, PodList } from "kubernetes-types/core/v1.js";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  Clientset,
  DynamicClient,
  MetadataClient,
  type KubeObject,
  PodResourceClient,
  ResourceClient,
  ServiceAccountResourceClient,
  type RestConfig,
  type Status,
  builtinResources,
} from "kubekit";
import {
  GENERATED_PATH,
  generateTypedClientset,
  groupAccessorName,
  resourceAccessorName,
} from "../../../tools/generate-clientset.js";

const config: RestConfig = {
  host: "https://127.0.0.1:1",
  tls: {},
  credentials: { kind: "none", get: async () => ({ headers: {} }), invalidate() {} },
  qps: -1,
  burst: 10,
};
const cs = new Clientset(config);
const DEPLOYMENTS = { group: "apps", version: "v1", resource: "deployments" };

afterAll(async () => {
  await cs.restClient.transport.close();
});

describe("the generated typed clientset", () => {
  it("is what tools/generate-clientset.ts produces now (rerun the generator if not)", async () => {
    const committed = await readFile(
      new URL(`../../../${GENERATED_PATH}`, import.meta.url),
      "utf8",
    );
    expect(committed === (await generateTypedClientset())).toBe(true);
  });

  it("names group accessors after the group's first DNS label and the version", () => {
    expect(groupAccessorName("", "v1")).toBe("coreV1");
    expect(groupAccessorName("apps", "v1")).toBe("appsV1");
    expect(groupAccessorName("autoscaling", "v2")).toBe("autoscalingV2");
    expect(groupAccessorName("rbac.authorization.k8s.io", "v1")).toBe("rbacV1");
    expect(groupAccessorName("authorization.k8s.io", "v1")).toBe("authorizationV1");
    expect(groupAccessorName("flowcontrol.apiserver.k8s.io", "v1")).toBe("flowcontrolV1");
    expect(groupAccessorName("apps", "v1beta2")).toBe("appsV1beta2");
  });

  it("names resource accessors as the camel-case plural of the kind", () => {
    const cases: [string, string, string][] = [
      ["ConfigMap", "configmaps", "configMaps"],
      ["PersistentVolumeClaim", "persistentvolumeclaims", "persistentVolumeClaims"],
      ["Endpoints", "endpoints", "endpoints"],
      ["Ingress", "ingresses", "ingresses"],
      ["NetworkPolicy", "networkpolicies", "networkPolicies"],
      ["HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalPodAutoscalers"],
      ["CustomResourceDefinition", "customresourcedefinitions", "customResourceDefinitions"],
      ["APIService", "apiservices", "apiServices"],
      ["ServiceCIDR", "servicecidrs", "serviceCIDRs"],
      ["CSIStorageCapacity", "csistoragecapacities", "csiStorageCapacities"],
      ["IPAddress", "ipaddresses", "ipAddresses"],
      ["ComponentStatus", "componentstatuses", "componentStatuses"],
    ];
    for (const [kind, plural, accessor] of cases) {
      expect(resourceAccessorName(kind, plural)).toBe(accessor);
    }
  });

  it("has an accessor for every built-in resource that targets it, sharing one RESTClient", () => {
    const groups = cs as unknown as Record<
      string,
      Record<string, (namespace?: string) => ResourceClient<KubeObject>>
    >;
    for (const info of builtinResources) {
      const group = groups[groupAccessorName(info.group, info.version)];
      const accessor = group?.[resourceAccessorName(info.kind, info.plural)];
      expect(accessor, `${info.group}/${info.version} ${info.plural}`).toBeTypeOf("function");
      const client = info.namespaced ? accessor!.call(group, "ns-1") : accessor!.call(group);
      expect(client).toBeInstanceOf(ResourceClient);
      expect(client.restClient).toBe(cs.restClient);
      expect(client.target).toEqual({
        group: info.group,
        version: info.version,
        resource: info.plural,
        namespace: info.namespaced ? "ns-1" : "",
        kind: info.kind,
      });
      const servesCollections = ["list", "watch", "deletecollection"].some((v) =>
        info.verbs.includes(v),
      );
      if (info.namespaced && servesCollections) {
        expect(accessor!.call(group).target.namespace).toBe("");
      }
    }
    const sharing = new Clientset(cs.restClient);
    expect(sharing.restClient).toBe(cs.restClient);
    expect(sharing.appsV1.deployments("a").restClient).toBe(cs.restClient);
    expect(new DynamicClient(cs.restClient).resource(DEPLOYMENTS).restClient).toBe(cs.restClient);
    expect(new MetadataClient(cs.restClient).resource(DEPLOYMENTS).restClient).toBe(cs.restClient);
    expect(cs.coreV1.pods("a")).toBeInstanceOf(PodResourceClient);
    expect(cs.coreV1.serviceAccounts("a")).toBeInstanceOf(ServiceAccountResourceClient);
  });

  it("types objects per resource and exposes only the verbs each resource serves", () => {
    expectTypeOf(cs.coreV1.pods("a").get).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf(cs.coreV1.pods("a").list).returns.resolves.toEqualTypeOf<PodList>();
    expectTypeOf(cs.coreV1.pods("a").delete).returns.resolves.toEqualTypeOf<Pod | Status>();
    expectTypeOf(cs.appsV1.deployments("a").create).parameter(0).toEqualTypeOf<Deployment>();
    expectTypeOf(cs.appsV1.deployments("a").getScale).returns.resolves.toEqualTypeOf<Scale>();
    expectTypeOf(cs.coreV1.namespaces().get).returns.resolves.toEqualTypeOf<Namespace>();
    expectTypeOf(cs.coreV1.namespaces).parameters.toEqualTypeOf<[]>();
    expectTypeOf(
      cs.apiregistrationV1.apiServices().get,
    ).returns.resolves.toEqualTypeOf<KubeObject>();

    // All namespaces: collection verbs only.
    expectTypeOf(cs.coreV1.pods()).toHaveProperty("list");
    expectTypeOf(cs.coreV1.pods()).toHaveProperty("watch");
    expectTypeOf(cs.coreV1.pods()).toHaveProperty("deleteCollection");
    expectTypeOf(cs.coreV1.pods()).not.toHaveProperty("create");
    expectTypeOf(cs.coreV1.pods()).not.toHaveProperty("get");
    expectTypeOf(cs.coreV1.pods()).not.toHaveProperty("log");

    // Subresources only where the table has them.
    expectTypeOf(cs.coreV1.pods("a")).toHaveProperty("evict");
    expectTypeOf(cs.coreV1.pods("a")).toHaveProperty("log");
    expectTypeOf(cs.coreV1.serviceAccounts("a")).toHaveProperty("createToken");
    expectTypeOf(cs.coreV1.configMaps("a")).not.toHaveProperty("getScale");
    expectTypeOf(cs.coreV1.configMaps("a")).not.toHaveProperty("updateStatus");
    expectTypeOf(cs.appsV1.statefulSets("a")).toHaveProperty("patchScale");

    // Verbs the resource does not serve.
    expectTypeOf(cs.coreV1.namespaces()).not.toHaveProperty("deleteCollection");
    expectTypeOf(cs.authenticationV1.tokenReviews()).toHaveProperty("create");
    expectTypeOf(cs.authenticationV1.tokenReviews()).not.toHaveProperty("get");
    expectTypeOf(cs.coreV1.componentStatuses()).not.toHaveProperty("create");
    expectTypeOf(cs.coreV1.bindings).parameters.toEqualTypeOf<[namespace: string]>();

    expect(cs.coreV1.pods()).toBeInstanceOf(PodResourceClient);
  });
});
