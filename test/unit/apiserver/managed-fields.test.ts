import { describe, expect, it } from "vitest";
import { deepClone } from "../../../packages/kubekit/src/core/json.js";
import type { JsonObject } from "kubekit";
import {
  ApplyConflictError,
  fieldSetOf,
  recordUpdate,
  serverSideApply,
} from "../../../packages/apiserver/src/apply/managed-fields.js";
import type { ManagedFieldsEntry } from "../../../packages/apiserver/src/apply/managed-fields.js";

const CM = "k8s.io.api.core.v1.ConfigMap";
const DEP = "k8s.io.api.apps.v1.Deployment";
const T0 = "2024-05-01T12:00:00Z";
const T1 = "2024-05-01T12:01:00Z";
const T2 = "2024-05-01T12:02:00Z";

interface ApplyOpts {
  force?: boolean;
  time?: string;
  messageName?: string | undefined;
  apiVersion?: string;
  subresource?: string;
}

function apply(
  live: JsonObject | undefined,
  applied: JsonObject,
  manager: string,
  o: ApplyOpts = {},
): JsonObject {
  return serverSideApply(live, applied, {
    manager,
    force: o.force ?? false,
    apiVersion: o.apiVersion ?? String(applied["apiVersion"] ?? "v1"),
    ...(o.subresource ? { subresource: o.subresource } : {}),
    time: o.time ?? T0,
    messageName: "messageName" in o ? o.messageName : CM,
  });
}

function managed(obj: JsonObject): ManagedFieldsEntry[] {
  return (obj["metadata"] as JsonObject)["managedFields"] as unknown as ManagedFieldsEntry[];
}

function entry(
  obj: JsonObject,
  manager: string,
  operation = "Apply",
): ManagedFieldsEntry | undefined {
  return managed(obj).find((e) => e.manager === manager && e.operation === operation);
}

/** `obj` with `metadata.managedFields` replaced by `list`. */
function withManaged(obj: JsonObject, list: ManagedFieldsEntry[]): JsonObject {
  const out = deepClone(obj);
  (out["metadata"] as JsonObject)["managedFields"] = list as unknown as JsonObject[];
  return out;
}

function withoutManaged(obj: JsonObject): JsonObject {
  const out = deepClone(obj);
  delete (out["metadata"] as JsonObject)["managedFields"];
  return out;
}

function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApplyConflictError) return err;
    throw err;
  }
  throw new Error("expected an ApplyConflictError");
}

function configMap(data: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default", ...extra },
    data,
  };
}

describe("fieldSetOf", () => {
  it("gives the exact FieldsV1 of a small ConfigMap", () => {
    const cm = configMap({ key: "v" }, { labels: { app: "web" } });
    expect(fieldSetOf(cm, CM)).toEqual({
      "f:data": { "f:key": {} },
      "f:metadata": { "f:labels": { "f:app": {} } },
    });
  });

  it("never includes apiVersion, kind or server-managed metadata", () => {
    const obj: JsonObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "x",
        namespace: "n",
        uid: "u",
        resourceVersion: "5",
        generation: 2,
        creationTimestamp: T0,
        managedFields: [{ manager: "m" }],
      },
    };
    expect(fieldSetOf(obj, CM)).toEqual({});
  });

  it("ignores null values and empty granular containers", () => {
    expect(fieldSetOf(configMap({ a: null }, { labels: {} }), CM)).toEqual({});
  });

  it("marks list items with '.' and treats atomic structs and lists as leaves", () => {
    const dep: JsonObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", finalizers: ["a/b"] },
      spec: {
        selector: { matchLabels: { app: "x" } },
        template: {
          spec: {
            containers: [{ name: "c", args: ["1", "2"], env: [{ name: "E", value: "v" }] }],
            tolerations: [{ key: "k" }],
          },
        },
      },
    };
    expect(fieldSetOf(dep, DEP)).toEqual({
      "f:metadata": { "f:finalizers": { 'v:"a/b"': {} } },
      "f:spec": {
        "f:selector": {},
        "f:template": {
          "f:spec": {
            "f:containers": {
              'k:{"name":"c"}': {
                ".": {},
                "f:args": {},
                "f:env": { 'k:{"name":"E"}': { ".": {}, "f:name": {}, "f:value": {} } },
                "f:name": {},
              },
            },
            "f:tolerations": {},
          },
        },
      },
    });
  });

  it("without a schema treats objects as granular and lists as atomic", () => {
    const cr: JsonObject = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", finalizers: ["x"] },
      spec: { size: 3, tags: ["a", "b"], nested: { deep: true } },
    };
    expect(fieldSetOf(cr, undefined)).toEqual({
      "f:metadata": { "f:finalizers": { 'v:"x"': {} } },
      "f:spec": { "f:nested": { "f:deep": {} }, "f:size": {}, "f:tags": {} },
    });
  });
});

