/**
 * Watches against the embedded API server over real HTTP, pinned to kube-apiserver's
 * behaviour (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go`, the watch cache of
 * `staging/src/k8s.io/apiserver/pkg/storage/cacher/`, KEP-3157 WatchList): framing and
 * headers, where a watch starts, 410 ERROR events, bookmarks, WatchList (sendInitialEvents),
 * timeouts, selector transitions, single-object and legacy watches, fan-out to many watchers,
 * slow readers, and Table / PartialObjectMetadata events.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../support/api-client.js";
import type { RawResponse, RawWatchEvent, WatchHandle } from "../../support/api-client.js";
import {
  createConfigMap,
  createNamespace,
  expectStatus,
  useServer,
} from "../../support/server-test-helpers.js";
import type { ServerHarness } from "../../support/server-test-helpers.js";

const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
/** Bound on requests that must not turn into a stream (a server bug would otherwise hang the test). */
const REQUEST_TIMEOUT_MS = 5_000;

/** Merge-patches a ConfigMap; returns the stored object. */
async function patchConfigMap(
  client: ApiClient,
  namespace: string,
  name: string,
  patch: unknown,
): Promise<RawResponse["json"]> {
  const res = await client.patch(
    `/api/v1/namespaces/${namespace}/configmaps/${name}`,
    patch,
    "application/merge-patch+json",
  );
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** Deletes a ConfigMap and returns the revision of the deletion (the global RV right after it). */
async function deleteConfigMap(h: ServerHarness, namespace: string, name: string): Promise<string> {
  const res = await h.client.delete(`/api/v1/namespaces/${namespace}/configmaps/${name}`);
  expect(res.status, res.text).toBe(200);
  return h.server.resourceVersion;
}

/** The next event that is not a BOOKMARK (periodic bookmarks may interleave). */
async function nextNonBookmark(
  w: WatchHandle,
  timeoutMs = 5_000,
): Promise<RawWatchEvent | undefined> {
  for (;;) {
    const ev = await w.next(timeoutMs);
    if (!ev || ev.type !== "BOOKMARK") return ev;
  }
}

/** `TYPE name@rv` of an event, for comparing sequences. */
function describeEvent(ev: RawWatchEvent | undefined): string {
  if (!ev) return "<end>";
  return `${ev.type} ${ev.object?.metadata?.name}@${ev.object?.metadata?.resourceVersion}`;
}

/** A GET that must be answered (not streamed); times out instead of hanging on a bug. */
function getBounded(client: ApiClient, path: string): Promise<RawResponse> {
  return client.get(path, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}

describe("watch: framing and where it starts", () => {
  const h = useServer();

  it("sends 200 and application/json headers at once, before any event", async () => {
    const ns = "w-headers";
    await createNamespace(h.client, ns);
    // Nothing will happen in the namespace: the watch resolving at all proves the headers came first.
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      expect(w.status).toBe(200);
      expect(w.headers["content-type"]).toMatch(/^application\/json/);
      expect(w.headers["transfer-encoding"]).toBe("chunked");
      const created = await createConfigMap(h.client, ns, "first");
      const ev = await w.next();
      expect(ev?.type).toBe("ADDED");
      expect(ev?.object).toMatchObject({
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: { name: "first", resourceVersion: created.metadata.resourceVersion },
      });
    } finally {
      w.close();
    }
  });

  for (const [label, query] of [
    ["unset", ""],
    ['"0"', "&resourceVersion=0"],
  ] as const) {
    it(`resourceVersion ${label}: synthetic ADDED for existing objects, then live events`, async () => {
      const ns = `w-start-${label === "unset" ? "unset" : "zero"}`;
      await createNamespace(h.client, ns);
      const a = await createConfigMap(h.client, ns, "a", { data: { v: "1" } });
      const b = await createConfigMap(h.client, ns, "b", { data: { v: "1" } });
      const w = await h.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true${query}`);
      try {
        expect(w.status).toBe(200);
        const initial = await w.take(2);
        expect(initial.map(describeEvent).sort()).toEqual(
          [`ADDED a@${a.metadata.resourceVersion}`, `ADDED b@${b.metadata.resourceVersion}`].sort(),
        );
        for (const ev of initial) {
          expect(ev.object.kind).toBe("ConfigMap");
          expect(ev.object.apiVersion).toBe("v1");
          expect(ev.object.data).toEqual({ v: "1" });
        }
        const a2 = await patchConfigMap(h.client, ns, "a", { data: { v: "2" } });
        const c = await createConfigMap(h.client, ns, "c");
        const live = await w.take(2);
        expect(live.map(describeEvent)).toEqual([
          `MODIFIED a@${a2.metadata.resourceVersion}`,
          `ADDED c@${c.metadata.resourceVersion}`,
        ]);
        expect(live[0]?.object.data).toEqual({ v: "2" });
      } finally {
        w.close();
      }
    });
  }

  it("resourceVersion=N replays exactly the changes after N in RV order, with no synthetic events", async () => {
    const ns = "w-replay";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "before", { data: { v: "0" } });
    await createConfigMap(h.client, ns, "a", { data: { v: "1" } });
    const n = h.server.resourceVersion;
    const a2 = await patchConfigMap(h.client, ns, "a", { data: { v: "2" } });
    const b = await createConfigMap(h.client, ns, "b");
    const deletedAt = await deleteConfigMap(h, ns, "a");
    expect(Number(deletedAt)).toBeGreaterThan(Number(b.metadata.resourceVersion));

    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${n}`,
    );
    try {
      expect(w.status).toBe(200);
      const replay = await w.take(3);
      expect(replay.map(describeEvent)).toEqual([
        `MODIFIED a@${a2.metadata.resourceVersion}`,
        `ADDED b@${b.metadata.resourceVersion}`,
        `DELETED a@${deletedAt}`,
      ]);
      // DELETED carries the last state before deletion, stamped with the deletion's RV.
      expect(replay[2]?.object.data).toEqual({ v: "2" });
      expect(replay[2]?.object.metadata.uid).toBe(a2.metadata.uid);
      const c = await createConfigMap(h.client, ns, "c");
      expect(describeEvent(await w.next())).toBe(`ADDED c@${c.metadata.resourceVersion}`);
    } finally {
      w.close();
    }
  });

  it("a watch from the current RV sees only later changes", async () => {
    const ns = "w-current";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "old");
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      const fresh = await createConfigMap(h.client, ns, "fresh");
      expect(describeEvent(await w.next())).toBe(`ADDED fresh@${fresh.metadata.resourceVersion}`);
    } finally {
      w.close();
    }
  });

  it("timeoutSeconds=1 ends the stream cleanly after about a second, with no ERROR event", async () => {
    const ns = "w-timeout";
    await createNamespace(h.client, ns);
    const started = Date.now();
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${h.server.resourceVersion}`,
    );
    expect(w.status).toBe(200);
    const events = await w.rest(5_000);
    const elapsed = Date.now() - started;
    expect(events.filter((e) => e.type === "ERROR")).toEqual([]);
    expect(w.done).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(4_000);
  });

  it("a watch of a resource that does not support watch is rejected before streaming", async () => {
    const res = await getBounded(
      h.client,
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews?watch=true",
    );
    expect([404, 405]).toContain(res.status);
  });
});

describe("watch: resourceVersion older than history", () => {
  const h = useServer({ historySize: 5 });

  it("answers 200 with one ERROR event carrying 410 Expired, then ends the stream", async () => {
    const ns = "w-expired";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "c", { data: { v: "0" } });
    const old = Number(h.server.resourceVersion);
    for (let i = 1; i <= 10; i++)
      await patchConfigMap(h.client, ns, "c", { data: { v: String(i) } });

    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${old}`,
    );
    expect(w.status).toBe(200);
    const events = await w.rest(5_000);
    expect(w.done).toBe(true);
    expect(events).toHaveLength(1);
    const ev = events[0];
    expect(ev?.type).toBe("ERROR");
    expect(ev?.object).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
    });
    const match = /^too old resource version: (\d+) \((\d+)\)$/.exec(ev?.object.message);
    expect(match, ev?.object.message).not.toBeNull();
    expect(Number(match?.[1])).toBe(old);
    expect(Number(match?.[2])).toBeGreaterThan(old);
    expect(Number(match?.[2])).toBeLessThanOrEqual(Number(h.server.resourceVersion));
  });

  it("a watch from an RV still inside the history replays normally", async () => {
    const ns = "w-recent";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "c", { data: { v: "0" } });
    const from = h.server.resourceVersion;
    const c1 = await patchConfigMap(h.client, ns, "c", { data: { v: "1" } });
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${from}`,
    );
    try {
      expect(describeEvent(await w.next())).toBe(`MODIFIED c@${c1.metadata.resourceVersion}`);
    } finally {
      w.close();
    }
  });
});

describe("watch: bookmarks", () => {
  const h = useServer({ bookmarkIntervalMs: 250 });
  const ns = "w-bookmarks";

  beforeAll(async () => {
    await createNamespace(h.client, ns);
  });

  it("allowWatchBookmarks=true yields BOOKMARKs carrying only kind, apiVersion and metadata.resourceVersion", async () => {
    const start = h.server.resourceVersion;
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${start}`,
    );
    try {
      const first = await w.next(5_000);
      expect(first?.type).toBe("BOOKMARK");
      expect(Object.keys(first?.object).sort()).toEqual(["apiVersion", "kind", "metadata"]);
      expect(first?.object.kind).toBe("ConfigMap");
      expect(first?.object.apiVersion).toBe("v1");
      expect(Object.keys(first?.object.metadata)).toEqual(["resourceVersion"]);
      expect(Number(first?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(start));

      const created = await createConfigMap(h.client, ns, "after-bookmark");
      expect(describeEvent(await nextNonBookmark(w))).toBe(
        `ADDED after-bookmark@${created.metadata.resourceVersion}`,
      );
      // A bookmark means everything up to its RV was delivered: a later one is at least that far.
      let later = await w.next(5_000);
      while (later && later.type !== "BOOKMARK") later = await w.next(5_000);
      expect(Number(later?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
        Number(created.metadata.resourceVersion),
      );
    } finally {
      w.close();
    }
  });

  it("without allowWatchBookmarks no BOOKMARK is sent", async () => {
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      const created = await createConfigMap(h.client, ns, "no-bookmark");
      expect(describeEvent(await w.next())).toBe(
        `ADDED no-bookmark@${created.metadata.resourceVersion}`,
      );
      // Several bookmark intervals pass with no event at all.
      await expect(w.next(1_000)).rejects.toThrow(/no watch event/);
    } finally {
      w.close();
    }
  });
});

