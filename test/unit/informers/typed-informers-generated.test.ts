import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import {
  Clientset,
  type RestConfig,
  builtinResources,
  NamespacedResourceLister,
  ClusterResourceLister,
  SharedInformerFactory,
} from "kubekit";
import {
  GENERATED_PATH,
  generateTypedInformers,
  isInformable,
  listerClassName,
} from "../../../tools/generate-informers.js";
import { groupAccessorName, resourceAccessorName } from "../../../tools/generate-clientset.js";

const config: RestConfig = {
  host: "https://127.0.0.1:1",
  tls: {},
  credentials: { kind: "none", get: async () => ({ headers: {} }), invalidate() {} },
  qps: -1,
  burst: 10,
};
const cs = new Clientset(config);

afterAll(async () => {
  await cs.restClient.transport.close();
});

/** The accessor `factory[group][resource]`, or undefined. */
function accessorOf(
  factory: SharedInformerFactory,
  group: string,
  resource: string,
): (() => unknown) | undefined {
  const groupInformers: unknown = Reflect.get(factory, group);
  if (typeof groupInformers !== "object" || groupInformers === null) return undefined;
  const accessor: unknown = Reflect.get(groupInformers, resource);
  return typeof accessor === "function"
    ? () => (accessor as (this: unknown) => unknown).call(groupInformers)
    : undefined;
}

describe("the generated typed informers", () => {
  it("are what tools/generate-informers.ts produces now (rerun the generator if not)", async () => {
    const committed = await readFile(
      new URL(`../../../${GENERATED_PATH}`, import.meta.url),
      "utf8",
    );
    expect(committed === (await generateTypedInformers())).toBe(true);
  });

  it("only cover resources that serve both list and watch", () => {
    const bindings = builtinResources.find((r) => r.group === "" && r.plural === "bindings");
    const tokenReviews = builtinResources.find((r) => r.plural === "tokenreviews");
    const pods = builtinResources.find((r) => r.group === "" && r.plural === "pods");
    expect(bindings && isInformable(bindings)).toBe(false);
    expect(tokenReviews && isInformable(tokenReviews)).toBe(false);
    expect(pods && isInformable(pods)).toBe(true);
  });

  it("name listers after the group version and the kind", () => {
    expect(listerClassName("", "v1", "Pod")).toBe("CoreV1PodLister");
    expect(listerClassName("autoscaling", "v2", "HorizontalPodAutoscaler")).toBe(
      "AutoscalingV2HorizontalPodAutoscalerLister",
    );
    expect(listerClassName("rbac.authorization.k8s.io", "v1", "ClusterRole")).toBe(
      "RbacV1ClusterRoleLister",
    );
  });

  it("give every listable and watchable resource an accessor with the right lister, and no other", () => {
    const factory = new SharedInformerFactory(cs, { namespace: "default" });
    let informable = 0;
    for (const info of builtinResources) {
      const group = groupAccessorName(info.group, info.version);
      const resource = resourceAccessorName(info.kind, info.plural);
      const accessor = accessorOf(factory, group, resource);
      if (!isInformable(info)) {
        expect(accessor, `${group}.${resource}`).toBeUndefined();
        continue;
      }
      informable++;
      expect(accessor, `${group}.${resource}`).toBeTypeOf("function");
      const result = accessor?.() as { informer: unknown; lister: unknown };
      expect(result.informer).toBe(
        factory.forResource({ group: info.group, version: info.version, resource: info.plural })
          .informer,
      );
      if (info.namespaced) {
        expect(result.lister).toBeInstanceOf(NamespacedResourceLister);
        expect(Reflect.get(result.lister as object, resource)).toBeTypeOf("function");
      } else {
        expect(result.lister).toBeInstanceOf(ClusterResourceLister);
      }
    }
    expect(informable).toBeGreaterThan(50);
  });

  it("have no group accessor for group versions without informable resources", () => {
    const factory = new SharedInformerFactory(cs);
    expect(Reflect.get(factory, "authenticationV1")).toBeUndefined();
    expect(Reflect.get(factory, "authorizationV1")).toBeUndefined();
  });
});
