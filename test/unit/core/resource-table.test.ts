import { describe, expect, it } from "vitest";
import { messageNameForKind } from "../../../packages/kubekit/src/core/field-table.js";
import {
  builtinGroupVersions,
  builtinResources,
  findBuiltinResource,
  storageVersionHash,
} from "../../../packages/kubekit/src/core/resource-table.js";

const STD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
/** Groups whose types are not in k8s.io/api, so the field table does not describe them. */
const OUTSIDE_K8S_IO_API = new Set(["apiextensions.k8s.io", "apiregistration.k8s.io"]);

function find(group: string, version: string, plural: string) {
  const r = findBuiltinResource(group, version, plural);
  if (!r) throw new Error(`missing ${group}/${version}/${plural}`);
  return r;
}

describe("storageVersionHash", () => {
  it("matches the values a real server publishes", () => {
    expect(storageVersionHash("", "v1", "Pod")).toBe("xPOwRZ+Yhw8=");
    expect(storageVersionHash("", "v1", "ConfigMap")).toBe("qFsyl6wFWjQ=");
    expect(storageVersionHash("apps", "v1", "Deployment")).toBe("8aSe+NMegvE=");
  });
});

describe("builtinResources invariants", () => {
  it("every kind from k8s.io/api has a message in the field table, and so does every subresource object", () => {
    for (const r of builtinResources) {
      if (OUTSIDE_K8S_IO_API.has(r.group)) continue;
      expect(
        messageNameForKind(r.group, r.version, r.kind),
        `${r.group}/${r.version} ${r.kind}`,
      ).toBeDefined();
      for (const s of r.subresources) {
        expect(
          messageNameForKind(s.group, s.version, s.kind),
          `${r.plural}/${s.name}`,
        ).toBeDefined();
      }
    }
  });

  it("names are lowercase, singular is the lowercased kind, listKind is kind + List", () => {
    for (const r of builtinResources) {
      expect(r.plural).toBe(r.plural.toLowerCase());
      expect(r.singular).toBe(r.kind.toLowerCase());
      expect(r.listKind).toBe(`${r.kind}List`);
    }
  });

  it("has no duplicate group/version/plural and is sorted by plural within a group version", () => {
    const keys = builtinResources.map((r) => `${r.group}/${r.version}/${r.plural}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 1; i < builtinResources.length; i++) {
      const a = builtinResources[i - 1]!;
      const b = builtinResources[i]!;
      if (a.group === b.group && a.version === b.version) expect(a.plural < b.plural).toBe(true);
    }
  });

  it("verbs and subresources are sorted; verbs are drawn from the known set", () => {
    const known = new Set(STD);
    for (const r of builtinResources) {
      expect([...r.verbs]).toEqual([...r.verbs].sort());
      for (const v of r.verbs) expect(known.has(v)).toBe(true);
      const names = r.subresources.map((s) => s.name);
      expect(names).toEqual([...names].sort());
      for (const s of r.subresources) expect([...s.verbs]).toEqual([...s.verbs].sort());
    }
  });

  it("each short name belongs to exactly one plural", () => {
    const owner = new Map<string, string>();
    for (const r of builtinResources) {
      for (const s of r.shortNames) {
        const prev = owner.get(s);
        if (prev !== undefined) expect(prev).toBe(r.plural);
        owner.set(s, r.plural);
      }
    }
    expect(owner.get("ev")).toBe("events");
    expect(owner.get("hpa")).toBe("horizontalpodautoscalers");
  });

  it("the all category holds exactly the members kube-apiserver lists in it", () => {
    const members = new Set(
      builtinResources.filter((r) => r.categories.includes("all")).map((r) => r.plural),
    );
    expect([...members].sort()).toEqual(
      [
        "cronjobs",
        "daemonsets",
        "deployments",
        "horizontalpodautoscalers",
        "jobs",
        "pods",
        "replicasets",
        "replicationcontrollers",
        "services",
        "statefulsets",
      ].sort(),
    );
  });

  it("the api-extensions category holds CRDs, APIServices and the admission configurations", () => {
    const members = builtinResources
      .filter((r) => r.categories.includes("api-extensions"))
      .map((r) => r.plural)
      .sort();
    expect(members).toEqual([
      "apiservices",
      "customresourcedefinitions",
      "mutatingwebhookconfigurations",
      "validatingadmissionpolicies",
      "validatingadmissionpolicybindings",
      "validatingwebhookconfigurations",
    ]);
  });
});

describe("specific rows", () => {
  it("pods carry the full subresource set with their objects", () => {
    const pods = find("", "v1", "pods");
    expect(pods.verbs).toEqual(STD);
    expect(pods.shortNames).toEqual(["po"]);
    const sub = Object.fromEntries(pods.subresources.map((s) => [s.name, s]));
    expect(Object.keys(sub)).toEqual([
      "attach",
      "binding",
      "ephemeralcontainers",
      "eviction",
      "exec",
      "log",
      "portforward",
      "proxy",
      "resize",
      "status",
    ]);
    expect(sub.eviction).toEqual({
      name: "eviction",
      verbs: ["create"],
      group: "policy",
      version: "v1",
      kind: "Eviction",
    });
    expect(sub.log).toEqual({ name: "log", verbs: ["get"], group: "", version: "v1", kind: "Pod" });
    expect(sub.exec?.verbs).toEqual(["create", "get"]);
    expect(sub.exec?.kind).toBe("PodExecOptions");
    expect(sub.binding?.verbs).toEqual(["create"]);
    expect(sub.proxy?.verbs).toEqual(["create", "delete", "get", "patch", "update"]);
    expect(sub.status?.verbs).toEqual(["get", "patch", "update"]);
  });

  it("namespaces have no deletecollection and a finalize subresource taking update", () => {
    const ns = find("", "v1", "namespaces");
    expect(ns.namespaced).toBe(false);
    expect(ns.verbs).not.toContain("deletecollection");
    expect(ns.subresources.find((s) => s.name === "finalize")?.verbs).toEqual(["update"]);
  });

  it("scale subresources are autoscaling/v1 Scale; serviceaccounts/token is a TokenRequest", () => {
    for (const [g, p] of [
      ["apps", "deployments"],
      ["apps", "replicasets"],
      ["apps", "statefulsets"],
      ["", "replicationcontrollers"],
    ] as const) {
      const scale = find(g, "v1", p).subresources.find((s) => s.name === "scale");
      expect(scale).toEqual({
        name: "scale",
        verbs: ["get", "patch", "update"],
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
      });
    }
    const deployStatus = find("apps", "v1", "deployments").subresources.find(
      (s) => s.name === "status",
    );
    expect(deployStatus).toMatchObject({ group: "apps", version: "v1", kind: "Deployment" });
    const token = find("", "v1", "serviceaccounts").subresources[0];
    expect(token).toEqual({
      name: "token",
      verbs: ["create"],
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
    });
  });

  it("serves horizontalpodautoscalers in autoscaling v2 and v1", () => {
    expect(find("autoscaling", "v2", "horizontalpodautoscalers").kind).toBe(
      "HorizontalPodAutoscaler",
    );
    expect(find("autoscaling", "v1", "horizontalpodautoscalers").shortNames).toEqual(["hpa"]);
  });

  it("review resources are create-only with the right scope", () => {
    const rows = [
      ["authorization.k8s.io", "selfsubjectaccessreviews", false],
      ["authorization.k8s.io", "subjectaccessreviews", false],
      ["authorization.k8s.io", "selfsubjectrulesreviews", false],
      ["authorization.k8s.io", "localsubjectaccessreviews", true],
      ["authentication.k8s.io", "tokenreviews", false],
      ["authentication.k8s.io", "selfsubjectreviews", false],
      ["", "bindings", true],
    ] as const;
    for (const [g, p, namespaced] of rows) {
      const r = find(g, "v1", p);
      expect(r.verbs).toEqual(["create"]);
      expect(r.namespaced).toBe(namespaced);
    }
    expect(find("", "v1", "componentstatuses").verbs).toEqual(["get", "list"]);
  });

  it("findBuiltinResource is exact", () => {
    expect(findBuiltinResource("apps", "v1", "deployment")).toBeUndefined();
    expect(findBuiltinResource("apps", "v2", "deployments")).toBeUndefined();
    expect(findBuiltinResource("", "v1", "Pods")).toBeUndefined();
    expect(findBuiltinResource("events.k8s.io", "v1", "events")?.group).toBe("events.k8s.io");
  });
});

describe("builtinGroupVersions", () => {
  it("lists named groups in kube-apiserver's /apis order with preferred versions first", () => {
    expect(builtinGroupVersions.map((g) => g.group)).toEqual([
      "apiregistration.k8s.io",
      "apps",
      "events.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "autoscaling",
      "batch",
      "certificates.k8s.io",
      "networking.k8s.io",
      "policy",
      "rbac.authorization.k8s.io",
      "storage.k8s.io",
      "admissionregistration.k8s.io",
      "apiextensions.k8s.io",
      "scheduling.k8s.io",
      "coordination.k8s.io",
      "node.k8s.io",
      "discovery.k8s.io",
      "flowcontrol.apiserver.k8s.io",
    ]);
    expect(builtinGroupVersions.find((g) => g.group === "autoscaling")?.versions).toEqual([
      "v2",
      "v1",
    ]);
    expect(builtinGroupVersions.some((g) => g.group === "")).toBe(false);
  });

  it("covers every resource row", () => {
    for (const r of builtinResources) {
      if (r.group === "") continue;
      expect(builtinGroupVersions.find((g) => g.group === r.group)?.versions).toContain(r.version);
    }
  });
});