describe("watch: sendInitialEvents / WatchList", () => {
  const h = useServer({ bookmarkIntervalMs: 60_000 });
  const ns = "w-watchlist";
  const base = `/api/v1/namespaces/${ns}/configmaps?watch=true`;
  const watchList =
    "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
  let a: RawResponse["json"];
  let b: RawResponse["json"];

  beforeAll(async () => {
    await createNamespace(h.client, ns);
    a = await createConfigMap(h.client, ns, "a");
    b = await createConfigMap(h.client, ns, "b");
  });

  for (const rv of ["", "&resourceVersion=", "&resourceVersion=N"]) {
    it(`ADDED for current objects, an initial-events-end BOOKMARK, then live events (${rv || "RV unset"})`, async () => {
      const query = rv.replace("N", a.metadata.resourceVersion);
      const snapshot = h.server.resourceVersion;
      const w = await h.client.watch(`${base}&${watchList}${query}`);
      try {
        expect(w.status).toBe(200);
        const initial = await w.take(3);
        expect(initial.slice(0, 2).map(describeEvent).sort()).toEqual(
          [`ADDED a@${a.metadata.resourceVersion}`, `ADDED b@${b.metadata.resourceVersion}`].sort(),
        );
        const end = initial[2];
        expect(end?.type).toBe("BOOKMARK");
        expect(end?.object.kind).toBe("ConfigMap");
        expect(end?.object.apiVersion).toBe("v1");
        expect(end?.object.metadata.annotations).toEqual({ [INITIAL_EVENTS_END]: "true" });
        expect(end?.object.metadata.resourceVersion).toBe(snapshot);

        const name = `live-${Date.now()}`;
        const live = await createConfigMap(h.client, ns, name);
        expect(describeEvent(await nextNonBookmark(w))).toBe(
          `ADDED ${name}@${live.metadata.resourceVersion}`,
        );
        await deleteConfigMap(h, ns, name);
      } finally {
        w.close();
      }
    });
  }

  it("sendInitialEvents=false with RV unset starts at the most recent state: no initial events, no end bookmark", async () => {
    // Kubernetes API reference, ListOptions.sendInitialEvents: it "defaults to true if
    // resourceVersion="" or resourceVersion="0" ... and to false otherwise"; an explicit false
    // therefore turns the synthetic ADDED events off.
    const w = await h.client.watch(
      `${base}&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=`,
    );
    try {
      expect(w.status).toBe(200);
      const name = `after-${Date.now()}`;
      const live = await createConfigMap(h.client, ns, name);
      expect(describeEvent(await nextNonBookmark(w))).toBe(
        `ADDED ${name}@${live.metadata.resourceVersion}`,
      );
      await deleteConfigMap(h, ns, name);
    } finally {
      w.close();
    }
  });

  it("with a label selector the initial events cover only matching objects", async () => {
    const sel = "w-watchlist-sel";
    await createNamespace(h.client, sel);
    const web = await createConfigMap(h.client, sel, "web", { labels: { app: "web" } });
    await createConfigMap(h.client, sel, "db", { labels: { app: "db" } });
    const w = await h.client.watch(
      `/api/v1/namespaces/${sel}/configmaps?watch=true&${watchList}&labelSelector=app%3Dweb`,
    );
    try {
      const [added, end] = await w.take(2);
      expect(describeEvent(added)).toBe(`ADDED web@${web.metadata.resourceVersion}`);
      expect(end?.type).toBe("BOOKMARK");
      expect(end?.object.metadata.annotations).toEqual({ [INITIAL_EVENTS_END]: "true" });
    } finally {
      w.close();
    }
  });

  it("sendInitialEvents without resourceVersionMatch is 422", async () => {
    const res = await getBounded(
      h.client,
      `${base}&sendInitialEvents=true&allowWatchBookmarks=true`,
    );
    expectStatus(res, 422, "Invalid");
    expect(res.json.message).toContain(
      "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    );
    expect(res.json.details.kind).toBe("ListOptions");
  });

  it("sendInitialEvents with resourceVersionMatch=Exact is 422", async () => {
    const res = await getBounded(
      h.client,
      `${base}&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=${a.metadata.resourceVersion}`,
    );
    expectStatus(res, 422, "Invalid");
    expect(res.json.message).toContain(
      "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    );
  });

  it("resourceVersionMatch on a plain watch is 422", async () => {
    const res = await getBounded(
      h.client,
      `${base}&resourceVersionMatch=NotOlderThan&resourceVersion=${a.metadata.resourceVersion}`,
    );
    expectStatus(res, 422, "Invalid");
    expect(res.json.details).toMatchObject({ group: "meta.k8s.io", kind: "ListOptions" });
    expect(res.json.details.causes).toContainEqual(
      expect.objectContaining({ field: "resourceVersionMatch" }),
    );
  });
});

describe("watch: a server with WatchList disabled", () => {
  const h = useServer({ watchList: false });
  const ns = "w-nowatchlist";

  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "a");
  });

  it("rejects sendInitialEvents with 422 so that clients fall back to list+watch", async () => {
    const res = await getBounded(
      h.client,
      `/api/v1/namespaces/${ns}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    expectStatus(res, 422, "Invalid");
    expect(res.json.message).toContain(
      "forbidden for watch unless the WatchList feature gate is enabled",
    );
  });

  it("still serves plain watches", async () => {
    const w = await h.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true`);
    try {
      expect(w.status).toBe(200);
      expect((await w.next())?.object.metadata.name).toBe("a");
    } finally {
      w.close();
    }
  });
});

