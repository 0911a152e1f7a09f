import { describe, expect, it } from "vitest";
import { listWithPager } from "../../../packages/kubekit/src/cache/list-pager.js";
import { DEFAULT_PAGE_SIZE, type ListPage, newInternalError, newResourceExpired } from "kubekit";
import type { ListOptions } from "../../../packages/kubekit/src/rest/index.js";

/** A lister answering from a script of pages (or errors), recording each request. */
function scripted(responses: (ListPage<string> | Error)[]) {
  const requests: ListOptions[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  return {
    requests,
    signals,
    list(options: ListOptions, signal?: AbortSignal): Promise<ListPage<string>> {
      requests.push(options);
      signals.push(signal);
      const next = responses.shift();
      if (next === undefined) return Promise.reject(new Error("unexpected list request"));
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
}

const page = (items: string[], rv: string, token?: string): ListPage<string> => ({
  items,
  metadata: { resourceVersion: rv, ...(token !== undefined ? { continue: token } : {}) },
});

describe("listWithPager", () => {
  it("asks for 500 items by default and returns a single page as is", async () => {
    expect(DEFAULT_PAGE_SIZE).toBe(500);
    const lister = scripted([page(["a", "b"], "10")]);
    const result = await listWithPager(lister, { resourceVersion: "0", labelSelector: "x=y" });
    expect(result).toEqual({ items: ["a", "b"], resourceVersion: "10", paginated: false });
    expect(lister.requests).toEqual([{ resourceVersion: "0", labelSelector: "x=y", limit: 500 }]);
  });

  it("follows continue tokens without resourceVersion(Match), keeping the first page's RV", async () => {
    const lister = scripted([page(["a"], "7", "t1"), page(["b"], "7", "t2"), page(["c"], "9")]);
    const result = await listWithPager(
      lister,
      { resourceVersion: "5", resourceVersionMatch: "NotOlderThan", fieldSelector: "f=g" },
      { pageSize: 1 },
    );
    expect(result).toEqual({ items: ["a", "b", "c"], resourceVersion: "7", paginated: true });
    expect(lister.requests).toEqual([
      {
        resourceVersion: "5",
        resourceVersionMatch: "NotOlderThan",
        fieldSelector: "f=g",
        limit: 1,
      },
      { fieldSelector: "f=g", limit: 1, continue: "t1" },
      { fieldSelector: "f=g", limit: 1, continue: "t2" },
    ]);
  });

  it("treats an empty continue token as the end", async () => {
    const lister = scripted([page(["a"], "3", "")]);
    expect((await listWithPager(lister, {})).paginated).toBe(false);
    expect(lister.requests).toHaveLength(1);
  });

  it("sends no limit with page size 0, and honours an explicit limit in the options", async () => {
    const unpaged = scripted([page([], "4")]);
    await listWithPager(unpaged, { resourceVersion: "4" }, { pageSize: 0 });
    expect(unpaged.requests).toEqual([{ resourceVersion: "4" }]);
    const limited = scripted([page([], "4")]);
    await listWithPager(limited, { limit: 7 }, { pageSize: 3 });
    expect(limited.requests).toEqual([{ limit: 7 }]);
  });

  it("falls back to one unpaginated list at the requested RV when a continue token expires", async () => {
    const lister = scripted([
      page(["a", "b"], "20", "t1"),
      newResourceExpired("The provided continue parameter is too old"),
      page(["a", "b", "c", "d"], "31"),
    ]);
    const result = await listWithPager(
      lister,
      { resourceVersion: "0", labelSelector: "app=web" },
      { pageSize: 2 },
    );
    expect(result).toEqual({ items: ["a", "b", "c", "d"], resourceVersion: "31", paginated: true });
    expect(lister.requests).toEqual([
      { resourceVersion: "0", labelSelector: "app=web", limit: 2 },
      { labelSelector: "app=web", limit: 2, continue: "t1" },
      { resourceVersion: "0", labelSelector: "app=web" },
    ]);
  });

  it("does not fall back for other errors, or for 410 on the first page", async () => {
    const internal = scripted([page(["a"], "1", "t"), newInternalError("boom")]);
    await expect(listWithPager(internal, {}, { pageSize: 1 })).rejects.toThrow("boom");
    expect(internal.requests).toHaveLength(2);

    const first = scripted([newResourceExpired("first page too old")]);
    await expect(listWithPager(first, { resourceVersion: "3" })).rejects.toThrow(
      "first page too old",
    );
    expect(first.requests).toHaveLength(1);
  });

  it("passes the signal to every request", async () => {
    const controller = new AbortController();
    const lister = scripted([page(["a"], "1", "t"), page(["b"], "1")]);
    await listWithPager(lister, {}, { pageSize: 1, signal: controller.signal });
    expect(lister.signals).toEqual([controller.signal, controller.signal]);
  });

  it("reports a missing list RV as '' and rejects an invalid page size", async () => {
    const lister = scripted([{ items: ["a"], metadata: {} }]);
    expect((await listWithPager(lister, {})).resourceVersion).toBe("");
    await expect(listWithPager(scripted([]), {}, { pageSize: -1 })).rejects.toThrow(RangeError);
    await expect(listWithPager(scripted([]), {}, { pageSize: 1.5 })).rejects.toThrow(RangeError);
  });
});
