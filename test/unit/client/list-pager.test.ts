import { describe, expect, it } from "vitest";
import {
  type ListCallOptions,
  type KubeObjectList,
  DEFAULT_PAGE_SIZE,
  listAllPages,
  listPages,
  newBadRequest,
  newResourceExpired,
} from "kubekit";

type Item = { name: string };
type Page = KubeObjectList<Item>;

/**
 * A fake list endpoint over `total` items: pages of `limit`, continue tokens `c<offset>`,
 * resourceVersion "100" for paginated reads; `fail(request, index)` may throw instead.
 */
function endpoint(total: number, fail?: (options: ListCallOptions, index: number) => void) {
  const requests: ListCallOptions[] = [];
  const fetch = async (options: ListCallOptions): Promise<Page> => {
    requests.push(options);
    fail?.(options, requests.length - 1);
    const offset = options.continue !== undefined ? Number(options.continue.slice(1)) : 0;
    const limit = options.limit ?? 0;
    const end = limit > 0 ? Math.min(total, offset + limit) : total;
    const items = Array.from({ length: end - offset }, (_, i) => ({ name: `item-${offset + i}` }));
    return {
      apiVersion: "v1",
      kind: "ItemList",
      metadata: {
        resourceVersion: limit > 0 ? "100" : "200",
        ...(end < total ? { continue: `c${end}` } : {}),
      },
      items,
    };
  };
  return { fetch, requests };
}

describe("listAllPages", () => {
  it("pages with client-go's default page size of 500", async () => {
    const { fetch, requests } = endpoint(1200);
    const result = await listAllPages<Item, Page>(fetch);
    expect(DEFAULT_PAGE_SIZE).toBe(500);
    expect(requests.map((r) => [r.limit, r.continue])).toEqual([
      [500, undefined],
      [500, "c500"],
      [500, "c1000"],
    ]);
    expect(result.items).toHaveLength(1200);
    expect(result.items[1199]).toEqual({ name: "item-1199" });
    expect(result.resourceVersion).toBe("100");
  });

  it("treats limit 0 as the default page size, and keeps selectors on every page", async () => {
    const { fetch, requests } = endpoint(3);
    await listAllPages<Item, Page>(fetch, { limit: 0 });
    expect(requests[0]?.limit).toBe(500);

    const second = endpoint(5);
    await listAllPages<Item, Page>(second.fetch, {
      limit: 2,
      labelSelector: "a=b",
      fieldSelector: "metadata.name!=x",
      timeoutSeconds: 9,
    });
    expect(second.requests).toHaveLength(3);
    for (const request of second.requests) {
      expect(request).toMatchObject({ labelSelector: "a=b", fieldSelector: "metadata.name!=x" });
      expect(request.timeoutSeconds).toBe(9);
    }
  });

  it("sends resourceVersion and its match on the first page only", async () => {
    const { fetch, requests } = endpoint(3);
    await listAllPages<Item, Page>(fetch, {
      limit: 2,
      resourceVersion: "42",
      resourceVersionMatch: "NotOlderThan",
    });
    expect(requests[0]).toMatchObject({
      resourceVersion: "42",
      resourceVersionMatch: "NotOlderThan",
    });
    expect("resourceVersion" in (requests[1] ?? {})).toBe(false);
    expect("resourceVersionMatch" in (requests[1] ?? {})).toBe(false);
    expect(requests[1]?.continue).toBe("c2");
  });

  it("passes the signal to every request", async () => {
    const signal = new AbortController().signal;
    const { fetch, requests } = endpoint(3);
    await listAllPages<Item, Page>(fetch, { limit: 2, signal });
    expect(requests.map((r) => r.signal)).toEqual([signal, signal]);
  });

  it("relists unpaginated at the original resourceVersion when a continue page expires", async () => {
    const { fetch, requests } = endpoint(5, (options, index) => {
      if (index === 1) throw newResourceExpired("The provided continue parameter is too old");
    });
    const observed: number[] = [];
    const result = await listAllPages<Item, Page>(fetch, {
      limit: 2,
      resourceVersion: "0",
      labelSelector: "x",
      onPage: (page) => {
        observed.push(page.items.length);
      },
    });
    expect(requests).toHaveLength(3);
    expect(requests[2]).toEqual({ labelSelector: "x", resourceVersion: "0" });
    expect(observed).toEqual([2, 5]);
    expect(result.items.map((i) => i.name)).toEqual([
      "item-0",
      "item-1",
      "item-2",
      "item-3",
      "item-4",
    ]);
    expect(result.resourceVersion).toBe("200");
  });

  it("does not fall back when the first page expires, or for other errors", async () => {
    const expired = endpoint(5, () => {
      throw newResourceExpired("too old resource version");
    });
    await expect(listAllPages<Item, Page>(expired.fetch, { limit: 2 })).rejects.toThrow(
      "too old resource version",
    );
    expect(expired.requests).toHaveLength(1);

    const bad = endpoint(5, (_, index) => {
      if (index === 1) throw newBadRequest("bad continue");
    });
    await expect(listAllPages<Item, Page>(bad.fetch, { limit: 2 })).rejects.toThrow("bad continue");
    expect(bad.requests).toHaveLength(2);
  });

  it("fails with the error of the fallback list, and of onPage", async () => {
    const { fetch } = endpoint(5, (_, index) => {
      if (index >= 1) throw newResourceExpired(`expired ${index}`);
    });
    await expect(listAllPages<Item, Page>(fetch, { limit: 2 })).rejects.toThrow("expired 2");

    const second = endpoint(5);
    await expect(
      listAllPages<Item, Page>(second.fetch, {
        limit: 2,
        onPage: async () => {
          throw new Error("observer failed");
        },
      }),
    ).rejects.toThrow("observer failed");
    expect(second.requests).toHaveLength(1);
  });

  it("sends no further page once the signal aborted during onPage", async () => {
    const { fetch, requests } = endpoint(10);
    const controller = new AbortController();
    const listing = listAllPages<Item, Page>(fetch, {
      limit: 2,
      signal: controller.signal,
      onPage: () => controller.abort(new Error("stop listing")),
    });
    await expect(listing).rejects.toThrow("stop listing");
    expect(requests).toHaveLength(1);
  });

  it("returns an empty result for an empty list, and tolerates lists without items", async () => {
    const { fetch } = endpoint(0);
    expect(await listAllPages<Item, Page>(fetch)).toEqual({
      items: [],
      resourceVersion: "100",
      paginated: false,
    });
    const itemless = async () => ({ metadata: { resourceVersion: "5" } });
    expect(await listAllPages<Item, { metadata: { resourceVersion: string } }>(itemless)).toEqual({
      items: [],
      resourceVersion: "5",
      paginated: false,
    });
  });
});

