import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { compileJsonPath } from "../../../packages/apiserver/src/table/json-path.js";

const widget: JsonObject = {
  metadata: { name: "w1", labels: { "app.kubernetes.io/name": "shop", tier: "web" } },
  spec: {
    replicas: 3,
    items: [
      { name: "a", size: 1 },
      { name: "b", size: 5 },
      { name: "c", size: 9 },
    ],
    paused: false,
  },
  status: {
    conditions: [
      { type: "Synced", status: "True" },
      { type: "Ready", status: "False", reason: "Waiting" },
    ],
    observed: null,
  },
};

function run(path: string) {
  return compileJsonPath(path)(widget);
}

describe("compileJsonPath", () => {
  it("follows dotted fields, with or without braces and $", () => {
    expect(run(".spec.replicas")).toEqual([3]);
    expect(run("{.spec.replicas}")).toEqual([3]);
    expect(run("$.metadata.name")).toEqual(["w1"]);
    expect(run(".spec.paused")).toEqual([false]);
    expect(run(".status.observed")).toEqual([null]);
  });

  it("gives no result for missing keys, non-objects and out-of-range indices", () => {
    expect(run(".spec.missing")).toEqual([]);
    expect(run(".spec.replicas.deeper")).toEqual([]);
    expect(run(".spec.items[7]")).toEqual([]);
    expect(run(".spec.replicas[0]")).toEqual([]);
  });

  it("indexes arrays from the start and from the end", () => {
    expect(run(".spec.items[0].name")).toEqual(["a"]);
    expect(run(".spec.items[-1].name")).toEqual(["c"]);
  });

  it("supports wildcards over arrays and objects", () => {
    expect(run(".spec.items[*].name")).toEqual(["a", "b", "c"]);
    expect(run(".metadata.labels.*")).toEqual(["shop", "web"]);
  });

  it("reads keys with dots through escapes or quoted brackets", () => {
    expect(run(".metadata.labels.app\\.kubernetes\\.io/name")).toEqual(["shop"]);
    expect(run(".metadata.labels['app.kubernetes.io/name']")).toEqual(["shop"]);
    expect(run('.metadata.labels["tier"]')).toEqual(["web"]);
  });

  it("filters by equality, the condition idiom of CRD printer columns", () => {
    expect(run('.status.conditions[?(@.type=="Ready")].status')).toEqual(["False"]);
    expect(run(".status.conditions[?(@.type == 'Synced')].status")).toEqual(["True"]);
    expect(run('.status.conditions[?(@.type!="Ready")].type')).toEqual(["Synced"]);
    expect(run('.status.conditions[?(@.type=="Gone")].status')).toEqual([]);
  });

  it("filters by numeric comparison and by presence", () => {
    expect(run(".spec.items[?(@.size > 1)].name")).toEqual(["b", "c"]);
    expect(run(".spec.items[?(@.size<=5)].name")).toEqual(["a", "b"]);
    expect(run(".status.conditions[?(@.reason)].type")).toEqual(["Ready"]);
    expect(run('.spec.items[?(@.size=="5")].name')).toEqual([]);
  });

  it("rejects syntax outside the supported subset", () => {
    expect(() => compileJsonPath("..name")).toThrow(/recursive descent/);
    expect(() => compileJsonPath(".spec.items[0:2]")).toThrow(/slices/);
    expect(() => compileJsonPath(".spec.items[")).toThrow(/invalid JSONPath/);
    expect(() => compileJsonPath(".spec.")).toThrow(/empty field name/);
    expect(() => compileJsonPath('.status.conditions[?(@.type=="Ready"]')).toThrow(/\)/);
    expect(() => compileJsonPath("spec")).toThrow(/unexpected/);
  });
});