describe("serverSideApply: one manager", () => {
  it("creates the object with one Apply entry owning exactly the applied fields", () => {
    const cm = configMap({ key: "v" }, { labels: { app: "web" } });
    const created = apply(undefined, cm, "kubectl");
    expect(withoutManaged(created)).toEqual(cm);
    expect(managed(created)).toEqual([
      {
        manager: "kubectl",
        operation: "Apply",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:key": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
      },
    ]);
  });

  it("does not modify its inputs", () => {
    const cm = configMap({ key: "v" });
    const copy = deepClone(cm);
    const created = apply(undefined, cm, "kubectl");
    const createdCopy = deepClone(created);
    apply(created, configMap({ key: "w" }), "kubectl", { time: T1 });
    expect(cm).toEqual(copy);
    expect(created).toEqual(createdCopy);
  });

  it("re-applying with a changed value updates it without conflict and restamps the entry", () => {
    const live = apply(undefined, configMap({ key: "v" }), "kubectl");
    const next = apply(live, configMap({ key: "w" }), "kubectl", { time: T1 });
    expect(next["data"]).toEqual({ key: "w" });
    expect(managed(next)).toHaveLength(1);
    expect(managed(next)[0]?.time).toBe(T1);
  });

  it("re-applying the same configuration is a no-op: deep-equal object, untouched timestamps", () => {
    const live = apply(undefined, configMap({ key: "v" }, { labels: { app: "web" } }), "kubectl");
    const stored = {
      ...live,
      metadata: { ...(live["metadata"] as JsonObject), resourceVersion: "7", uid: "u" },
    };
    const again = apply(stored, configMap({ key: "v" }, { labels: { app: "web" } }), "kubectl", {
      time: T2,
    });
    expect(again).toEqual(stored);
    expect(managed(again)[0]?.time).toBe(T0);
  });

  it("removes a field dropped from the applied configuration, and containers it empties", () => {
    const live = apply(
      undefined,
      configMap({ a: "1", b: "2" }, { labels: { app: "web" } }),
      "kubectl",
    );
    const next = apply(live, configMap({ a: "1" }), "kubectl", { time: T1 });
    expect(next["data"]).toEqual({ a: "1" });
    expect((next["metadata"] as JsonObject)["labels"]).toBeUndefined();
    expect(entry(next, "kubectl")?.fieldsV1).toEqual({ "f:data": { "f:a": {} } });
    expect(entry(next, "kubectl")?.time).toBe(T1);
  });

  it("keeps fields it never owned when they are missing from the configuration", () => {
    const live = recordUpdate(undefined, configMap({ other: "x" }), [], {
      manager: "kubectl-create",
      apiVersion: "v1",
      time: T0,
      messageName: CM,
    });
    const obj = withManaged(configMap({ other: "x" }), live);
    const next = apply(obj, configMap({ mine: "y" }), "kubectl", { time: T1 });
    expect(next["data"]).toEqual({ other: "x", mine: "y" });
  });

  it("a name-only apply by a new manager changes nothing, even with unsorted managedFields", () => {
    const list: ManagedFieldsEntry[] = [
      {
        manager: "z",
        operation: "Update",
        apiVersion: "v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:b": {} } },
      },
      {
        manager: "a",
        operation: "Apply",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} } },
      },
    ];
    const live = withManaged(configMap({ a: "1", b: "2" }), list);
    const { data: _data, ...nameOnly } = configMap({});
    expect(apply(live, nameOnly, "newcomer", { time: T2 })).toEqual(live);
  });

  it("ignores nulls in the configuration", () => {
    const live = apply(undefined, configMap({ a: "1" }), "kubectl");
    const next = apply(live, { ...configMap({ a: "1" }), spec: null }, "kubectl", { time: T1 });
    expect(next).toEqual(live);
  });
});

