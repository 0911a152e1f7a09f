/**
 * The embedded server's storage as bytes: the ordered key set, the cache of parsed objects,
 * ranges at the current and at older revisions (against a model that copies the state), and
 * events whose objects are parsed from their bytes on first access.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { OrderedKeys } from "../../../packages/apiserver/src/storage/ordered-keys.js";
import { ParsedObjectCache } from "../../../packages/apiserver/src/storage/parsed-object-cache.js";
import {
  compareKeys,
  RevisionCompactedError,
  Storage,
} from "../../../packages/apiserver/src/storage/storage.js";

/** A small deterministic PRNG (mulberry32), so that failures replay. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("OrderedKeys", () => {
  it("matches a sorted array through random inserts and deletes across chunk splits", () => {
    const next = random(1);
    const keys = new OrderedKeys();
    const model = new Set<string>();
    for (let i = 0; i < 6000; i++) {
      const key = `ns-${Math.floor(next() * 3)}/k-${Math.floor(next() * 4000)}`;
      if (next() < 0.35) expect(keys.delete(key)).toBe(model.delete(key));
      else if (!model.has(key)) {
        keys.insert(key);
        model.add(key);
      }
    }
    const sorted = [...model].sort(compareKeys);
    expect(keys.size).toBe(sorted.length);
    expect([...keys.between("", false, undefined)]).toEqual(sorted);
    const probe = "ns-1/k-2";
    expect([...keys.between(probe, true, "ns-1/\uffff")]).toEqual(
      sorted.filter((k) => k > probe && k < "ns-1/\uffff"),
    );
    expect(keys.rank(probe, false)).toBe(sorted.filter((k) => k < probe).length);
    expect(keys.rank(sorted[10] as string, true)).toBe(11);
  });

  it("appends increasing keys and empties back to nothing", () => {
    const keys = new OrderedKeys();
    const names = Array.from({ length: 2000 }, (_, i) => `p-${String(i).padStart(5, "0")}`);
    for (const n of names) keys.insert(n);
    expect([...keys.between("p-01000", false, "p-01003")]).toEqual([
      "p-01000",
      "p-01001",
      "p-01002",
    ]);
    for (const n of names) keys.delete(n);
    expect(keys.size).toBe(0);
    expect([...keys.between("", false, undefined)]).toEqual([]);
    expect(keys.delete("p-00001")).toBe(false);
  });
});

describe("ParsedObjectCache", () => {
  it("keeps what is read again within a generation and drops the rest, bounded by bytes", () => {
    const cache = new ParsedObjectCache(200);
    const hot = Buffer.from('{"hot":true}');
    cache.set(hot, { hot: true });
    for (let i = 0; i < 50; i++) {
      const json = Buffer.from(`{"i":${String(i).padStart(3, "0")}}`);
      cache.set(json, { i });
      expect(cache.get(hot)).toEqual({ hot: true });
    }
    const cold = Buffer.from('{"cold":1}');
    cache.set(cold, { cold: 1 });
    for (let i = 0; i < 30; i++) cache.set(Buffer.from(`{"j":${String(i).padStart(3, "0")}}`), {});
    // Two generations without a read: both are gone.
    expect(cache.peek(cold)).toBeUndefined();
    expect(cache.peek(hot)).toBeUndefined();
    cache.set(Buffer.alloc(101), {});
    expect(cache.peek(Buffer.alloc(101))).toBeUndefined();
  });
});

const PODS = "/pods";

function pod(name: string, version: number): JsonObject {
  return { metadata: { name, namespace: name.split("/")[0] ?? "" }, spec: { version } };
}

function names(entries: Iterable<[string, Buffer]>): Array<[string, number]> {
  return [...entries].map(([key, json]) => {
    const obj = JSON.parse(json.toString()) as { spec: { version: number } };
    return [key, obj.spec.version];
  });
}

describe("Storage", () => {
  it("stores objects as JSON bytes stamped with their revision, events parse on first access", () => {
    const storage = new Storage(100);
    const seen: Array<{ type: string; previous: unknown; json: string }> = [];
    storage.subscribe((e) =>
      seen.push({ type: e.type, previous: e.previous, json: e.objectJson.toString() }),
    );
    storage.commit(PODS, "a/x", pod("a/x", 1));
    storage.commit(PODS, "a/x", pod("a/x", 2));
    const deleted = storage.commit(PODS, "a/x", null);
    expect(seen.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(JSON.parse(seen[0]?.json ?? "")).toEqual({
      metadata: { name: "a/x", namespace: "a", resourceVersion: "2" },
      spec: { version: 1 },
    });
    expect(seen[1]?.previous).toEqual(JSON.parse(seen[0]?.json ?? ""));
    expect(deleted.object["metadata"]).toMatchObject({ resourceVersion: "4" });
    const history = [...storage.eventsAfter(1)];
    expect(history.map((e) => e.objectJson.toString())).toEqual(seen.map((e) => e.json));
    expect(history[2]?.previous).toEqual(JSON.parse(seen[1]?.json ?? ""));
    expect(storage.getJson(PODS, "a/x")).toBeUndefined();
  });

  it("ranges at older revisions equal a copy of the state then, counts included", () => {
    const next = random(7);
    const storage = new Storage(10_000);
    const snapshots = new Map<number, Map<string, number>>();
    const state = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const key = `${next() < 0.5 ? "a" : "b"}/p-${Math.floor(next() * 120)}`;
      if (state.has(key) && next() < 0.3) {
        storage.commit(PODS, key, null);
        state.delete(key);
      } else {
        storage.commit(PODS, key, pod(key, i));
        state.set(key, i);
      }
      if (i % 50 === 0 || i === 599) snapshots.set(storage.currentRevision, new Map(state));
    }
    for (const [rv, snapshot] of snapshots) {
      for (const prefix of ["", "a/"]) {
        const expected = [...snapshot]
          .filter(([k]) => k.startsWith(prefix))
          .sort((x, y) => compareKeys(x[0], y[0]));
        const startAfter = expected[5]?.[0];
        const range = storage.rangeJson(PODS, rv, prefix, startAfter);
        expect(names(range.entries)).toEqual(
          startAfter === undefined ? expected : expected.slice(6),
        );
        const probe = expected[20]?.[0] ?? "";
        expect(range.countAfter(probe)).toBe(expected.filter(([k]) => k > probe).length);
      }
    }
  });

  it("refuses a range at a revision older than the history", () => {
    const storage = new Storage(2);
    for (let i = 0; i < 5; i++) storage.commit(PODS, `a/p-${i}`, pod(`a/p-${i}`, i));
    expect(() => storage.rangeJson(PODS, 2, "", undefined)).toThrow(RevisionCompactedError);
  });

  it("gives the same parsed object to repeated reads and never a stale one", () => {
    const storage = new Storage(10);
    storage.commit(PODS, "a/x", pod("a/x", 1));
    const first = storage.get(PODS, "a/x");
    expect(storage.get(PODS, "a/x")).toBe(first);
    storage.commit(PODS, "a/x", pod("a/x", 2));
    expect(storage.get(PODS, "a/x")?.["spec"]).toEqual({ version: 2 });
    expect([...storage.withPrefix(PODS, "a/")].map(([k]) => k)).toEqual(["a/x"]);
  });
});
