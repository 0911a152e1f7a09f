import { describe, expect, it } from "vitest";
import {
  ObjectKeyError,
  createIndexer,
  createStore,
  type CacheIndexer,
  IndexerError,
  NAMESPACE_INDEX,
  namespaceIndexFunc,
  type IndexFunc,
  DeletedFinalStateUnknown,
} from "kubekit";
import { obj, show } from "./fixtures.js";
import type { Obj } from "./fixtures.js";

function indexerError(fn: () => unknown): IndexerError {
  try {
    fn();
  } catch (e) {
    if (e instanceof IndexerError) return e;
    throw e;
  }
  throw new Error("expected an IndexerError");
}

const byNode: IndexFunc<Obj> = (o) => (o.spec?.node === undefined ? [] : [o.spec.node]);
const byTag: IndexFunc<Obj> = (o) => o.spec?.tags ?? [];

function names(list: readonly Obj[]): string[] {
  return list.map(show).sort();
}

describe("CacheIndexer as a Store", () => {
  it("keys objects as ns/name or name and supports add/update/delete/get/getByKey", () => {
    const store = createIndexer<Obj>();
    const a = obj("ns/a");
    const n = obj("node-1");
    store.add(a);
    store.add(n);
    expect(store.getByKey("ns/a")).toBe(a);
    expect(store.getByKey("node-1")).toBe(n);
    expect(store.get(obj("ns/a", "99"))).toBe(a);
    expect(store.keyOf(a)).toBe("ns/a");

    const a2 = obj("ns/a", "2");
    store.update(a2);
    expect(store.getByKey("ns/a")).toBe(a2);
    expect(store.listKeys().sort()).toEqual(["node-1", "ns/a"]);

    store.delete(a2);
    expect(store.getByKey("ns/a")).toBeUndefined();
    expect(store.get(a)).toBeUndefined();
    expect(store.listKeys()).toEqual(["node-1"]);
  });

  it("deletes by a tombstone's key and ignores deletes of absent keys", () => {
    const store = createIndexer<Obj>();
    store.add(obj("ns/a"));
    store.delete(new DeletedFinalStateUnknown<Obj>("ns/a", undefined));
    expect(store.listKeys()).toEqual([]);
    expect(() => store.delete(obj("ns/missing"))).not.toThrow();
    expect(store.get(new DeletedFinalStateUnknown("ns/missing", obj("ns/x")))).toBeUndefined();
  });

  it("list returns the stored objects themselves in a fresh array", () => {
    const store = createIndexer<Obj>();
    const a = obj("ns/a");
    store.add(a);
    const first = store.list();
    expect(first).toHaveLength(1);
    expect(first[0]).toBe(a);
    first.pop();
    expect(store.list()).toHaveLength(1);
    expect(store.list()).not.toBe(store.list());
  });

  it("propagates key errors and stores nothing", () => {
    const store = createIndexer<Obj>();
    expect(() => store.add({ metadata: {} })).toThrow(ObjectKeyError);
    expect(store.listKeys()).toEqual([]);
    expect(store.listIndexFuncValues(NAMESPACE_INDEX)).toEqual([]);
  });

  it("replace swaps the whole content, keeps the last duplicate and records the resourceVersion", () => {
    const store = createIndexer<Obj>();
    expect(store.lastSyncResourceVersion).toBe("");
    store.add(obj("ns/old"));
    const b2 = obj("ns/b", "2");
    store.replace([obj("ns/a"), obj("ns/b", "1"), b2], "100");
    expect(store.listKeys().sort()).toEqual(["ns/a", "ns/b"]);
    expect(store.getByKey("ns/b")).toBe(b2);
    expect(store.getByKey("ns/old")).toBeUndefined();
    expect(store.lastSyncResourceVersion).toBe("100");
  });

  it("lastSyncResourceVersion follows every write carrying an object, as client-go's store", () => {
    const store = createIndexer<Obj>();
    store.replace([], "5");
    store.add(obj("ns/a", "9"));
    expect(store.lastSyncResourceVersion).toBe("9");
    store.update(obj("ns/a", "10"));
    expect(store.lastSyncResourceVersion).toBe("10");
    store.delete(obj("ns/a", "11"));
    expect(store.lastSyncResourceVersion).toBe("11");
    store.delete(new DeletedFinalStateUnknown("ns/b", obj("ns/b", "3")));
    expect(store.lastSyncResourceVersion).toBe("11");
    store.add({ metadata: { namespace: "ns", name: "c" } });
    expect(store.lastSyncResourceVersion).toBe("11");
    store.bookmark("12");
    expect(store.lastSyncResourceVersion).toBe("12");
    expect(store.listKeys()).toEqual(["ns/c"]);
  });

  it("resync is a no-op", () => {
    const store = createIndexer<Obj>();
    store.add(obj("ns/a"));
    store.resync();
    expect(store.listKeys()).toEqual(["ns/a"]);
  });

  it("supports a custom key function for objects without metadata", () => {
    interface Row {
      readonly id: number;
      readonly group: string;
    }
    const store = createIndexer<Row>({
      keyFunc: (r) => `row-${r.id}`,
      indexers: { group: (r) => [r.group] },
    });
    store.add({ id: 1, group: "x" });
    store.add({ id: 2, group: "x" });
    expect(store.getByKey("row-1")).toEqual({ id: 1, group: "x" });
    expect(store.indexKeys("group", "x").sort()).toEqual(["row-1", "row-2"]);
    store.delete(new DeletedFinalStateUnknown<Row>("row-1", undefined));
    expect(store.indexKeys("group", "x")).toEqual(["row-2"]);
  });

  it("createStore builds a store without indices", () => {
    const store = createStore<Obj>();
    store.add(obj("ns/a"));
    expect(store.getByKey("ns/a")).toBeDefined();
    expect((store as CacheIndexer<Obj>).getIndexers()).toEqual({});
    const keyed = createStore<{ id: string }>({ keyFunc: (o) => o.id });
    keyed.add({ id: "k" });
    expect(keyed.listKeys()).toEqual(["k"]);
  });
});