describe("serverSideApply: several managers", () => {
  const base = (): JsonObject => apply(undefined, configMap({ key: "v", other: "o" }), "alice");

  it("a different value for a field another applier owns is a conflict with kube's message", () => {
    const live = base();
    const before = deepClone(live);
    const err = conflictOf(() => apply(live, configMap({ key: "changed" }), "bob", { time: T1 }));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "alice": .data.key');
    expect(err.conflicts).toEqual([
      { manager: "alice", field: ".data.key", message: 'conflict with "alice"' },
    ]);
    expect(live).toEqual(before);
  });

  it('names an updater with its apiVersion, as in `conflict with "kubectl" using apps/v1`', () => {
    const dep = deployment(2);
    const created = apply(undefined, dep, "ci", { messageName: DEP });
    const scaled = deepClone(created);
    (scaled["spec"] as JsonObject)["replicas"] = 5;
    const mf = recordUpdate(created, scaled, managed(created), {
      manager: "kubectl",
      apiVersion: "apps/v1",
      time: T1,
      messageName: DEP,
    });
    const live = withManaged(scaled, mf);
    const err = conflictOf(() => apply(live, deployment(3), "ci", { messageName: DEP, time: T2 }));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas',
    );
    expect(err.conflicts[0]?.message).toBe('conflict with "kubectl" using apps/v1');
  });

  it("reports several conflicts grouped by manager", () => {
    let live = apply(undefined, configMap({ a: "1", b: "2" }), "alice");
    live = apply(live, configMap({ c: "3" }), "bob");
    const err = conflictOf(() => apply(live, configMap({ a: "x", b: "y", c: "z" }), "carol"));
    expect(err.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alice":\n- .data.a\n- .data.b\nconflicts with "bob":\n- .data.c',
    );
    expect(err.conflicts.map((c) => c.manager)).toEqual(["alice", "alice", "bob"]);
  });

  it("force moves ownership to the applier", () => {
    const live = base();
    const next = apply(live, configMap({ key: "changed" }), "bob", { force: true, time: T1 });
    expect(next["data"]).toEqual({ key: "changed", other: "o" });
    expect(entry(next, "alice")?.fieldsV1).toEqual({ "f:data": { "f:other": {} } });
    expect(entry(next, "bob")?.fieldsV1).toEqual({ "f:data": { "f:key": {} } });
    // alice can no longer remove it by dropping it, and now conflicts with bob.
    const err = conflictOf(() =>
      apply(next, configMap({ key: "v", other: "o" }), "alice", { time: T2 }),
    );
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "bob": .data.key');
  });

  it("drops an entry whose every field was forced away", () => {
    const live = apply(undefined, configMap({ key: "v" }), "alice");
    const next = apply(live, configMap({ key: "w" }), "bob", { force: true, time: T1 });
    expect(managed(next).map((e) => e.manager)).toEqual(["bob"]);
  });

  it("the same value from two appliers is shared ownership, and survives one of them leaving", () => {
    const live = base();
    const shared = apply(live, configMap({ key: "v" }), "bob", { time: T1 });
    expect(entry(shared, "alice")?.fieldsV1).toEqual({ "f:data": { "f:key": {}, "f:other": {} } });
    expect(entry(shared, "bob")?.fieldsV1).toEqual({ "f:data": { "f:key": {} } });
    const aliceLeaves = apply(shared, configMap({ other: "o" }), "alice", { time: T2 });
    expect(aliceLeaves["data"]).toEqual({ key: "v", other: "o" });
    expect(entry(aliceLeaves, "alice")?.fieldsV1).toEqual({ "f:data": { "f:other": {} } });
  });

  it("sorts entries like kube-apiserver: Apply before Update, then by time", () => {
    const created = recordUpdate(undefined, configMap({ a: "1" }), [], {
      manager: "zed",
      apiVersion: "v1",
      time: T0,
      messageName: CM,
    });
    const obj = withManaged(configMap({ a: "1" }), created);
    const next = apply(obj, configMap({ b: "2" }), "bob", { time: T2 });
    expect(managed(next).map((e) => `${e.operation}:${e.manager}`)).toEqual([
      "Apply:bob",
      "Update:zed",
    ]);
  });
});

