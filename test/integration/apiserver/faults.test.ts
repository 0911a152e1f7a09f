/**
 * Fault injection of the embedded API server (`server.faults`) over real HTTP: cut and stalled
 * watches, compacted history (410 on watch and continue, as after an etcd compaction), injected
 * 429/500/503 answers with kube's Status shapes and Retry-After
 * (`staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go`), latency, and restart.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../support/api-client.js";
import type { RawWatchEvent, WatchHandle } from "../../support/api-client.js";
import {
  createConfigMap,
  createNamespace,
  expectStatus,
  useServer,
} from "../../support/server-test-helpers.js";

/**
 * Reads a watch until the server ends it. Resolves with the events read and whether the end was
 * clean (a normal end of the body) or a broken connection.
 */
async function readToEnd(
  w: WatchHandle,
  timeoutMs = 5_000,
): Promise<{ events: RawWatchEvent[]; clean: boolean }> {
  const events: RawWatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const ev = await w.next(Math.max(1, deadline - Date.now()));
      if (!ev) return { events, clean: true };
      events.push(ev);
    }
  } catch (err) {
    if (/no watch event within/.test(String(err))) throw err;
    return { events, clean: false };
  }
}

function configMapsPath(ns: string, query = ""): string {
  return `/api/v1/namespaces/${ns}/configmaps${query ? `?${query}` : ""}`;
}

describe("faults: watches (closeWatches, stallWatches)", () => {
  const h = useServer();

  it("closeWatches() ends every open watch cleanly, with no ERROR event; new watches work", async () => {
    const ns = "f-close";
    await createNamespace(h.client, ns);
    const rv = h.server.resourceVersion;
    const w1 = await h.client.watch(configMapsPath(ns, `watch=true&resourceVersion=${rv}`));
    const w2 = await h.client.watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    const created = await createConfigMap(h.client, ns, "before-close");
    expect((await w1.next())?.object.metadata.name).toBe("before-close");
    expect((await w2.next())?.object.metadata.name).toBe("before-close");

    h.server.faults.closeWatches();
    for (const w of [w1, w2]) {
      const { events, clean } = await readToEnd(w);
      expect(clean).toBe(true);
      expect(events).toEqual([]);
      expect(w.done).toBe(true);
    }

    // A client re-watching from its last RV picks up where it stopped.
    const again = await h.client.watch(
      configMapsPath(ns, `watch=true&resourceVersion=${created.metadata.resourceVersion}`),
    );
    try {
      const next = await createConfigMap(h.client, ns, "after-close");
      const ev = await again.next();
      expect(ev?.type).toBe("ADDED");
      expect(ev?.object.metadata.resourceVersion).toBe(next.metadata.resourceVersion);
    } finally {
      again.close();
    }
  });

  it("stallWatches() keeps the connection open but no more events flow; later watches are unaffected", async () => {
    const ns = "f-stall";
    await createNamespace(h.client, ns);
    const rv = h.server.resourceVersion;
    const stalled = await h.client.watch(configMapsPath(ns, `watch=true&resourceVersion=${rv}`));
    try {
      await createConfigMap(h.client, ns, "seen");
      expect((await stalled.next())?.object.metadata.name).toBe("seen");

      h.server.faults.stallWatches();
      const fresh = await h.client.watch(
        configMapsPath(ns, `watch=true&resourceVersion=${h.server.resourceVersion}`),
      );
      try {
        for (let i = 0; i < 3; i++) await createConfigMap(h.client, ns, `unseen-${i}`);
        const ev = await fresh.next();
        expect(ev?.object.metadata.name).toBe("unseen-0");
      } finally {
        fresh.close();
      }
      await expect(stalled.next(500)).rejects.toThrow(/no watch event within/);
      expect(stalled.done).toBe(false);
    } finally {
      stalled.close();
    }
  });

  it("a stalled watch sends no bookmarks and does not end at its timeoutSeconds either", async () => {
    const ns = "f-stall-timeout";
    await createNamespace(h.client, ns);
    const w = await h.client.watch(
      configMapsPath(
        ns,
        `watch=true&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${h.server.resourceVersion}`,
      ),
    );
    try {
      h.server.faults.stallWatches();
      await createConfigMap(h.client, ns, "hidden");
      // Half-open: past the 1 s timeout nothing arrives and the stream has not ended.
      await expect(w.next(1_500)).rejects.toThrow(/no watch event within/);
      expect(w.done).toBe(false);
    } finally {
      w.close();
    }
  });
});