describe("CacheIndexer indices", () => {
  it("has the namespace index by default, cluster-scoped objects under the empty value", () => {
    const store = createIndexer<Obj>();
    expect(Object.keys(store.getIndexers())).toEqual([NAMESPACE_INDEX]);
    expect(store.getIndexers()[NAMESPACE_INDEX]).toBe(namespaceIndexFunc);
    store.add(obj("ns1/a"));
    store.add(obj("ns1/b"));
    store.add(obj("ns2/c"));
    store.add(obj("node-1"));
    expect(names(store.byIndex(NAMESPACE_INDEX, "ns1"))).toEqual(["ns1/a@1", "ns1/b@1"]);
    expect(store.indexKeys(NAMESPACE_INDEX, "")).toEqual(["node-1"]);
    expect(store.listIndexFuncValues(NAMESPACE_INDEX).sort()).toEqual(["", "ns1", "ns2"]);
    expect(store.byIndex(NAMESPACE_INDEX, "nope")).toEqual([]);
    expect(store.indexKeys(NAMESPACE_INDEX, "nope")).toEqual([]);
  });

  it("explicit indexers replace the default; {} gives none", () => {
    const custom = createIndexer<Obj>({ indexers: { node: byNode } });
    expect(Object.keys(custom.getIndexers())).toEqual(["node"]);
    expect(() => custom.byIndex(NAMESPACE_INDEX, "ns")).toThrow(IndexerError);
    const none = createIndexer<Obj>({ indexers: {} });
    expect(none.getIndexers()).toEqual({});
  });

  it("getIndexers returns a copy", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    const copy = store.getIndexers() as Record<string, IndexFunc<Obj>>;
    copy["extra"] = byTag;
    expect(Object.keys(store.getIndexers())).toEqual(["node"]);
  });

  it("multi-valued indices file an object under every value, duplicates included once", () => {
    const store = createIndexer<Obj>({ indexers: { tag: byTag } });
    store.add(obj("ns/a", "1", { tags: ["x", "y", "x"] }));
    store.add(obj("ns/b", "1", { tags: ["y"] }));
    store.add(obj("ns/c", "1", { tags: [] }));
    expect(store.indexKeys("tag", "x")).toEqual(["ns/a"]);
    expect(store.indexKeys("tag", "y").sort()).toEqual(["ns/a", "ns/b"]);
    expect(store.listIndexFuncValues("tag").sort()).toEqual(["x", "y"]);
  });

  it("index(name, obj) returns each object sharing a value with obj once", () => {
    const store = createIndexer<Obj>({ indexers: { tag: byTag } });
    store.add(obj("ns/a", "1", { tags: ["x", "y"] }));
    store.add(obj("ns/b", "1", { tags: ["y", "z"] }));
    store.add(obj("ns/c", "1", { tags: ["w"] }));
    // Not cached itself; intersects a (x, y) and b (y).
    const probe = obj("ns/probe", "1", { tags: ["x", "y"] });
    expect(names(store.index("tag", probe))).toEqual(["ns/a@1", "ns/b@1"]);
    expect(names(store.index("tag", obj("ns/q", "1", { tags: ["z"] })))).toEqual(["ns/b@1"]);
    expect(store.index("tag", obj("ns/q", "1", { tags: ["none"] }))).toEqual([]);
    expect(store.index("tag", obj("ns/q"))).toEqual([]);
  });

  it("update moves the key from old values to new ones and deletes emptied value sets", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode, tag: byTag } });
    store.add(obj("ns/a", "1", { node: "n1", tags: ["x", "y"] }));
    store.add(obj("ns/b", "1", { node: "n1", tags: ["y"] }));
    store.update(obj("ns/a", "2", { node: "n2", tags: ["y", "z"] }));
    expect(store.indexKeys("node", "n1")).toEqual(["ns/b"]);
    expect(store.indexKeys("node", "n2")).toEqual(["ns/a"]);
    expect(store.indexKeys("tag", "x")).toEqual([]);
    expect(store.indexKeys("tag", "y").sort()).toEqual(["ns/a", "ns/b"]);
    expect(store.indexKeys("tag", "z")).toEqual(["ns/a"]);
    expect(store.listIndexFuncValues("node").sort()).toEqual(["n1", "n2"]);
    expect(store.listIndexFuncValues("tag").sort()).toEqual(["y", "z"]);
    expect(names(store.byIndex("node", "n2"))).toEqual(["ns/a@2"]);

    // Dropping every value removes the key from the index entirely.
    store.update(obj("ns/a", "3"));
    expect(store.listIndexFuncValues("node")).toEqual(["n1"]);
    expect(store.listIndexFuncValues("tag")).toEqual(["y"]);
  });

  it("an unchanged value keeps the entry and serves the updated object", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    store.add(obj("ns/a", "1", { node: "n1" }));
    const a2 = obj("ns/a", "2", { node: "n1" });
    store.update(a2);
    expect(store.byIndex("node", "n1")).toEqual([a2]);
    expect(store.byIndex("node", "n1")[0]).toBe(a2);
  });

  it("upsert writes like add and returns the object it replaced, or undefined for a new key", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    const a1 = obj("ns/a", "1", { node: "n1" });
    const a2 = obj("ns/a", "2", { node: "n2" });
    expect(store.upsert(a1)).toBeUndefined();
    expect(store.upsert(a2)).toBe(a1);
    expect(store.getByKey("ns/a")).toBe(a2);
    expect(store.indexKeys("node", "n1")).toEqual([]);
    expect(store.indexKeys("node", "n2")).toEqual(["ns/a"]);
    expect(store.lastSyncResourceVersion).toBe("2");
  });

  it("delete removes the key from every index and drops empty value sets", () => {
    const store = createIndexer<Obj>({
      indexers: { [NAMESPACE_INDEX]: namespaceIndexFunc, tag: byTag },
    });
    store.add(obj("ns1/a", "1", { tags: ["x"] }));
    store.add(obj("ns1/b", "1", { tags: ["x", "y"] }));
    store.delete(obj("ns1/b"));
    expect(store.indexKeys("tag", "x")).toEqual(["ns1/a"]);
    expect(store.listIndexFuncValues("tag")).toEqual(["x"]);
    store.delete(new DeletedFinalStateUnknown<Obj>("ns1/a", undefined));
    expect(store.listIndexFuncValues("tag")).toEqual([]);
    expect(store.listIndexFuncValues(NAMESPACE_INDEX)).toEqual([]);
  });

  it("calls each index function once per write, on the new object only", () => {
    const calls: string[] = [];
    const store = createIndexer<Obj>({
      indexers: {
        node: (o) => {
          calls.push(show(o));
          return byNode(o);
        },
      },
    });
    store.add(obj("ns/a", "1", { node: "n1" }));
    store.update(obj("ns/a", "2", { node: "n2" }));
    store.delete(obj("ns/a", "3"));
    expect(calls).toEqual(["ns/a@1", "ns/a@2"]);
  });

  it("is not corrupted when a cached object is mutated in place before being replaced", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    const spec = { node: "n1" };
    store.add({ metadata: { namespace: "ns", name: "a" }, spec });
    spec.node = "n-mutated";
    store.update(obj("ns/a", "2", { node: "n2" }));
    expect(store.listIndexFuncValues("node")).toEqual(["n2"]);
  });

  it("replace rebuilds every index from scratch", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    store.add(obj("ns/a", "1", { node: "n1" }));
    store.add(obj("ns/b", "1", { node: "n1" }));
    store.replace([obj("ns/b", "2", { node: "n2" }), obj("ns/c", "1", { node: "n3" })], "7");
    expect(store.listIndexFuncValues("node").sort()).toEqual(["n2", "n3"]);
    expect(store.indexKeys("node", "n1")).toEqual([]);
    expect(store.indexKeys("node", "n2")).toEqual(["ns/b"]);
    store.replace([], "8");
    expect(store.listIndexFuncValues("node")).toEqual([]);
  });

  it("rejects every query on an unknown index with a typed error", () => {
    const store = createIndexer<Obj>();
    for (const fn of [
      () => store.byIndex("nope", "x"),
      () => store.indexKeys("nope", "x"),
      () => store.listIndexFuncValues("nope"),
      () => store.index("nope", obj("ns/a")),
    ]) {
      const err = indexerError(fn);
      expect(err.reason).toBe("UnknownIndex");
      expect(err.indexNames).toEqual(["nope"]);
      expect(err.message).toContain('"nope"');
    }
  });
});