describe("recordUpdate", () => {
  const opts = (
    manager: string,
    time: string,
    extra: { apiVersion?: string; subresource?: string } = {},
  ) => ({
    manager,
    apiVersion: extra.apiVersion ?? "v1",
    ...(extra.subresource ? { subresource: extra.subresource } : {}),
    time,
    messageName: CM,
  });

  it("on create, owns every field set, with '.' on containers that appeared", () => {
    const mf = recordUpdate(
      undefined,
      configMap({ key: "v" }, { labels: { app: "web" } }),
      [],
      opts("kubectl-create", T0),
    );
    expect(mf).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:data": { ".": {}, "f:key": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
        },
      },
    ]);
  });

  it("after an Apply, takes ownership of the changed fields only", () => {
    const live = apply(undefined, configMap({ a: "1", b: "2" }), "kubectl");
    const after = { ...live, data: { a: "1", b: "changed" } };
    const mf = recordUpdate(live, after, managed(live), opts("editor", T1));
    const byManager = Object.fromEntries(mf.map((e) => [e.manager, e]));
    expect(byManager["kubectl"]?.fieldsV1).toEqual({ "f:data": { "f:a": {} } });
    expect(byManager["kubectl"]?.time).toBe(T0);
    expect(byManager["editor"]?.fieldsV1).toEqual({ "f:data": { "f:b": {} } });
    expect(byManager["editor"]?.operation).toBe("Update");
  });

  it("returns the input unchanged (order and times) for a no-op write", () => {
    const input: ManagedFieldsEntry[] = [
      {
        manager: "z",
        operation: "Update",
        apiVersion: "v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:b": {} } },
      },
      {
        manager: "a",
        operation: "Apply",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} } },
      },
    ];
    const obj = configMap({ a: "1", b: "2" });
    const after = {
      ...obj,
      metadata: { ...(obj["metadata"] as JsonObject), resourceVersion: "9", generation: 3 },
    };
    const out = recordUpdate(obj, after, input, opts("writer", T2));
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
  });

  it("merges writes of the same manager and apiVersion into one entry, keeps versions apart", () => {
    const v1 = configMap({ a: "1" });
    let mf = recordUpdate(undefined, v1, [], opts("m", T0));
    const v2 = configMap({ a: "1", b: "2" });
    mf = recordUpdate(v1, v2, mf, opts("m", T1));
    expect(mf).toHaveLength(1);
    expect(mf[0]?.fieldsV1).toEqual({ "f:data": { ".": {}, "f:a": {}, "f:b": {} } });
    expect(mf[0]?.time).toBe(T1);
    const v3 = configMap({ a: "1", b: "2", c: "3" });
    mf = recordUpdate(v2, v3, mf, opts("m", T2, { apiVersion: "v2" }));
    expect(mf.map((e) => e.apiVersion)).toEqual(["v1", "v2"]);
    expect(mf[1]?.fieldsV1).toEqual({ "f:data": { "f:c": {} } });
  });

  it("removes deleted fields from every entry and drops entries left empty", () => {
    const v1 = configMap({ a: "1", b: "2" });
    let mf = recordUpdate(undefined, configMap({ a: "1" }), [], opts("creator", T0));
    mf = recordUpdate(configMap({ a: "1" }), v1, mf, opts("adder", T1));
    const v2 = configMap({ a: "1" });
    mf = recordUpdate(v1, v2, mf, opts("remover", T2));
    expect(mf.map((e) => e.manager)).toEqual(["creator"]);
    expect(mf[0]?.time).toBe(T0);
  });

  it("merges duplicate entries of one identity", () => {
    const dup: ManagedFieldsEntry[] = [
      {
        manager: "m",
        operation: "Update",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} } },
      },
      {
        manager: "m",
        operation: "Update",
        apiVersion: "v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:b": {} } },
      },
    ];
    const before = configMap({ a: "1", b: "2" });
    const out = recordUpdate(before, configMap({ a: "1", b: "2", c: "3" }), dup, opts("other", T1));
    expect(out.find((e) => e.manager === "m")?.fieldsV1).toEqual({
      "f:data": { "f:a": {}, "f:b": {} },
    });
    expect(out).toHaveLength(2);
  });

  it("records a status subresource write in its own entry", () => {
    const dep = deployment(1);
    const created = apply(undefined, dep, "kubectl", { messageName: DEP });
    const withStatus = {
      ...created,
      status: { replicas: 1, conditions: [{ type: "Available", status: "True" }] },
    };
    const mf = recordUpdate(created, withStatus, managed(created), {
      manager: "controller",
      apiVersion: "apps/v1",
      subresource: "status",
      time: T1,
      messageName: DEP,
    });
    const status = mf.find((e) => e.manager === "controller");
    expect(status).toEqual({
      manager: "controller",
      operation: "Update",
      apiVersion: "apps/v1",
      time: T1,
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:status": {
          "f:conditions": {
            ".": {},
            'k:{"type":"Available"}': { ".": {}, "f:status": {}, "f:type": {} },
          },
          "f:replicas": {},
        },
      },
      subresource: "status",
    });
    const live = withManaged(withStatus, mf);
    const err = conflictOf(() =>
      apply(live, { ...deployment(1), status: { replicas: 4 } }, "kubectl", {
        messageName: DEP,
        time: T2,
      }),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "controller" with subresource "status" using apps/v1: .status.replicas',
    );
  });
});

