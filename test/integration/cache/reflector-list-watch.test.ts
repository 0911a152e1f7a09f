import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  listerWatcherFor,
  metadataListerWatcherFor,
  type ReflectorOptions,
  Reflector,
  noopLogger,
  isResourceExpired,
} from "kubekit";
import type { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { FakeClock } from "kubekit/testing";
import type { ConfigMap } from "./reflector-harness.js";
import {
  clientFor,
  createConfigMap,
  createNamespace,
  deleteConfigMap,
  awaitWatching,
  RecordingListerWatcher,
  RecordingStore,
  updateConfigMap,
  waitFor,
} from "./reflector-harness.js";

const BOOKMARK_INTERVAL_MS = 1_000;

let server: ApiServer;
let serverClock: FakeClock;
let client: RESTClient;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  serverClock = new FakeClock();
  server = await ApiServer.start({ clock: serverClock, bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
  client = clientFor(server);
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

afterAll(async () => {
  await server.stop();
  await client.transport.close();
});

function start(
  namespace: string,
  options: Partial<ReflectorOptions<ConfigMap>> = {},
  lwFor = listerWatcherFor<ConfigMap>,
) {
  const lw = new RecordingListerWatcher<ConfigMap>(
    lwFor(client, { group: "", version: "v1", resource: "configmaps", namespace }),
  );
  const store = new RecordingStore();
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const reflector = new Reflector<ConfigMap>({
    listerWatcher: lw,
    store,
    clock,
    logger: noopLogger,
    random: () => 0,
    watchErrorHandler: (err) => errors.push(err),
    ...options,
  });
  const controller = new AbortController();
  const done = reflector.run(controller.signal);
  stops.push(async () => {
    controller.abort();
    await done;
  });
  return { lw, store, clock, errors, reflector, done };
}

type Started = ReturnType<typeof start>;

async function synced(r: Started, watches = 1): Promise<void> {
  await waitFor(
    () => r.reflector.hasSynced && r.lw.watches.length >= watches,
    `the reflector to list and open watch #${watches}`,
  );
}

/** Ends every open watch cleanly after the reflector's watch has been open for a while. */
function endWatchesCleanly(r: Started): void {
  r.clock.advance(1_000);
  server.faults.closeWatches();
}

describe("Reflector against the embedded API server: list and watch", () => {
  it("lists first at resourceVersion 0 with the default page size, then watches from the list RV", async () => {
    await createNamespace(client, "rf-first");
    await createConfigMap(client, "rf-first", "a");
    await createConfigMap(client, "rf-first", "b");
    const r = start("rf-first");
    await synced(r);

    expect(r.lw.lists).toEqual([{ resourceVersion: "0", limit: 500 }]);
    const [replace] = r.store.ofType("replace");
    expect(replace?.keys).toEqual(["rf-first/a", "rf-first/b"]);
    expect(replace?.removed).toEqual([]);
    expect(r.reflector.lastSyncResourceVersion).toBe(replace?.rv);
    expect(r.reflector.lastSyncTime).toBe(r.clock.now());
    expect(r.lw.watches).toEqual([
      { resourceVersion: replace?.rv, allowWatchBookmarks: true, timeoutSeconds: 300 },
    ]);
    expect(r.store.calls).toHaveLength(1);

    const c = await createConfigMap(client, "rf-first", "c");
    const b = await updateConfigMap(client, "rf-first", "b", { k: "v" });
    await deleteConfigMap(client, "rf-first", "a");
    await waitFor(() => r.store.calls.length === 4, "three watch events");
    const events = r.store.calls.slice(1);
    expect(events.slice(0, 2)).toEqual([
      { op: "add", key: "rf-first/c", rv: c.metadata.resourceVersion },
      { op: "update", key: "rf-first/b", rv: b.metadata.resourceVersion },
    ]);
    const deleted = events[2];
    expect(deleted?.op).toBe("delete");
    const deletedRv = deleted !== undefined && "rv" in deleted ? deleted.rv : "";
    expect(Number(deletedRv)).toBeGreaterThan(Number(b.metadata.resourceVersion));
    expect(r.reflector.lastSyncResourceVersion).toBe(deletedRv);
    expect(r.store.keys()).toEqual(["rf-first/b", "rf-first/c"]);
    expect(r.errors).toEqual([]);
  });

  it("follows continue tokens across pages, without resourceVersion on continue requests", async () => {
    await createNamespace(client, "rf-pages");
    for (let i = 0; i < 7; i++) await createConfigMap(client, "rf-pages", `cm-${i}`);
    const r = start("rf-pages", { pageSize: 3 });
    await synced(r);

    const lists = r.lw.lists;
    expect(lists).toHaveLength(3);
    expect(lists[0]).toEqual({ resourceVersion: "0", limit: 3 });
    for (const page of lists.slice(1)) {
      expect(page.limit).toBe(3);
      expect(page.continue).toEqual(expect.any(String));
      expect(page.resourceVersion).toBeUndefined();
    }
    expect(lists[1]?.continue).not.toBe(lists[2]?.continue);
    const [replace] = r.store.ofType("replace");
    expect(replace?.keys).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `rf-pages/cm-${i}`));
    expect(r.store.calls).toHaveLength(1);
  });

  it("re-watches from the last event's RV when a watch ends cleanly, without relisting", async () => {
    await createNamespace(client, "rf-clean");
    const r = start("rf-clean");
    await synced(r);
    const created = await createConfigMap(client, "rf-clean", "x");
    await waitFor(() => r.store.ofType("add").length === 1, "the ADDED event");

    endWatchesCleanly(r);
    await waitFor(() => r.lw.watches.length === 2, "the re-watch");
    expect(r.lw.watches[1]).toEqual({
      resourceVersion: created.metadata.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    await createConfigMap(client, "rf-clean", "y");
    await waitFor(() => r.store.ofType("add").length === 2, "an event on the new watch");
    expect(r.lw.lists).toHaveLength(1);
    expect(r.store.ofType("replace")).toHaveLength(1);
    expect(r.errors).toEqual([]);
  });

  it("advances the RV on bookmarks, tells the store, and re-watches from the bookmark's RV", async () => {
    await createNamespace(client, "rf-bookmark");
    const r = start("rf-bookmark");
    await synced(r);
    await awaitWatching(r.store, client, "rf-bookmark");
    const eventRv = r.reflector.lastSyncResourceVersion;
    // A write to another resource moves the global RV; the configmap watch sees no event.
    await client
      .post()
      .version("v1")
      .namespace("rf-bookmark")
      .resource("secrets")
      .body({ metadata: { name: "s" } })
      .do();
    const globalRv = server.resourceVersion;
    expect(Number(globalRv)).toBeGreaterThan(Number(eventRv));

    serverClock.advance(BOOKMARK_INTERVAL_MS);
    await waitFor(() => r.store.ofType("bookmark").length === 1, "the bookmark");
    expect(r.store.ofType("bookmark")[0]?.rv).toBe(globalRv);
    expect(r.reflector.lastSyncResourceVersion).toBe(globalRv);
    expect(r.store.calls.map((c) => c.op)).toEqual(["replace", "add", "bookmark"]);

    endWatchesCleanly(r);
    await waitFor(() => r.lw.watches.length === 2, "the re-watch");
    expect(r.lw.watches[1]?.resourceVersion).toBe(globalRv);
    expect(r.lw.lists).toHaveLength(1);
  });

  it("relists 'not older than' the last RV after 410 on the watch; objects deleted meanwhile drop out of replace", async () => {
    await createNamespace(client, "rf-gone");
    for (const name of ["a", "b", "c"]) await createConfigMap(client, "rf-gone", name);
    const r = start("rf-gone");
    await synced(r);
    const probe = await awaitWatching(r.store, client, "rf-gone");
    const lastRv = r.reflector.lastSyncResourceVersion;
    expect(lastRv).toBe(probe.metadata.resourceVersion);

    r.lw.holdWatches();
    endWatchesCleanly(r);
    await waitFor(() => r.lw.watches.length === 2, "the held re-watch");
    await deleteConfigMap(client, "rf-gone", "b");
    await createConfigMap(client, "rf-gone", "d");
    server.faults.compactHistory();
    r.lw.release();

    await waitFor(() => r.errors.length === 1, "the 410 report");
    expect(isResourceExpired(r.errors[0])).toBe(true);
    expect(r.reflector.lastError?.error).toBe(r.errors[0]);
    await r.clock.waitForTimers(1);
    expect((r.clock.nextTimerAt() ?? 0) - r.clock.now()).toBe(800);
    expect(r.lw.lists).toHaveLength(1);
    r.clock.advance(800);

    await waitFor(() => r.store.ofType("replace").length === 2, "the relist");
    expect(r.lw.lists[1]).toEqual({ resourceVersion: lastRv });
    const relist = r.store.ofType("replace")[1];
    expect(relist?.keys).toEqual(["rf-gone/a", "rf-gone/c", "rf-gone/d", "rf-gone/probe"]);
    expect(relist?.removed).toEqual(["rf-gone/b"]);
    await waitFor(() => r.lw.watches.length === 3, "the watch after the relist");
    expect(r.lw.watches[2]?.resourceVersion).toBe(relist?.rv);
    expect(r.store.calls.map((c) => c.op)).toEqual(["replace", "add", "replace"]);
  });

  it("lists at RV '' when a list at the last RV is 410 Expired (explicit page size: exact reads)", async () => {
    await createNamespace(client, "rf-list-gone");
    for (const name of ["a", "b", "c"]) await createConfigMap(client, "rf-list-gone", name);
    const r = start("rf-list-gone", { pageSize: 2 });
    await synced(r);
    await awaitWatching(r.store, client, "rf-list-gone");
    const lastRv = r.reflector.lastSyncResourceVersion;
    expect(r.lw.lists).toHaveLength(2);

    r.lw.holdWatches();
    endWatchesCleanly(r);
    await waitFor(() => r.lw.watches.length === 2, "the held re-watch");
    await deleteConfigMap(client, "rf-list-gone", "a");
    server.faults.compactHistory();
    r.lw.release();
    await r.clock.waitForTimers(1);
    r.clock.advance(800);

    await waitFor(() => r.store.ofType("replace").length === 2, "the relist");
    const lists = r.lw.lists.slice(2);
    expect(lists[0]).toEqual({ resourceVersion: lastRv, limit: 2 });
    expect(lists[1]).toEqual({ resourceVersion: "", limit: 2 });
    expect(lists[2]).toEqual({ limit: 2, continue: expect.any(String) });
    expect(lists).toHaveLength(3);
    expect(r.store.ofType("replace")[1]?.keys).toEqual([
      "rf-list-gone/b",
      "rf-list-gone/c",
      "rf-list-gone/probe",
    ]);
    expect(r.errors).toHaveLength(1);
  });

  it("lists at RV '' at once when the first list at RV 0 answers 410", async () => {
    await createNamespace(client, "rf-first-gone");
    await createConfigMap(client, "rf-first-gone", "a");
    server.faults.failNext(1, { code: 410, verbs: ["list"] });
    const r = start("rf-first-gone");
    await synced(r);
    expect(r.lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "", limit: 500 },
    ]);
    expect(r.store.ofType("replace")[0]?.keys).toEqual(["rf-first-gone/a"]);
    expect(r.errors).toEqual([]);
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it("applies the selectors and the tweak to both list and watch", async () => {
    await createNamespace(client, "rf-tweak");
    await client
      .post()
      .version("v1")
      .namespace("rf-tweak")
      .resource("configmaps")
      .body({ metadata: { name: "yes-1", labels: { app: "web" } } })
      .do();
    await createConfigMap(client, "rf-tweak", "no-1");
    const tweaked: string[] = [];
    const r = start("rf-tweak", {}, (c, target) =>
      listerWatcherFor<ConfigMap>(c, {
        ...target,
        tweak: (options) => {
          tweaked.push(options.limit !== undefined ? "list" : "watch");
          return { ...options, labelSelector: "app=web" };
        },
      }),
    );
    await synced(r);
    expect(r.store.ofType("replace")[0]?.keys).toEqual(["rf-tweak/yes-1"]);
    expect(tweaked).toEqual(["list", "watch"]);
    await createConfigMap(client, "rf-tweak", "no-2");
    await client
      .post()
      .version("v1")
      .namespace("rf-tweak")
      .resource("configmaps")
      .body({ metadata: { name: "yes-2", labels: { app: "web" } } })
      .do();
    await waitFor(() => r.store.ofType("add").length === 1, "the labelled ADDED event");
    expect(r.store.ofType("add")[0]?.key).toBe("rf-tweak/yes-2");
  });

  it("lists and watches metadata only with the metadata ListerWatcher", async () => {
    await createNamespace(client, "rf-meta");
    await createConfigMap(client, "rf-meta", "a", { secret: "value" });
    const r = start("rf-meta", {}, metadataListerWatcherFor<ConfigMap>);
    await synced(r);
    const listed = r.store.state.get("rf-meta/a");
    expect(listed?.kind).toBe("PartialObjectMetadata");
    expect(listed?.apiVersion).toBe("meta.k8s.io/v1");
    expect(listed?.data).toBeUndefined();
    await createConfigMap(client, "rf-meta", "b", { secret: "value" });
    await waitFor(() => r.store.ofType("add").length === 1, "the ADDED event");
    const watched = r.store.state.get("rf-meta/b");
    expect(watched?.kind).toBe("PartialObjectMetadata");
    expect(watched?.data).toBeUndefined();
  });
});