describe("CacheIndexer.addIndexers", () => {
  it("back-fills the new index from the objects already cached and maintains it afterwards", () => {
    const store = createIndexer<Obj>();
    store.add(obj("ns/a", "1", { node: "n1" }));
    store.add(obj("ns/b", "1", { node: "n2" }));
    store.addIndexers({ node: byNode });
    expect(Object.keys(store.getIndexers())).toEqual([NAMESPACE_INDEX, "node"]);
    expect(store.indexKeys("node", "n1")).toEqual(["ns/a"]);
    store.update(obj("ns/a", "2", { node: "n2" }));
    expect(store.indexKeys("node", "n2").sort()).toEqual(["ns/a", "ns/b"]);
    expect(store.listIndexFuncValues("node")).toEqual(["n2"]);
    store.delete(obj("ns/b"));
    expect(store.indexKeys("node", "n2")).toEqual(["ns/a"]);
    // The original index is still maintained too.
    expect(store.indexKeys(NAMESPACE_INDEX, "ns")).toEqual(["ns/a"]);
  });

  it("rejects name conflicts with a typed error and adds none of the indexers", () => {
    const store = createIndexer<Obj>({ indexers: { node: byNode } });
    const err = indexerError(() => store.addIndexers({ tag: byTag, node: byNode }));
    expect(err.reason).toBe("IndexerConflict");
    expect(err.indexNames).toEqual(["node"]);
    expect(Object.keys(store.getIndexers())).toEqual(["node"]);
  });

  it("leaves everything unchanged when an index function throws during back-fill", () => {
    const store = createIndexer<Obj>();
    store.add(obj("ns/a", "1", { tags: ["x"] }));
    store.add(obj("ns/bad"));
    const strict: IndexFunc<Obj> = (o) => {
      if (o.spec === undefined) throw new Error("no spec");
      return o.spec.tags ?? [];
    };
    const err = indexerError(() => store.addIndexers({ tag: byTag, strict }));
    expect(err.reason).toBe("IndexFuncFailed");
    expect(err.indexNames).toEqual(["strict"]);
    expect(err.key).toBe("ns/bad");
    expect(Object.keys(store.getIndexers())).toEqual([NAMESPACE_INDEX]);
    expect(() => store.indexKeys("tag", "x")).toThrow(IndexerError);
    // A later, valid addIndexers of the same name works.
    store.addIndexers({ tag: byTag });
    expect(store.indexKeys("tag", "x")).toEqual(["ns/a"]);
    store.add(obj("ns/c", "1", { tags: ["x"] }));
    expect(store.indexKeys("tag", "x").sort()).toEqual(["ns/a", "ns/c"]);
  });

  it("adding nothing is a no-op", () => {
    const store = createIndexer<Obj>();
    store.add(obj("ns/a"));
    store.addIndexers({});
    expect(Object.keys(store.getIndexers())).toEqual([NAMESPACE_INDEX]);
    expect(store.listKeys()).toEqual(["ns/a"]);
  });
});