describe("associative lists and sets", () => {
  function pod(containers: JsonObject[], finalizers?: string[]): JsonObject {
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", ...(finalizers ? { finalizers } : {}) },
      spec: { containers },
    };
  }
  const POD = "k8s.io.api.core.v1.Pod";
  const o = (extra: ApplyOpts = {}): ApplyOpts => ({ messageName: POD, ...extra });

  it("two managers own different containers of the same list", () => {
    let live = apply(undefined, pod([{ name: "a", image: "a:1" }]), "alice", o());
    live = apply(live, pod([{ name: "b", image: "b:1" }]), "bob", o({ time: T1 }));
    const containers = (live["spec"] as JsonObject)["containers"] as JsonObject[];
    expect(containers.map((c) => c["name"])).toEqual(["a", "b"]);
    expect(entry(live, "bob")?.fieldsV1).toEqual({
      "f:spec": { "f:containers": { 'k:{"name":"b"}': { ".": {}, "f:image": {}, "f:name": {} } } },
    });
    const err = conflictOf(() =>
      apply(live, pod([{ name: "a", image: "a:2" }]), "bob", o({ time: T2 })),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "alice": .spec.containers[name="a"].image',
    );
    const aliceLeaves = apply(live, pod([]), "alice", o({ time: T2 }));
    expect((aliceLeaves["spec"] as JsonObject)["containers"]).toEqual([
      { name: "b", image: "b:1" },
    ]);
    expect(entry(aliceLeaves, "alice")).toBeUndefined();
  });

  it("merges items in the configuration's order and keeps live-only items in place", () => {
    let live = apply(undefined, pod([{ name: "x" }, { name: "a" }]), "other", o());
    live = apply(live, pod([{ name: "a", image: "i" }, { name: "c" }]), "me", o({ time: T1 }));
    const names = ((live["spec"] as JsonObject)["containers"] as JsonObject[]).map(
      (c) => c["name"],
    );
    expect(names).toEqual(["x", "a", "c"]);
  });

  it("keys container ports by containerPort and protocol, defaulting protocol to TCP", () => {
    const live = apply(undefined, pod([{ name: "a", ports: [{ containerPort: 80 }] }]), "me", o());
    expect(entry(live, "me")?.fieldsV1).toEqual({
      "f:spec": {
        "f:containers": {
          'k:{"name":"a"}': {
            ".": {},
            "f:name": {},
            "f:ports": {
              'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
            },
          },
        },
      },
    });
    const defaulted = deepClone(live);
    (((defaulted["spec"] as JsonObject)["containers"] as JsonObject[])[0] as JsonObject)["ports"] =
      [{ containerPort: 80, protocol: "TCP" }];
    const again = apply(
      defaulted,
      pod([{ name: "a", ports: [{ containerPort: 80 }] }]),
      "me",
      o({ time: T1 }),
    );
    expect(again).toEqual(defaulted);
  });

  it("keeps a dropped item another manager owns a field of, with its key, removing only the applier's fields", () => {
    const live = apply(undefined, pod([{ name: "a", image: "a:1", args: ["x"] }]), "alice", o());
    const edited = deepClone(live);
    (((edited["spec"] as JsonObject)["containers"] as JsonObject[])[0] as JsonObject)["image"] =
      "a:2";
    const mf = recordUpdate(live, edited, managed(live), {
      manager: "editor",
      apiVersion: "v1",
      time: T1,
      messageName: POD,
    });
    const stored = withManaged(edited, mf);
    const next = apply(stored, pod([]), "alice", o({ time: T2 }));
    expect((next["spec"] as JsonObject)["containers"]).toEqual([{ name: "a", image: "a:2" }]);
  });

  it("replaces atomic lists whole", () => {
    const live = apply(undefined, pod([{ name: "a", args: ["1", "2", "3"] }]), "me", o());
    const next = apply(live, pod([{ name: "a", args: ["9"] }]), "me", o({ time: T1 }));
    expect((next["spec"] as JsonObject)["containers"]).toEqual([{ name: "a", args: ["9"] }]);
  });

  it("treats finalizers as a set owned value by value", () => {
    let live = apply(undefined, pod([{ name: "a" }], ["example.com/x"]), "alice", o());
    live = apply(live, pod([], ["example.com/y"]), "bob", o({ time: T1 }));
    expect((live["metadata"] as JsonObject)["finalizers"]).toEqual([
      "example.com/x",
      "example.com/y",
    ]);
    expect(entry(live, "bob")?.fieldsV1).toEqual({
      "f:metadata": { "f:finalizers": { 'v:"example.com/y"': {} } },
    });
    const next = apply(live, pod([{ name: "a" }], []), "alice", o({ time: T2 }));
    expect((next["metadata"] as JsonObject)["finalizers"]).toEqual(["example.com/y"]);
  });
});