describe("watch: selectors, single objects, legacy paths, scopes", () => {
  const h = useServer();

  it("label selector transitions: entering is ADDED, leaving is DELETED with the previous content and the new RV", async () => {
    const ns = "w-labels";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "pre-web", { labels: { app: "web" } });
    await createConfigMap(h.client, ns, "pre-db", { labels: { app: "db" } });
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}&labelSelector=app%3Dweb`,
    );
    try {
      await createConfigMap(h.client, ns, "x", { data: { v: "0" } }); // no match: nothing
      const entered = await patchConfigMap(h.client, ns, "x", {
        metadata: { labels: { app: "web" } },
      });
      const modified = await patchConfigMap(h.client, ns, "x", { data: { v: "1" } });
      const left = await patchConfigMap(h.client, ns, "x", { metadata: { labels: { app: "db" } } });
      await patchConfigMap(h.client, ns, "x", { data: { v: "2" } }); // still no match: nothing
      await deleteConfigMap(h, ns, "x"); // deleting a non-matching object: nothing
      const y = await createConfigMap(h.client, ns, "y", { labels: { app: "web" } });
      const yDeleted = await deleteConfigMap(h, ns, "y");

      const events = await w.take(5);
      expect(events.map(describeEvent)).toEqual([
        `ADDED x@${entered.metadata.resourceVersion}`,
        `MODIFIED x@${modified.metadata.resourceVersion}`,
        `DELETED x@${left.metadata.resourceVersion}`,
        `ADDED y@${y.metadata.resourceVersion}`,
        `DELETED y@${yDeleted}`,
      ]);
      const leaving = events[2]?.object;
      expect(leaving.metadata.labels).toEqual({ app: "web" });
      expect(leaving.data).toEqual({ v: "1" });
    } finally {
      w.close();
    }
  });

  it("with a label selector and RV unset, synthetic ADDED events cover only matching objects", async () => {
    const ns = "w-labels-initial";
    await createNamespace(h.client, ns);
    await createConfigMap(h.client, ns, "web-1", { labels: { app: "web" } });
    await createConfigMap(h.client, ns, "db-1", { labels: { app: "db" } });
    await createConfigMap(h.client, ns, "web-2", { labels: { app: "web" } });
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&labelSelector=app%3Dweb`,
    );
    try {
      const initial = await w.take(2);
      expect(initial.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual([
        "ADDED web-1",
        "ADDED web-2",
      ]);
      const marker = await createConfigMap(h.client, ns, "web-3", { labels: { app: "web" } });
      // The next event is the live one: no ADDED for db-1 came in between.
      expect(describeEvent(await w.next())).toBe(`ADDED web-3@${marker.metadata.resourceVersion}`);
    } finally {
      w.close();
    }
  });

  it("field selector transitions on pods: status.phase entering is ADDED, leaving is DELETED", async () => {
    const ns = "w-phase";
    await createNamespace(h.client, ns);
    const pod = await h.client.post(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox" }], nodeName: "node-1" },
    });
    expect(pod.status, pod.text).toBe(201);
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/pods?watch=true&resourceVersion=${h.server.resourceVersion}&fieldSelector=status.phase%3DRunning`,
    );
    const setPhase = async (phase: string): Promise<RawResponse["json"]> => {
      const res = await h.client.patch(
        `/api/v1/namespaces/${ns}/pods/p/status`,
        { status: { phase } },
        "application/merge-patch+json",
      );
      expect(res.status, res.text).toBe(200);
      return res.json;
    };
    try {
      const running = await setPhase("Running");
      const succeeded = await setPhase("Succeeded");
      const events = await w.take(2);
      expect(events.map(describeEvent)).toEqual([
        `ADDED p@${running.metadata.resourceVersion}`,
        `DELETED p@${succeeded.metadata.resourceVersion}`,
      ]);
      expect(events[1]?.object.status.phase).toBe("Running");
    } finally {
      w.close();
    }
  });

  it("selector errors on a watch are answered before streaming (400)", async () => {
    const ns = "w-selector-errors";
    const unsupported = await getBounded(
      h.client,
      `/api/v1/namespaces/${ns}/configmaps?watch=true&fieldSelector=spec.foo%3Dx`,
    );
    expectStatus(unsupported, 400, "BadRequest");
    expect(unsupported.json.message).toBe(
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const podField = await getBounded(
      h.client,
      `/api/v1/pods?watch=true&fieldSelector=spec.foo%3Dx`,
    );
    expectStatus(podField, 400, "BadRequest");
    expect(podField.json.message).toBe("field label not supported: spec.foo");
    const malformed = await getBounded(
      h.client,
      `/api/v1/namespaces/${ns}/configmaps?watch=true&labelSelector=${encodeURIComponent("app in (web")}`,
    );
    expectStatus(malformed, 400, "BadRequest");
  });

  it("limit is ignored for watch", async () => {
    const ns = "w-limit";
    await createNamespace(h.client, ns);
    for (const name of ["a", "b", "c"]) await createConfigMap(h.client, ns, name);
    const w = await h.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true&limit=1`);
    try {
      const events = await w.take(3);
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).toEqual([
        "ADDED a",
        "ADDED b",
        "ADDED c",
      ]);
    } finally {
      w.close();
    }
  });

  it("fieldSelector=metadata.name watches one object, across delete and re-create", async () => {
    const ns = "w-name";
    await createNamespace(h.client, ns);
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}&fieldSelector=metadata.name%3Dtarget`,
    );
    try {
      await createConfigMap(h.client, ns, "other");
      const t1 = await createConfigMap(h.client, ns, "target");
      await patchConfigMap(h.client, ns, "other", { data: { v: "1" } });
      const t2 = await patchConfigMap(h.client, ns, "target", { data: { v: "1" } });
      const gone = await deleteConfigMap(h, ns, "target");
      await deleteConfigMap(h, ns, "other");
      const t3 = await createConfigMap(h.client, ns, "target");
      const events = await w.take(4);
      expect(events.map(describeEvent)).toEqual([
        `ADDED target@${t1.metadata.resourceVersion}`,
        `MODIFIED target@${t2.metadata.resourceVersion}`,
        `DELETED target@${gone}`,
        `ADDED target@${t3.metadata.resourceVersion}`,
      ]);
      expect(events[3]?.object.metadata.uid).not.toBe(t1.metadata.uid);
    } finally {
      w.close();
    }
  });

  it("the legacy /api/v1/watch/namespaces/ns/configmaps/name path watches that one object", async () => {
    const ns = "w-legacy";
    await createNamespace(h.client, ns);
    const existing = await createConfigMap(h.client, ns, "target", { data: { v: "0" } });
    await createConfigMap(h.client, ns, "other");
    const w = await h.client.watch(`/api/v1/watch/namespaces/${ns}/configmaps/target`);
    try {
      expect(w.status).toBe(200);
      expect(describeEvent(await w.next())).toBe(
        `ADDED target@${existing.metadata.resourceVersion}`,
      );
      await patchConfigMap(h.client, ns, "other", { data: { v: "1" } });
      const changed = await patchConfigMap(h.client, ns, "target", { data: { v: "1" } });
      expect(describeEvent(await w.next())).toBe(
        `MODIFIED target@${changed.metadata.resourceVersion}`,
      );
    } finally {
      w.close();
    }
  });

  it("the legacy collection path /api/v1/watch/namespaces/ns/configmaps watches the collection", async () => {
    const ns = "w-legacy-list";
    await createNamespace(h.client, ns);
    const w = await h.client.watch(
      `/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      expect(w.status).toBe(200);
      const one = await createConfigMap(h.client, ns, "one");
      const two = await createConfigMap(h.client, ns, "two");
      expect((await w.take(2)).map(describeEvent)).toEqual([
        `ADDED one@${one.metadata.resourceVersion}`,
        `ADDED two@${two.metadata.resourceVersion}`,
      ]);
    } finally {
      w.close();
    }
  });

  it("a metadata.name selector contradicting the legacy path's name is 400", async () => {
    const res = await getBounded(
      h.client,
      "/api/v1/watch/namespaces/w-legacy/configmaps/target?fieldSelector=metadata.name%3Dother",
    );
    expectStatus(res, 400, "BadRequest");
    expect(res.json.message).toBe("fieldSelector metadata.name doesn't match requested name");
  });

  it("a namespaced watch sees its namespace only; a cluster-wide watch sees every namespace", async () => {
    const ns1 = "w-scope-1";
    const ns2 = "w-scope-2";
    await createNamespace(h.client, ns1);
    await createNamespace(h.client, ns2);
    const rv = h.server.resourceVersion;
    const nsWatch = await h.client.watch(
      `/api/v1/namespaces/${ns1}/configmaps?watch=true&resourceVersion=${rv}`,
    );
    const allWatch = await h.client.watch(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
    try {
      const a = await createConfigMap(h.client, ns1, "a");
      const b = await createConfigMap(h.client, ns2, "b");
      const c = await createConfigMap(h.client, ns1, "c");
      expect((await nsWatch.take(2)).map(describeEvent)).toEqual([
        `ADDED a@${a.metadata.resourceVersion}`,
        `ADDED c@${c.metadata.resourceVersion}`,
      ]);
      const all = await allWatch.take(3);
      expect(all.map(describeEvent)).toEqual([
        `ADDED a@${a.metadata.resourceVersion}`,
        `ADDED b@${b.metadata.resourceVersion}`,
        `ADDED c@${c.metadata.resourceVersion}`,
      ]);
      expect(all.map((e) => e.object.metadata.namespace)).toEqual([ns1, ns2, ns1]);
    } finally {
      nsWatch.close();
      allWatch.close();
    }
  });

  it("?watch=1 is a watch and ?watch=false is a list", async () => {
    const ns = "w-param";
    await createNamespace(h.client, ns);
    const list = await getBounded(h.client, `/api/v1/namespaces/${ns}/configmaps?watch=false`);
    expect(list.status).toBe(200);
    expect(list.json.kind).toBe("ConfigMapList");
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      const created = await createConfigMap(h.client, ns, "x");
      expect(describeEvent(await w.next())).toBe(`ADDED x@${created.metadata.resourceVersion}`);
    } finally {
      w.close();
    }
  });
});