describe("CacheIndexer index function failures", () => {
  const picky: IndexFunc<Obj> = (o) => {
    if (o.spec?.node === "boom") throw new Error("cannot index boom");
    return byNode(o);
  };

  it("a failing add names the index and key, keeps the cause, and stores nothing", () => {
    const store = createIndexer<Obj>({ indexers: { node: picky } });
    const err = indexerError(() => store.add(obj("ns/a", "1", { node: "boom" })));
    expect(err.reason).toBe("IndexFuncFailed");
    expect(err.indexNames).toEqual(["node"]);
    expect(err.key).toBe("ns/a");
    expect(err.message).toContain('"node"');
    expect(err.message).toContain('"ns/a"');
    expect(err.message).toContain("cannot index boom");
    expect(err.cause).toBeInstanceOf(Error);
    expect(err.name).toBe("IndexerError");
    expect(store.listKeys()).toEqual([]);
  });

  it("a failing update keeps the old object and its index entries", () => {
    const store = createIndexer<Obj>({ indexers: { ns: namespaceIndexFunc, node: picky } });
    const a1 = obj("ns/a", "1", { node: "n1" });
    store.add(a1);
    expect(() => store.update(obj("ns/a", "2", { node: "boom" }))).toThrow(IndexerError);
    expect(store.getByKey("ns/a")).toBe(a1);
    expect(store.indexKeys("node", "n1")).toEqual(["ns/a"]);
    expect(store.indexKeys("ns", "ns")).toEqual(["ns/a"]);
  });

  it("a failing upsert throws before writing: the old object stays and nothing is returned", () => {
    const store = createIndexer<Obj>({ indexers: { node: picky } });
    const a1 = obj("ns/a", "1", { node: "n1" });
    store.add(a1);
    expect(() => store.upsert(obj("ns/a", "2", { node: "boom" }))).toThrow(IndexerError);
    expect(store.getByKey("ns/a")).toBe(a1);
    expect(store.indexKeys("node", "n1")).toEqual(["ns/a"]);
    expect(store.lastSyncResourceVersion).toBe("1");
  });

  it("a failing replace keeps the previous content, indices and resourceVersion", () => {
    const store = createIndexer<Obj>({ indexers: { node: picky } });
    store.replace([obj("ns/a", "1", { node: "n1" })], "1");
    expect(() =>
      store.replace([obj("ns/b", "1", { node: "n2" }), obj("ns/c", "1", { node: "boom" })], "2"),
    ).toThrow(IndexerError);
    expect(store.listKeys()).toEqual(["ns/a"]);
    expect(store.listIndexFuncValues("node")).toEqual(["n1"]);
    expect(store.lastSyncResourceVersion).toBe("1");
  });

  it("a result that is not an array of strings is a typed failure", () => {
    const bad = (() => "n1") as unknown as IndexFunc<Obj>;
    const store = createIndexer<Obj>({ indexers: { bad } });
    const err = indexerError(() => store.add(obj("ns/a")));
    expect(err.reason).toBe("IndexFuncFailed");
    expect(err.key).toBe("ns/a");
    const mixed = (() => ["ok", 3]) as unknown as IndexFunc<Obj>;
    const store2 = createIndexer<Obj>({ indexers: { mixed } });
    expect(() => store2.add(obj("ns/a"))).toThrow(IndexerError);
  });

  it("the namespace index rejects objects without metadata", () => {
    const store = createIndexer<Obj>({ keyFunc: () => "fixed" });
    const err = indexerError(() => store.add({} as Obj));
    expect(err.reason).toBe("IndexFuncFailed");
    expect(err.key).toBe("fixed");
  });

  it("a failing index() query is typed and names the probe's key when it has one", () => {
    const store = createIndexer<Obj>({ indexers: { node: picky } });
    const err = indexerError(() => store.index("node", obj("ns/p", "1", { node: "boom" })));
    expect(err.reason).toBe("IndexFuncFailed");
    expect(err.key).toBe("ns/p");
    const anonymous = indexerError(() =>
      store.index("node", { metadata: {}, spec: { node: "boom" } }),
    );
    expect(anonymous.key).toBeUndefined();
  });
});

describe("CacheIndexer scale", () => {
  it("handles many objects and churn with consistent indices", () => {
    const store = createIndexer<Obj>({
      indexers: { [NAMESPACE_INDEX]: namespaceIndexFunc, node: byNode },
    });
    const n = 20_000;
    for (let i = 0; i < n; i++) store.add(obj(`ns${i % 10}/p${i}`, "1", { node: `n${i % 100}` }));
    for (let i = 0; i < n; i += 2) store.update(obj(`ns${i % 10}/p${i}`, "2", { node: "moved" }));
    for (let i = 1; i < n; i += 4) store.delete(obj(`ns${i % 10}/p${i}`));
    expect(store.indexKeys("node", "moved")).toHaveLength(n / 2);
    const remaining = store.listKeys().length;
    expect(remaining).toBe(n - n / 4);
    const total = store
      .listIndexFuncValues("node")
      .reduce((sum, v) => sum + store.indexKeys("node", v).length, 0);
    expect(total).toBe(remaining);
    // i ≡ 0 (mod 10) is even, so namespace ns0 lost nothing to the deletes.
    expect(store.byIndex(NAMESPACE_INDEX, "ns0")).toHaveLength(n / 10);
  });
});
