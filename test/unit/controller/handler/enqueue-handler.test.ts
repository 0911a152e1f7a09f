import { describe, expect, it } from "vitest";
import {
  type EventHandler,
  type ObjectWithMetadata,
  type Predicate,
  type QueueAddOptions,
  DeletedFinalStateUnknown,
  LOW_PRIORITY,
  enqueueForObject,
  enqueueForOwner,
  enqueueFromMap,
  generationChanged,
} from "kubekit";
import { informerEventHandler } from "../../../../packages/kubekit/src/controller/source/informer-event-handler.js";

type O = ObjectWithMetadata;

function pod(name: string, metadata: O["metadata"] = {}): O {
  return { metadata: { name, namespace: "ns", ...metadata } };
}

function ownedBy(name: string, kind = "ReplicaSet", apiVersion = "apps/v1"): O["metadata"] {
  return {
    ownerReferences: [
      { apiVersion: "v1", kind: "ConfigMap", name: "not-a-controller", uid: "c" },
      { apiVersion, kind, name, uid: `uid-${name}`, controller: true },
    ],
  };
}

/** The informer handler of `handler` and `predicates`, and what it adds and recovers. */
function setup(handler: EventHandler<O> = enqueueForObject(), predicates: Predicate<O>[] = []) {
  const keys: string[] = [];
  const added: [string, QueueAddOptions | undefined][] = [];
  const recovered: [unknown, string][] = [];
  const h = informerEventHandler<O>(
    handler,
    predicates,
    {
      add: (key, options) => {
        keys.push(key);
        added.push([key, options]);
      },
    },
    (error, event) => recovered.push([error, event]),
  );
  return { h, keys, added, recovered };
}

/** The keys `handler` maps `obj` to (through a create). */
function keysOf(handler: EventHandler<O>, obj: O): string[] {
  const { h, keys } = setup(handler);
  void h.onAdd?.(obj, false);
  return keys;
}

