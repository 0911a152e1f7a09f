import { describe, expect, it } from "vitest";
import {
  type ObjectWithMetadata,
  DeletedFinalStateUnknown,
  generationChanged,
  objectKey,
} from "kubekit";
import type { EnqueueHandlerOptions } from "../../../../packages/kubekit/src/controller/handler/enqueue-handler.js";
import {
  controllerOwnerKeys,
  enqueueHandler,
} from "../../../../packages/kubekit/src/controller/handler/enqueue-handler.js";
import { CapturingLogger } from "../../cache/shared-index-informer-harness.js";

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

function handler(options: Partial<EnqueueHandlerOptions<O>> = {}) {
  const keys: string[] = [];
  const logger = new CapturingLogger();
  const h = enqueueHandler<O>({
    map: (obj) => [objectKey(obj)],
    mapsToOwnKey: true,
    predicates: [],
    enqueue: (key) => keys.push(key),
    logger,
    context: { controller: "c", informer: "pods" },
    ...options,
  });
  return { h, keys, logger };
}

describe("enqueueHandler", () => {
  it("enqueues the object's key for adds, updates and deletes, and a tombstone's key", () => {
    const { h, keys } = handler();
    void h.onAdd?.(pod("a"), true);
    void h.onUpdate?.(pod("a"), pod("a"));
    void h.onDelete?.(pod("a"));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/b", pod("b")));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/c", undefined));
    expect(keys).toEqual(["ns/a", "ns/a", "ns/a", "ns/b", "ns/c"]);
  });

  it("enqueues only the new object's key on an update, as controller-runtime's EnqueueRequestForObject", () => {
    const { h, keys } = handler();
    void h.onUpdate?.(pod("old-name"), { metadata: { name: "new-name", namespace: "other" } });
    expect(keys).toEqual(["other/new-name"]);
  });

  it("applies every predicate (AND) and tells delete predicates about tombstones", () => {
    const seen: boolean[] = [];
    const { h, keys } = handler({
      predicates: [
        generationChanged,
        {
          delete: (_obj, finalStateUnknown) => {
            seen.push(finalStateUnknown);
            return true;
          },
        },
      ],
    });
    void h.onUpdate?.(pod("same", { generation: 1 }), pod("same", { generation: 1 }));
    void h.onUpdate?.(pod("bumped", { generation: 1 }), pod("bumped", { generation: 2 }));
    void h.onDelete?.(pod("gone"));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/lost", pod("lost")));
    // Without a last known state nothing can be predicated: the key is still enqueued.
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/unknown", undefined));
    expect(keys).toEqual(["ns/bumped", "ns/gone", "ns/lost", "ns/unknown"]);
    expect(seen).toEqual([false, true]);
  });

  it("with a map function: merges the keys of old and new objects; drops a tombstone without state", () => {
    const { h, keys, logger } = handler({
      map: (obj) => (obj.metadata?.labels?.["cm"] ? [`ns/${obj.metadata.labels["cm"]}`] : []),
      mapsToOwnKey: false,
    });
    void h.onUpdate?.(pod("p", { labels: { cm: "x" } }), pod("p", { labels: { cm: "y" } }));
    void h.onUpdate?.(pod("p", { labels: { cm: "y" } }), pod("p", { labels: { cm: "y" } }));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/p", undefined));
    void h.onAdd?.(pod("q"), false);
    expect(keys).toEqual(["ns/x", "ns/y", "ns/y"]);
    expect(logger.entries.map((e) => e.level)).toEqual(["debug"]);
  });

  it("logs and drops a notification whose map function throws", () => {
    const { h, keys, logger } = handler({
      map: () => {
        throw new Error("bad map");
      },
    });
    void h.onAdd?.(pod("a"), false);
    expect(keys).toEqual([]);
    expect(logger.entries[0]).toMatchObject({
      level: "error",
      fields: { controller: "c", informer: "pods" },
    });
  });

  it("controllerOwnerKeys maps to the controller owner of the given group and kind only", () => {
    const rs = { group: "apps", kind: "ReplicaSet" };
    expect(controllerOwnerKeys(pod("p", ownedBy("web")), rs)).toEqual(["ns/web"]);
    expect(controllerOwnerKeys(pod("p", ownedBy("web", "Deployment")), rs)).toEqual([]);
    expect(controllerOwnerKeys(pod("p", ownedBy("web", "ReplicaSet", "v1")), rs)).toEqual([]);
    expect(controllerOwnerKeys(pod("p", ownedBy("web", "ReplicaSet", "a/b/c")), rs)).toEqual([]);
    expect(controllerOwnerKeys(pod("p"), rs)).toEqual([]);
    expect(
      controllerOwnerKeys(pod("p", ownedBy("n1", "Node", "v1")), {
        group: "",
        kind: "Node",
        clusterScoped: true,
      }),
    ).toEqual(["n1"]);
    const clusterScopedChild = { metadata: { name: "pv", ...ownedBy("x", "Owner", "v1") } };
    expect(controllerOwnerKeys(clusterScopedChild, { group: "", kind: "Owner" })).toEqual(["x"]);
  });

  it("owner mapping on update enqueues both the old and the new owner", () => {
    const { h, keys } = handler({
      map: (obj) => controllerOwnerKeys(obj, { group: "apps", kind: "ReplicaSet" }),
      mapsToOwnKey: false,
    });
    void h.onUpdate?.(pod("p", ownedBy("old")), pod("p", ownedBy("new")));
    void h.onDelete?.(new DeletedFinalStateUnknown<O>("ns/p", pod("p", ownedBy("last"))));
    expect(keys).toEqual(["ns/old", "ns/new", "ns/last"]);
  });
});
