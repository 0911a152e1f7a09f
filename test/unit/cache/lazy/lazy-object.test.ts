import { describe, expect, it } from "vitest";
import {
  bodyOf,
  createIndexer,
  DeletedFinalStateUnknown,
  isLazyObject,
  stripManagedFields,
  withBodies,
  type LazyObject,
} from "kubekit";
import {
  freezeCached,
  LazyJsonObject,
} from "../../../../packages/kubekit/src/cache/lazy/lazy-json-object.js";
import { toLazyObject } from "../../../support/informer-mode.js";

interface Pod {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    managedFields?: unknown[];
  };
  spec: { nodeName: string };
}

function pod(name: string, extra: Partial<Pod["metadata"]> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ns", resourceVersion: "7", ...extra },
    spec: { nodeName: "n1" },
  };
}

describe("LazyJsonObject", () => {
  it("reads as its metadata until the body is read, then parses it once and drops the bytes", () => {
    const lazy = toLazyObject(pod("a", { labels: { app: "web" } })) as LazyJsonObject<Pod>;
    expect(lazy.parsed).toBe(false);
    expect(lazy.byteLength).toBeGreaterThan(0);
    expect({ apiVersion: lazy.apiVersion, kind: lazy.kind, metadata: lazy.metadata }).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a", namespace: "ns", resourceVersion: "7", labels: { app: "web" } },
    });
    const body = lazy.object();
    expect(body).toEqual(pod("a", { labels: { app: "web" } }));
    expect(lazy.parsed).toBe(true);
    expect(lazy.byteLength).toBe(0);
    expect(lazy.object()).toBe(body);
  });

  it("keeps absent type fields absent", () => {
    const bytes = Buffer.from('{"metadata":{"name":"x"}}');
    const lazy = LazyJsonObject.fromBytes({ metadata: { name: "x" } }, bytes);
    expect(Object.keys(lazy)).toEqual(["metadata"]);
  });

  it("throws a LazyBodyParseError naming the object for bytes that are not JSON, each time", () => {
    const meta = { namespace: "ns", name: "x" };
    const lazy = LazyJsonObject.fromBytes({ kind: "Pod", metadata: meta }, Buffer.from("{nope"));
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(() => lazy.object()).toThrow(
        expect.objectContaining({
          name: "LazyBodyParseError",
          objectKey: "ns/x",
          message: expect.stringContaining('Pod "ns/x"') as unknown,
          cause: expect.any(SyntaxError) as unknown,
        }),
      );
    }
    expect(lazy.parsed).toBe(false);
  });

  it("applies body transforms when the body is parsed, in order, or at once when it is", () => {
    const order: string[] = [];
    const lazy = toLazyObject(pod("a")) as LazyJsonObject<Pod>;
    const tag = (name: string) => (p: Pod) => {
      order.push(name);
      return { ...p, spec: { nodeName: `${p.spec.nodeName}+${name}` } };
    };
    const twice = LazyJsonObject.withBodyTransform(
      LazyJsonObject.withBodyTransform(lazy, tag("x")),
      tag("y"),
    );
    expect(order).toEqual([]);
    expect(twice.object().spec.nodeName).toBe("n1+x+y");
    const parsed = LazyJsonObject.withBodyTransform(twice, tag("z"));
    expect(order).toEqual(["x", "y", "z"]);
    expect(parsed.object().spec.nodeName).toBe("n1+x+y+z");
    expect(lazy.parsed).toBe(false);
  });
});

describe("stripManagedFields on a lazy object", () => {
  it("strips the body when it is parsed, leaving the metadata and the original alone", () => {
    const lazy = toLazyObject(pod("a", { managedFields: [{ manager: "kubectl" }] }));
    const stripped = stripManagedFields(lazy);
    expect(stripped).not.toBe(lazy);
    expect(stripped.parsed).toBe(false);
    expect(stripped.metadata).toBe(lazy.metadata);
    expect(stripped.object().metadata).not.toHaveProperty("managedFields");
    expect(lazy.object().metadata.managedFields).toEqual([{ manager: "kubectl" }]);
  });
});

describe("freezeCached (the mutation detector)", () => {
  it("freezes a lazy object's metadata at once and its body when parsed", () => {
    const lazy = freezeCached(toLazyObject(pod("a", { labels: { app: "web" } })));
    expect(() => {
      (lazy.metadata.labels as Record<string, string>)["app"] = "db";
    }).toThrow(TypeError);
    const body = lazy.object();
    expect(Object.isFrozen(body.spec)).toBe(true);
    expect(() => {
      body.spec.nodeName = "n2";
    }).toThrow(TypeError);
  });

  it("freezes an already parsed lazy object's body, and plain objects deeply", () => {
    const lazy = toLazyObject(pod("a"));
    const body = lazy.object();
    freezeCached(lazy);
    expect(Object.isFrozen(body.metadata)).toBe(true);
    const plain = freezeCached(pod("b"));
    expect(Object.isFrozen(plain.spec)).toBe(true);
  });
});

describe("isLazyObject and bodyOf", () => {
  it("tells lazy objects from wire objects and tombstones, and reads the body of either", () => {
    const plain = pod("a");
    const lazy: LazyObject<Pod> = toLazyObject(plain);
    expect(isLazyObject(lazy)).toBe(true);
    expect(isLazyObject(plain)).toBe(false);
    expect(isLazyObject(new DeletedFinalStateUnknown("ns/a", lazy))).toBe(false);
    expect(isLazyObject({ object: {}, parsed: false, metadata: {} })).toBe(false);
    expect(isLazyObject(null)).toBe(false);
    expect(bodyOf(plain)).toBe(plain);
    expect(bodyOf(lazy)).toEqual(plain);
    expect(bodyOf(lazy)).toBe(lazy.object());
  });
});

describe("withBodies of an indexer", () => {
  it("hands out bodies, parsing only what is read; keys and indices are the lazy cache's", () => {
    const lazyCache = createIndexer<LazyObject<Pod>>();
    const a = toLazyObject(pod("a", { labels: { app: "web" } }));
    const b = toLazyObject(pod("b"));
    lazyCache.add(a);
    lazyCache.add(b);
    const cache = withBodies(lazyCache);
    expect(cache.listKeys().sort()).toEqual(["ns/a", "ns/b"]);
    expect(cache.indexKeys("namespace", "ns").sort()).toEqual(["ns/a", "ns/b"]);
    expect(a.parsed || b.parsed).toBe(false);
    expect(cache.getByKey("ns/a")?.metadata.labels).toEqual({ app: "web" });
    expect(a.parsed).toBe(true);
    expect(b.parsed).toBe(false);
    expect(cache.get(pod("a"))).toBe(a.object());
    expect(cache.keyOf(new DeletedFinalStateUnknown<Pod>("ns/z", undefined))).toBe("ns/z");
    cache.addIndexers({ node: (p) => [p.spec.nodeName] });
    expect(cache.byIndex("node", "n1")).toHaveLength(2);
    cache.delete(pod("b"));
    expect(lazyCache.listKeys()).toEqual(["ns/a"]);
  });
});