describe("built-in event handlers through the informer adapter", () => {
  it("enqueueForObject: the object's key for adds, updates and deletes, and a tombstone's key", () => {
    const { h, keys } = setup();
    void h.onAdd?.(pod("a"), true);
    void h.onUpdate?.(pod("a"), pod("a"));
    void h.onDelete?.(pod("a"));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/b", pod("b")));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/c", undefined));
    expect(keys).toEqual(["ns/a", "ns/a", "ns/a", "ns/b", "ns/c"]);
  });

  it("enqueueForObject: only the new object's key on an update, as controller-runtime's EnqueueRequestForObject", () => {
    const { h, keys } = setup();
    void h.onUpdate?.(pod("old-name"), { metadata: { name: "new-name", namespace: "other" } });
    expect(keys).toEqual(["other/new-name"]);
  });

  it("adds initial-list objects and unchanged updates at LOW_PRIORITY, user changes at the default", () => {
    const { h, added } = setup();
    void h.onAdd?.(pod("initial"), true);
    void h.onAdd?.(pod("created"), false);
    void h.onUpdate?.(
      pod("resync", { resourceVersion: "5" }),
      pod("resync", { resourceVersion: "5" }),
    );
    void h.onUpdate?.(
      pod("changed", { resourceVersion: "5" }),
      pod("changed", { resourceVersion: "6" }),
    );
    expect(added).toEqual([
      ["ns/initial", { priority: LOW_PRIORITY }],
      ["ns/created", undefined],
      ["ns/resync", { priority: LOW_PRIORITY }],
      ["ns/changed", undefined],
    ]);
  });

  it("applies every predicate (AND) and tells delete predicates about tombstones", () => {
    const seen: boolean[] = [];
    const { h, keys } = setup(enqueueForObject(), [
      generationChanged,
      {
        delete: (_obj, finalStateUnknown) => {
          seen.push(finalStateUnknown);
          return true;
        },
      },
    ]);
    void h.onUpdate?.(pod("same", { generation: 1 }), pod("same", { generation: 1 }));
    void h.onUpdate?.(pod("bumped", { generation: 1 }), pod("bumped", { generation: 2 }));
    void h.onDelete?.(pod("gone"));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/lost", pod("lost")));
    // Without a last known state nothing can be predicated: the key is still enqueued.
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/unknown", undefined));
    expect(keys).toEqual(["ns/bumped", "ns/gone", "ns/lost", "ns/unknown"]);
    expect(seen).toEqual([false, true]);
  });

  it("enqueueFromMap: merges the keys of old and new objects; ignores a tombstone without state", () => {
    const { h, keys } = setup(
      enqueueFromMap((obj) =>
        obj.metadata?.labels?.["cm"] ? [`ns/${obj.metadata.labels["cm"]}`] : [],
      ),
    );
    void h.onUpdate?.(pod("p", { labels: { cm: "x" } }), pod("p", { labels: { cm: "y" } }));
    void h.onUpdate?.(pod("p", { labels: { cm: "y" } }), pod("p", { labels: { cm: "y" } }));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/p", undefined));
    void h.onAdd?.(pod("q"), false);
    expect(keys).toEqual(["ns/x", "ns/y", "ns/y"]);
  });

  it("recovers what a map function or predicate throws, naming the event; the event is dropped", () => {
    const boom = new Error("bad map");
    const { h, keys, recovered } = setup(
      enqueueFromMap(() => {
        throw boom;
      }),
    );
    void h.onAdd?.(pod("a"), false);
    const failing = setup(enqueueForObject(), [
      {
        update: () => {
          throw "not an error";
        },
      },
    ]);
    void failing.h.onUpdate?.(pod("a"), pod("a"));
    expect(keys).toEqual([]);
    expect(recovered).toEqual([[boom, "create"]]);
    expect(failing.recovered).toEqual([["not an error", "update"]]);
  });

  it("enqueueForOwner maps to the controller owner of the given group and kind only", () => {
    const rs = enqueueForOwner<O>({ group: "apps", kind: "ReplicaSet" });
    expect(keysOf(rs, pod("p", ownedBy("web")))).toEqual(["ns/web"]);
    expect(keysOf(rs, pod("p", ownedBy("web", "Deployment")))).toEqual([]);
    expect(keysOf(rs, pod("p", ownedBy("web", "ReplicaSet", "v1")))).toEqual([]);
    expect(keysOf(rs, pod("p", ownedBy("web", "ReplicaSet", "a/b/c")))).toEqual([]);
    expect(keysOf(rs, pod("p"))).toEqual([]);
    const node = enqueueForOwner<O>({ group: "", kind: "Node", clusterScoped: true });
    expect(keysOf(node, pod("p", ownedBy("n1", "Node", "v1")))).toEqual(["n1"]);
    const clusterScopedChild = { metadata: { name: "pv", ...ownedBy("x", "Owner", "v1") } };
    expect(keysOf(enqueueForOwner({ group: "", kind: "Owner" }), clusterScopedChild)).toEqual([
      "x",
    ]);
  });

  it("enqueueForOwner with onlyController: false maps to every owner of the kind, once each", () => {
    const owners: O["metadata"] = {
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "a", uid: "1", controller: true },
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "b", uid: "2" },
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "b", uid: "3" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "c", uid: "4" },
        { apiVersion: "v1", kind: "ReplicaSet", name: "d", uid: "5" },
      ],
    };
    const all = enqueueForOwner<O>({ group: "apps", kind: "ReplicaSet", onlyController: false });
    expect(keysOf(all, pod("p", owners))).toEqual(["ns/a", "ns/b"]);
    const controllerOnly = enqueueForOwner<O>({ group: "apps", kind: "ReplicaSet" });
    expect(keysOf(controllerOnly, pod("p", owners))).toEqual(["ns/a"]);
  });

  it("enqueueForOwner refuses an owner without a kind or group", () => {
    expect(() => enqueueForOwner({ group: "apps", kind: "" })).toThrow(TypeError);
    expect(() =>
      enqueueForOwner({ kind: "X" } as unknown as { group: string; kind: string }),
    ).toThrow(TypeError);
  });

  it("owner mapping on update enqueues both the old and the new owner", () => {
    const { h, keys } = setup(enqueueForOwner({ group: "apps", kind: "ReplicaSet" }));
    void h.onUpdate?.(pod("p", ownedBy("old")), pod("p", ownedBy("new")));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/p", pod("p", ownedBy("last"))));
    expect(keys).toEqual(["ns/old", "ns/new", "ns/last"]);
  });
});