describe("faults: compactHistory()", () => {
  const h = useServer();

  it("a watch from an RV before the compaction gets 200 + one ERROR 410 Expired event, then the stream ends", async () => {
    const ns = "f-compact-watch";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "a");
    const old = Number(h.server.resourceVersion);
    await createConfigMap(h.client, ns, "b");
    h.server.faults.compactHistory();

    const w = await h.client.watch(configMapsPath(ns, `watch=true&resourceVersion=${old}`));
    expect(w.status).toBe(200);
    const { events, clean } = await readToEnd(w);
    expect(clean).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe("ERROR");
    expect(events[0]?.object).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Expired",
      code: 410,
    });
    expect(events[0]?.object.message).toMatch(
      new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`),
    );

    // A watch from the current RV still works.
    const current = await h.client.watch(
      configMapsPath(ns, `watch=true&resourceVersion=${h.server.resourceVersion}`),
    );
    try {
      const c = await createConfigMap(h.client, ns, "c");
      expect((await current.next())?.object.metadata.resourceVersion).toBe(
        c.metadata.resourceVersion,
      );
    } finally {
      current.close();
    }
  });

  it("a continue token from before the compaction gets 410 Expired", async () => {
    const ns = "f-compact-continue";
    await createNamespace(h.client, ns);
    for (const name of ["a", "b", "c"]) await createConfigMap(h.client, ns, name);
    const first = await h.client.get(configMapsPath(ns, "limit=1"));
    const token = first.json.metadata.continue as string;
    expect(token).toBeTruthy();
    await createConfigMap(h.client, ns, "d");
    h.server.faults.compactHistory();

    const res = await h.client.get(configMapsPath(ns, `limit=1&continue=${token}`));
    expectStatus(res, 410, "Expired");
    expect(res.json.message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter/,
    );
  });

  it("an Exact list at an RV before the compaction gets 410 Expired", async () => {
    const ns = "f-compact-exact";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "a");
    const old = h.server.resourceVersion;
    await createConfigMap(h.client, ns, "b");
    h.server.faults.compactHistory();
    const res = await h.client.get(
      configMapsPath(ns, `resourceVersion=${old}&resourceVersionMatch=Exact`),
    );
    expectStatus(res, 410, "Expired");
    expect(res.json.message).toBe("The resourceVersion for the provided list is too old.");
  });
});

describe("faults: failNext()", () => {
  const h = useServer();
  const ns = "f-fail";

  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "c");
  });

  it("failNext(n, 429, retryAfterSeconds 2): exactly n requests get 429 TooManyRequests with Retry-After: 2", async () => {
    h.server.faults.failNext(2, { code: 429, retryAfterSeconds: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await h.client.get(configMapsPath(ns));
      expectStatus(res, 429, "TooManyRequests");
      expect(res.headers["retry-after"]).toBe("2");
      expect(res.json.details.retryAfterSeconds).toBe(2);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
    }
    const ok = await h.client.get(configMapsPath(ns));
    expect(ok.status).toBe(200);
    expect(ok.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      "c",
    ]);
  });

  it("failNext(1, 500): one 500 InternalError Status, then normal", async () => {
    h.server.faults.failNext(1, { code: 500 });
    const res = await h.client.get(`${configMapsPath(ns)}/c`);
    expectStatus(res, 500, "InternalError");
    expect(res.json.message).toMatch(/^Internal error occurred: /);
    expect(res.headers["retry-after"]).toBeUndefined();
    expect((await h.client.get(`${configMapsPath(ns)}/c`)).status).toBe(200);
  });

  it("failNext(2, 503, retryAfterSeconds 3): two 503 ServiceUnavailable with Retry-After: 3, then normal", async () => {
    h.server.faults.failNext(2, { code: 503, retryAfterSeconds: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await h.client.get(`${configMapsPath(ns)}/c`);
      expectStatus(res, 503, "ServiceUnavailable");
      expect(res.headers["retry-after"]).toBe("3");
      expect(res.json.details.retryAfterSeconds).toBe(3);
    }
    expect((await h.client.get(`${configMapsPath(ns)}/c`)).status).toBe(200);
  });

  it("writes are failed too, and a failed write changes nothing", async () => {
    const before = h.server.resourceVersion;
    h.server.faults.failNext(1, { code: 500 });
    const res = await h.client.post(configMapsPath(ns), { metadata: { name: "not-stored" } });
    expectStatus(res, 500, "InternalError");
    expect(h.server.resourceVersion).toBe(before);
    expect((await h.client.get(`${configMapsPath(ns)}/not-stored`)).status).toBe(404);
  });

  it("the resource and namespace filters fail only matching requests; an all-namespaces list is in no namespace", async () => {
    h.server.faults.failNext(1, { code: 500, resource: "configmaps", namespace: ns });
    expect((await h.client.get("/api/v1/namespaces")).status).toBe(200);
    expect((await h.client.get("/api/v1/configmaps")).status).toBe(200);
    expect((await h.client.get(configMapsPath("default"))).status).toBe(200);
    expectStatus(await h.client.get(configMapsPath(ns)), 500, "InternalError");
    expect((await h.client.get(configMapsPath(ns))).status).toBe(200);
  });

  it("the verbs filter fails only the named verb: list fails while get works", async () => {
    h.server.faults.failNext(1, { code: 500, verbs: ["list"] });
    const get = await h.client.get(`${configMapsPath(ns)}/c`);
    expect(get.status).toBe(200);
    const list = await h.client.get(configMapsPath(ns));
    expectStatus(list, 500, "InternalError");
    expect((await h.client.get(configMapsPath(ns))).status).toBe(200);
  });

  it("a watch can be failed with an HTTP 429 before streaming", async () => {
    h.server.faults.failNext(1, { code: 429, retryAfterSeconds: 1, verbs: ["watch"] });
    const list = await h.client.get(configMapsPath(ns));
    expect(list.status).toBe(200);
    const res = await h.client.get(
      configMapsPath(ns, `watch=true&resourceVersion=${h.server.resourceVersion}`),
      {
        signal: AbortSignal.timeout(5_000),
      },
    );
    expectStatus(res, 429, "TooManyRequests");
    expect(res.headers["retry-after"]).toBe("1");
    const w = await h.client.watch(
      configMapsPath(ns, `watch=true&resourceVersion=${h.server.resourceVersion}`),
    );
    try {
      expect(w.status).toBe(200);
    } finally {
      w.close();
    }
  });

  it("failures queued by separate calls are consumed in order", async () => {
    h.server.faults.failNext(1, { code: 503 });
    h.server.faults.failNext(1, { code: 429, retryAfterSeconds: 4 });
    expectStatus(await h.client.get(configMapsPath(ns)), 503, "ServiceUnavailable");
    const second = await h.client.get(configMapsPath(ns));
    expectStatus(second, 429, "TooManyRequests");
    expect(second.headers["retry-after"]).toBe("4");
    expect((await h.client.get(configMapsPath(ns))).status).toBe(200);
  });
});

describe("faults: setLatency()", () => {
  const h = useServer();

  it("setLatency(200) delays requests by at least ~200 ms; setLatency(0) clears it", async () => {
    const ns = "f-latency";
    await createNamespace(h.client, ns);
    h.server.faults.setLatency(200);
    expect(h.server.faults.latencyMs).toBe(200);
    for (const path of [configMapsPath(ns), "/version"]) {
      const started = Date.now();
      const res = await h.client.get(path);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    }

    h.server.faults.setLatency(0);
    expect(h.server.faults.latencyMs).toBe(0);
    // The fastest of three requests (robust against a scheduling hiccup) is well under the old latency.
    const elapsed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      expect((await h.client.get(configMapsPath(ns))).status).toBe(200);
      elapsed.push(Date.now() - started);
    }
    expect(Math.min(...elapsed)).toBeLessThan(180);
  });
});

describe("faults: restart()", () => {
  const h = useServer();

  it("drops open connections; objects and the resourceVersion counter survive; same port afterwards", async () => {
    const ns = "f-restart";
    await createNamespace(h.client, ns);
    const created = await createConfigMap(h.client, ns, "survivor", { data: { v: "1" } });
    const port = h.server.port;
    const url = h.server.url;
    const rvBefore = h.server.resourceVersion;
    const w = await h.client.watch(configMapsPath(ns, `watch=true&resourceVersion=${rvBefore}`));

    await h.server.faults.restart();

    // The open watch is gone: the stream ends or errors, it does not hang.
    const { events } = await readToEnd(w);
    expect(events).toEqual([]);
    expect(h.server.port).toBe(port);
    expect(h.server.url).toBe(url);

    const fresh = ApiClient.for(h.server);
    try {
      const got = await fresh.get(`${configMapsPath(ns)}/survivor`);
      expect(got.status).toBe(200);
      expect(got.json.metadata.uid).toBe(created.metadata.uid);
      expect(got.json.data).toEqual({ v: "1" });

      const list = await fresh.get(configMapsPath(ns));
      expect(list.json.metadata.resourceVersion).toBe(rvBefore);

      const next = await createConfigMap(fresh, ns, "after-restart");
      expect(Number(next.metadata.resourceVersion)).toBe(Number(rvBefore) + 1);

      // Watch history survives too: a watch from before the restart replays the new write.
      const replay = await fresh.watch(
        configMapsPath(ns, `watch=true&resourceVersion=${rvBefore}`),
      );
      try {
        const ev = await replay.next();
        expect(ev?.type).toBe("ADDED");
        expect(ev?.object.metadata.name).toBe("after-restart");
      } finally {
        replay.close();
      }
    } finally {
      await fresh.close();
    }

    // The original client reconnects on its own.
    const again = await h.client.get(`${configMapsPath(ns)}/survivor`);
    expect(again.status).toBe(200);
  });
});