describe("custom resources (no schema)", () => {
  const widget = (spec: JsonObject): JsonObject => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w", namespace: "default" },
    spec,
  });
  const o = (extra: ApplyOpts = {}): ApplyOpts => ({ messageName: undefined, ...extra });

  it("owns map fields granularly and lists atomically", () => {
    let live = apply(undefined, widget({ size: 1, tags: ["a"] }), "alice", o());
    live = apply(live, widget({ color: "red" }), "bob", o({ time: T1 }));
    expect(live["spec"]).toEqual({ size: 1, tags: ["a"], color: "red" });
    const err = conflictOf(() => apply(live, widget({ tags: ["a", "b"] }), "bob", o({ time: T2 })));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.tags');
  });

  it("records Update writes with '.' on objects that appeared", () => {
    const mf = recordUpdate(undefined, widget({ size: 1 }), [], {
      manager: "kubectl-create",
      apiVersion: "example.com/v1",
      time: T0,
      messageName: undefined,
    });
    expect(mf[0]?.fieldsV1).toEqual({ "f:spec": { ".": {}, "f:size": {} } });
  });

  it("removes a dropped field and the object it empties", () => {
    const live = apply(undefined, { ...widget({ size: 1 }), status: { ok: true } }, "alice", o());
    const next = apply(live, widget({ size: 1 }), "alice", o({ time: T1 }));
    expect(next["status"]).toBeUndefined();
    expect(next["spec"]).toEqual({ size: 1 });
  });
});

describe("status subresource apply", () => {
  it("keeps a separate Apply entry per subresource", () => {
    const live = apply(undefined, deployment(1), "ctl", { messageName: DEP });
    const next = apply(live, { ...deployment(1), status: { replicas: 1 } }, "ctl", {
      messageName: DEP,
      subresource: "status",
      time: T1,
    });
    const entries = managed(next).filter((e) => e.manager === "ctl");
    expect(entries).toHaveLength(2);
    const status = entries.find((e) => e.subresource === "status");
    expect(status?.fieldsV1).toMatchObject({ "f:status": { "f:replicas": {} } });
    expect(entries.find((e) => e.subresource === undefined)?.time).toBe(T0);
  });
});

