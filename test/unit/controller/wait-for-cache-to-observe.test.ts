import { afterEach, describe, expect, it } from "vitest";
import { resourceVersionObserved, waitForCacheToObserve } from "kubekit";
import { obj, track } from "../cache/fixtures.js";
import {
  settle,
  setupInformer,
  stopInformers,
  waitUntil,
} from "../cache/shared-index-informer-harness.js";

afterEach(stopInformers);

describe("resourceVersionObserved", () => {
  it("compares decimal integers numerically and anything else by equality", () => {
    expect(resourceVersionObserved("10", "9")).toBe(true);
    expect(resourceVersionObserved("10", "10")).toBe(true);
    expect(resourceVersionObserved("9", "10")).toBe(false);
    expect(resourceVersionObserved("18446744073709551616", "18446744073709551615")).toBe(true);
    expect(resourceVersionObserved("b", "a")).toBe(false);
    expect(resourceVersionObserved("abc", "abc")).toBe(true);
    expect(resourceVersionObserved("10", "9a")).toBe(false);
    expect(resourceVersionObserved("", "1")).toBe(false);
  });
});

describe("waitForCacheToObserve", () => {
  it("resolves true once the cache has processed the write's resourceVersion", async () => {
    const { informer, lw, run } = setupInformer([obj("ns/a")]);
    void run();
    await waitUntil(() => informer.hasSynced(), "sync");
    const stop = new AbortController();
    const written = lw.update(obj("ns/a", "x", { node: "n1" }));
    const rv = written.metadata.resourceVersion as string;
    const waited = waitForCacheToObserve(informer, rv, stop.signal);
    expect(await waited).toBe(true);
    expect(informer.indexer.getByKey("ns/a")?.spec).toEqual({ node: "n1" });
    // Already observed: at once.
    expect(await waitForCacheToObserve(informer, "1", stop.signal)).toBe(true);
  });

  it("resolves false when the signal aborts first, and rejects an empty resourceVersion", async () => {
    const { informer, run } = setupInformer([obj("ns/a")]);
    void run();
    await waitUntil(() => informer.hasSynced(), "sync");
    const stop = new AbortController();
    const waited = waitForCacheToObserve(informer, "999999", stop.signal);
    const state = track(waited);
    await settle();
    expect(state.settled).toBe(false);
    stop.abort();
    expect(await waited).toBe(false);
    await expect(waitForCacheToObserve(informer, "", stop.signal)).rejects.toThrow(TypeError);
  });
});