describe("listPages", () => {
  it("fetches each page only when the iteration asks for it", async () => {
    const { fetch, requests } = endpoint(5);
    const pages = listPages<Page>(fetch, { limit: 2 });
    expect(requests).toHaveLength(0);
    const first = await pages.next();
    expect(first.done).toBe(false);
    expect(requests).toHaveLength(1);
    const rest: number[] = [];
    for await (const page of pages) rest.push(page.items.length);
    expect(rest).toEqual([2, 1]);
    expect(requests.map((r) => r.continue)).toEqual([undefined, "c2", "c4"]);
  });

  it("stops fetching when the consumer breaks", async () => {
    const { fetch, requests } = endpoint(10);
    for await (const _ of listPages<Page>(fetch, { limit: 2 })) break;
    expect(requests).toHaveLength(1);
  });

  it("checks the signal between pages and sends nothing once it is aborted", async () => {
    const { fetch, requests } = endpoint(10);
    const controller = new AbortController();
    const pages = listPages<Page>(fetch, { limit: 2, signal: controller.signal });
    expect((await pages.next()).done).toBe(false);
    controller.abort(new Error("stop paging"));
    await expect(pages.next()).rejects.toThrow("stop paging");
    expect(requests).toHaveLength(1);
  });

  it("throws an expired continue token from the iteration (no fallback)", async () => {
    const { fetch, requests } = endpoint(5, (_, index) => {
      if (index === 1) throw newResourceExpired("continue too old");
    });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of listPages<Page>(fetch, { limit: 2 })) seen.push(page.items.length);
      })(),
    ).rejects.toThrow("continue too old");
    expect(seen).toEqual([2]);
    expect(requests).toHaveLength(2);
  });
});