function deployment(replicas: number, image = "nginx:1.27"): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { labels: { app: "web" }, name: "web-ssa", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ image, name: "nginx", ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}

describe("kubectl-style Deployment", () => {
  const o = (extra: ApplyOpts = {}): ApplyOpts => ({ messageName: DEP, ...extra });
  const EXPECTED_FIELDS = {
    "f:metadata": { "f:labels": { "f:app": {} } },
    "f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": { "f:labels": { "f:app": {} } },
        "f:spec": {
          "f:containers": {
            'k:{"name":"nginx"}': {
              ".": {},
              "f:image": {},
              "f:name": {},
              "f:ports": {
                'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
              },
            },
          },
        },
      },
    },
  };

  it("records the same FieldsV1 as kube-apiserver for `kubectl apply --server-side`", () => {
    const created = apply(undefined, deployment(2), "kubectl", o());
    expect(managed(created)).toEqual([
      {
        manager: "kubectl",
        operation: "Apply",
        apiVersion: "apps/v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: EXPECTED_FIELDS,
      },
    ]);
  });

  it("survives server defaulting: re-applying the manifest is a no-op", () => {
    const created = apply(undefined, deployment(2), "kubectl", o());
    const stored = deepClone(created);
    const spec = stored["spec"] as JsonObject;
    spec["strategy"] = {
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
    };
    spec["progressDeadlineSeconds"] = 600;
    const container = (
      ((spec["template"] as JsonObject)["spec"] as JsonObject)["containers"] as JsonObject[]
    )[0] as JsonObject;
    container["ports"] = [{ containerPort: 80, protocol: "TCP" }];
    container["imagePullPolicy"] = "IfNotPresent";
    (stored["metadata"] as JsonObject)["resourceVersion"] = "12";
    expect(apply(stored, deployment(2), "kubectl", o({ time: T2 }))).toEqual(stored);
  });

  it("changes only what the manifest changed, and conflicts with `kubectl scale`", () => {
    const created = apply(undefined, deployment(2), "kubectl", o());
    const updated = apply(created, deployment(2, "nginx:1.28"), "kubectl", o({ time: T1 }));
    expect(withoutManaged(updated)).toEqual(deployment(2, "nginx:1.28"));
    expect(managed(updated)[0]?.fieldsV1).toEqual(EXPECTED_FIELDS);
    expect(managed(updated)[0]?.time).toBe(T1);

    const scaled = deepClone(updated);
    (scaled["spec"] as JsonObject)["replicas"] = 5;
    const mf = recordUpdate(updated, scaled, managed(updated), {
      manager: "kubectl",
      apiVersion: "apps/v1",
      subresource: "scale",
      time: T2,
      messageName: DEP,
    });
    expect(mf.find((e) => e.operation === "Update")?.fieldsV1).toEqual({
      "f:spec": { "f:replicas": {} },
    });
    const live = withManaged(scaled, mf);
    const err = conflictOf(() =>
      apply(live, deployment(2, "nginx:1.28"), "kubectl", o({ time: T2 })),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
    );
    const forced = apply(
      live,
      deployment(2, "nginx:1.28"),
      "kubectl",
      o({ time: T2, force: true }),
    );
    expect((forced["spec"] as JsonObject)["replicas"]).toBe(2);
    expect(managed(forced).map((e) => e.operation)).toEqual(["Apply"]);
  });

  it("lets kubectl see the last-applied annotation owned by its Apply entry", () => {
    const manifest = deployment(1);
    (manifest["metadata"] as JsonObject)["annotations"] = {
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
    };
    const created = apply(undefined, manifest, "kubectl-last-applied", o());
    expect(entry(created, "kubectl-last-applied")?.fieldsV1).toMatchObject({
      "f:metadata": {
        "f:annotations": { "f:kubectl.kubernetes.io/last-applied-configuration": {} },
      },
    });
  });
});