describe("watch: many watchers (fan-out)", () => {
  const h = useServer();

  it("50 watchers from the same RV all receive the same events in the same order", async () => {
    const ns = "w-many";
    await createNamespace(h.client, ns);
    const rv = h.server.resourceVersion;
    const watchers = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`),
      ),
    );
    try {
      const expected: string[] = [];
      for (let i = 0; i < 8; i++) {
        const c = await createConfigMap(h.client, ns, `c${i}`);
        expected.push(`ADDED c${i}@${c.metadata.resourceVersion}`);
      }
      for (let i = 0; i < 6; i++) {
        const c = await patchConfigMap(h.client, ns, `c${i}`, { data: { v: "1" } });
        expected.push(`MODIFIED c${i}@${c.metadata.resourceVersion}`);
      }
      for (let i = 0; i < 6; i++)
        expected.push(`DELETED c${i}@${await deleteConfigMap(h, ns, `c${i}`)}`);

      const received = await Promise.all(watchers.map((w) => w.take(expected.length)));
      for (const events of received) expect(events.map(describeEvent)).toEqual(expected);
      const rvs = received[0]?.map((e) => Number(e.object.metadata.resourceVersion)) ?? [];
      expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
      expect(new Set(rvs).size).toBe(rvs.length);
    } finally {
      for (const w of watchers) w.close();
    }
  });
});

describe("watch: a slow reader is dropped without stalling others", () => {
  // Events (100 KiB) are well under the backlog limit (1 MiB), so only a reader that stops reading
  // accumulates a backlog; the total written (20 MiB) exceeds what the kernel's socket buffers hold.
  const h = useServer({ maxWatchBacklogBytes: 1024 * 1024 });

  it("a watcher that never reads is cut off; a reading watcher gets every event; the server still answers", async () => {
    const ns = "w-slow";
    await createNamespace(h.client, ns);
    const rv = h.server.resourceVersion;
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`;
    const slowClient = ApiClient.for(h.server);
    const slow = await slowClient.watch(path);
    const fast = await h.client.watch(path);
    const count = 200;
    const payload = "x".repeat(100 * 1024);
    try {
      expect(slow.status).toBe(200);
      // The fast watcher reads while the writes happen; the slow one is never read.
      const fastEvents = fast.take(count, 20_000);
      // Observed below; this only keeps an early failure of the writes from leaving it unhandled.
      fastEvents.catch(() => undefined);
      const names: string[] = [];
      for (let i = 0; i < count; i++) {
        const c = await createConfigMap(h.client, ns, `big-${String(i).padStart(3, "0")}`, {
          data: { payload },
        });
        names.push(c.metadata.name);
      }
      const got = await fastEvents;
      expect(got.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(
        names.map((n) => `ADDED ${n}`),
      );

      const list = await getBounded(h.client, `/api/v1/namespaces/${ns}/configmaps?limit=1`);
      expect(list.status).toBe(200);
      expect(list.json.metadata.remainingItemCount).toBe(count - 1);

      // The slow stream was ended by the server: reading it now drains what was buffered, then stops.
      let slowEvents: RawWatchEvent[] = [];
      try {
        slowEvents = await slow.rest(20_000);
      } catch (err) {
        expect(String(err)).not.toMatch(/no watch event within/);
      }
      const slowAdded = slowEvents.filter((e) => e.type === "ADDED");
      expect(slowAdded.length).toBeLessThan(count);
    } finally {
      slow.close();
      fast.close();
      await slowClient.close();
    }
  });
});

describe("watch: Table and PartialObjectMetadata events", () => {
  const h = useServer();

  it("each watch event object is a one-row Table (PartialObjectMetadata row object by default)", async () => {
    const ns = "w-table";
    await createNamespace(h.client, ns);
    const existing = await createConfigMap(h.client, ns, "existing");
    const w = await h.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true`, {
      headers: { accept: TABLE_ACCEPT },
    });
    try {
      const initial = await w.next();
      expect(initial?.type).toBe("ADDED");
      expect(initial?.object.kind).toBe("Table");
      expect(initial?.object.apiVersion).toBe("meta.k8s.io/v1");
      expect(initial?.object.rows).toHaveLength(1);
      expect(initial?.object.rows[0].cells[0]).toBe("existing");
      expect(initial?.object.rows[0].object).toMatchObject({
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: { name: "existing", resourceVersion: existing.metadata.resourceVersion },
      });
      await createConfigMap(h.client, ns, "fresh");
      await deleteConfigMap(h, ns, "fresh");
      const [added, deleted] = await w.take(2);
      for (const [ev, type] of [
        [added, "ADDED"],
        [deleted, "DELETED"],
      ] as const) {
        expect(ev?.type).toBe(type);
        expect(ev?.object.kind).toBe("Table");
        expect(ev?.object.rows).toHaveLength(1);
        expect(ev?.object.rows[0].cells[0]).toBe("fresh");
        expect(ev?.object.columnDefinitions[0]).toMatchObject({ name: "Name" });
      }
    } finally {
      w.close();
    }
  });

  it("includeObject=Object puts the whole object in the watch event's row", async () => {
    const ns = "w-table-object";
    await createNamespace(h.client, ns);
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&includeObject=Object&resourceVersion=${h.server.resourceVersion}`,
      { headers: { accept: TABLE_ACCEPT } },
    );
    try {
      await createConfigMap(h.client, ns, "full", { data: { k: "v" } });
      const ev = await w.next();
      expect(ev?.object.kind).toBe("Table");
      expect(ev?.object.rows[0].object).toMatchObject({
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: { name: "full" },
        data: { k: "v" },
      });
    } finally {
      w.close();
    }
  });

  it("with Accept PartialObjectMetadata each event object is a PartialObjectMetadata", async () => {
    const ns = "w-metadata";
    await createNamespace(h.client, ns);
    const w = await h.client.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}`,
      { headers: { accept: METADATA_ACCEPT } },
    );
    try {
      const created = await createConfigMap(h.client, ns, "meta", { data: { k: "v" } });
      const ev = await w.next();
      expect(ev?.type).toBe("ADDED");
      expect(ev?.object).toMatchObject({
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: { name: "meta", namespace: ns, uid: created.metadata.uid },
      });
      expect(ev?.object.data).toBeUndefined();
    } finally {
      w.close();
    }
  });
});
