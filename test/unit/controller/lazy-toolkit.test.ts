import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  DeletedFinalStateUnknown,
  InformerCache,
  and,
  annotationsChanged,
  enqueueForObject,
  enqueueForOwner,
  enqueueFromMap,
  generationChanged,
  hasFinalizer,
  isBeingDeleted,
  labelSelectorPredicate,
  labelsChanged,
  lazyKind,
  not,
  or,
  resourceVersionChanged,
  setControllerReference,
  type EventHandler,
  type LazyObject,
  type LazyObjectMeta,
  type Predicate,
} from "kubekit";
import { resolveKind } from "../../../packages/kubekit/src/controller/client/kind-reference.js";
import { informerEventHandler } from "../../../packages/kubekit/src/controller/source/informer-event-handler.js";

/** A lazy object whose body is a plain object, counting how often it is read. */
class CountingLazy<T> implements LazyObject<T> {
  readonly apiVersion = "v1";
  readonly kind = "Pod";
  reads = 0;

  constructor(
    readonly metadata: LazyObjectMeta,
    readonly body: T,
  ) {}

  object(): T {
    this.reads += 1;
    return this.body;
  }

  get parsed(): boolean {
    return this.reads > 0;
  }
}

function lazyPod(metadata: LazyObjectMeta): CountingLazy<Pod> {
  return new CountingLazy<Pod>(metadata, { metadata: { ...metadata } as Pod["metadata"] });
}

/** Delivers one of each notification through the kind source's handler; returns the keys. */
function deliver<T>(
  objects: { readonly old: T; readonly next: T },
  handler: EventHandler<T>,
  predicates: readonly Predicate<T>[],
): string[] {
  const keys: string[] = [];
  const errors: unknown[] = [];
  const informerHandler = informerEventHandler(
    handler,
    predicates,
    { add: (key) => keys.push(key) },
    (error) => errors.push(error),
  );
  informerHandler.onAdd?.(objects.old, false);
  informerHandler.onUpdate?.(objects.old, objects.next);
  informerHandler.onDelete?.(objects.next);
  informerHandler.onDelete?.(new DeletedFinalStateUnknown("ns/p", objects.next));
  informerHandler.onDelete?.(new DeletedFinalStateUnknown<T>("ns/gone", undefined));
  expect(errors).toEqual([]);
  return keys;
}

/**
 * The controller toolkit over a lazy informer's objects (issue 24 §2): the built-in handlers
 * and predicates read metadata only, so delivering notifications parses no body; kinds named
 * with `lazyKind` share one lazy informer per resource in the Manager's cache, which also
 * serves reads of the kind's plain name.
 */
describe("the controller toolkit over LazyObjects", () => {
  const owner = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    name: "rs",
    uid: "u1",
    controller: true,
  };
  const old = lazyPod({
    namespace: "ns",
    name: "p",
    resourceVersion: "1",
    generation: 1,
    labels: { app: "web" },
    annotations: { a: "1" },
    ownerReferences: [owner],
  });
  const next = lazyPod({
    namespace: "ns",
    name: "p",
    resourceVersion: "2",
    generation: 2,
    labels: { app: "web", tier: "front" },
    annotations: { a: "2" },
    ownerReferences: [owner],
  });

  it("enqueues objects, owners and mapped keys without parsing a body", () => {
    expect(deliver({ old, next }, enqueueForObject(), [])).toEqual([
      "ns/p",
      "ns/p",
      "ns/p",
      "ns/p",
      "ns/gone",
    ]);
    expect(
      deliver({ old, next }, enqueueForOwner({ group: "apps", kind: "ReplicaSet" }), []),
    ).toEqual(["ns/rs", "ns/rs", "ns/rs", "ns/rs"]);
    expect(
      deliver(
        { old, next },
        enqueueFromMap((obj: LazyObject<Pod>) => [`ns/${obj.metadata.labels?.["app"] ?? ""}`]),
        [],
      ),
    ).toEqual(["ns/web", "ns/web", "ns/web", "ns/web"]);
    expect(old.reads + next.reads).toBe(0);
  });

  it("filters on metadata with every built-in predicate, parsing nothing", () => {
    const handler = enqueueForObject<LazyObject<Pod>>();
    // Updates pass the change predicates (each field changed); creations and deletions pass.
    for (const predicate of [
      generationChanged,
      resourceVersionChanged,
      labelsChanged,
      annotationsChanged,
    ]) {
      expect(deliver({ old, next }, handler, [predicate])).toHaveLength(5);
      expect(deliver({ old, next: old }, handler, [predicate])).toHaveLength(4);
    }
    expect(deliver({ old, next }, handler, [labelSelectorPredicate("tier=front")])).toEqual([
      "ns/p",
      "ns/p",
      "ns/p",
      "ns/gone",
    ]);
    const combined = and(or(generationChanged, labelsChanged), not(labelSelectorPredicate("x=y")));
    expect(deliver({ old, next }, handler, [combined])).toHaveLength(5);
    expect(old.reads + next.reads).toBe(0);
  });

  it("reads owners, finalizers and deletion from a lazy object's metadata, parsing nothing", () => {
    const rs = new CountingLazy<object>(
      {
        namespace: "ns",
        name: "rs",
        uid: "u9",
        finalizers: ["example.com/cleanup"],
        deletionTimestamp: "2026-01-01T00:00:00Z",
      },
      {},
    );
    expect(hasFinalizer(rs, "example.com/cleanup")).toBe(true);
    expect(isBeingDeleted(rs)).toBe(true);
    expect(isBeingDeleted(old)).toBe(false);
    const cm: ConfigMap = { metadata: { name: "c", namespace: "ns" } };
    setControllerReference(rs, cm, { apiVersion: "apps/v1", kind: "ReplicaSet" });
    expect(cm.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ name: "rs", uid: "u9", controller: true }),
    ]);
    expect(rs.reads).toBe(0);
  });

  it("resolves lazy kinds to one informer per resource, also serving reads of the plain name", () => {
    const accessor = lazyKind((i) => i.coreV1.pods());
    const resource = lazyKind<Pod>({ group: "", version: "v1", resource: "pods" });
    expect(resolveKind(accessor)).toMatchObject({
      resource: "pods",
      kind: "Pod",
      namespaced: true,
      typed: true,
      lazy: true,
      key: "lazy:/v1/pods",
    });
    expect(resolveKind(resource)).toMatchObject({ typed: false, lazy: true, key: "lazy:/v1/pods" });
    expect(resolveKind((i) => i.coreV1.pods())).toMatchObject({ lazy: false });

    const cache = new InformerCache(() => {
      throw new Error("no API server in unit tests");
    });
    const plain = resolveKind((i) => i.coreV1.pods());
    expect(cache.has(plain)).toBe(false);
    const lazyInformer = cache.informer(accessor);
    expect(cache.informer(resource)).toBe(lazyInformer);
    // The plain name reads from the lazy informer while it is the only one of the resource…
    expect(cache.has(plain)).toBe(true);
    expect(cache.reader(plain)).toBe(lazyInformer);
    // …and from its own once it exists; the lazy name keeps its lazy informer.
    const eager = cache.informer((i) => i.coreV1.pods());
    expect(eager).not.toBe(lazyInformer);
    expect(cache.reader(plain)).toBe(eager);
    expect(cache.reader(resolveKind(accessor))).toBe(lazyInformer);
  });
});
