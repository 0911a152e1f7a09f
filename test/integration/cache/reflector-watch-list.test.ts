import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  listerWatcherFor,
  type ReflectorOptions,
  INITIAL_EVENTS_END_ANNOTATION,
  Reflector,
  WatchListIncompleteError,
  noopLogger,
  isInvalid,
} from "kubekit";
import type { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { FakeClock } from "kubekit/testing";
import type { ConfigMap } from "./reflector-harness.js";
import {
  clientFor,
  createConfigMap,
  createNamespace,
  RecordingListerWatcher,
  RecordingStore,
  waitFor,
} from "./reflector-harness.js";

const servers: ApiServer[] = [];
const clients: RESTClient[] = [];
const stops: (() => Promise<void>)[] = [];

async function startServer(watchList: boolean): Promise<{ server: ApiServer; client: RESTClient }> {
  const server = await ApiServer.start({ clock: new FakeClock(), watchList });
  const client = clientFor(server);
  servers.push(server);
  clients.push(client);
  return { server, client };
}

let server: ApiServer;
let client: RESTClient;

beforeAll(async () => {
  ({ server, client } = await startServer(true));
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const c of clients) await c.transport.close();
});

function start(
  c: RESTClient,
  namespace: string,
  options: Partial<ReflectorOptions<ConfigMap>> = {},
) {
  const lw = new RecordingListerWatcher<ConfigMap>(
    listerWatcherFor<ConfigMap>(c, { group: "", version: "v1", resource: "configmaps", namespace }),
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
    useWatchList: true,
    expectedKind: "ConfigMap",
    watchErrorHandler: (err) => errors.push(err),
    ...options,
  });
  const controller = new AbortController();
  const done = reflector.run(controller.signal);
  stops.push(async () => {
    controller.abort();
    await done;
  });
  return { lw, store, clock, errors, reflector };
}

const WATCH_LIST_REQUEST = {
  resourceVersion: "",
  resourceVersionMatch: "NotOlderThan",
  sendInitialEvents: true,
  allowWatchBookmarks: true,
  timeoutSeconds: 300,
};

describe("Reflector against the embedded API server: WatchList", () => {
  it("replaces the store at the end bookmark and goes on watching on the same stream", async () => {
    await createNamespace(client, "wl-ok");
    await createConfigMap(client, "wl-ok", "a");
    await createConfigMap(client, "wl-ok", "b");
    const r = start(client, "wl-ok");
    await waitFor(() => r.reflector.hasSynced, "the initial events");

    expect(r.lw.requests.map((q) => q.verb)).toEqual(["watch"]);
    expect(r.lw.watches[0]).toEqual(WATCH_LIST_REQUEST);
    expect(r.store.calls).toHaveLength(1);
    const [replace] = r.store.ofType("replace");
    expect(replace?.keys).toEqual(["wl-ok/a", "wl-ok/b"]);
    expect(Number(replace?.rv)).toBeGreaterThan(0);
    expect(r.reflector.lastSyncResourceVersion).toBe(replace?.rv);
    expect(r.clock.pendingTimers()).toBe(0);

    const c = await createConfigMap(client, "wl-ok", "c");
    await waitFor(() => r.store.ofType("add").length === 1, "the ADDED event on the same stream");
    expect(r.store.ofType("add")[0]).toEqual({
      op: "add",
      key: "wl-ok/c",
      rv: c.metadata.resourceVersion,
    });
    expect(r.lw.requests).toHaveLength(1);
    expect(r.reflector.lastSyncResourceVersion).toBe(c.metadata.resourceVersion);

    // When that stream ends, the next watch is a plain one from the last RV.
    r.clock.advance(1_000);
    server.faults.closeWatches();
    await waitFor(() => r.lw.watches.length === 2, "the re-watch");
    expect(r.lw.watches[1]).toEqual({
      resourceVersion: c.metadata.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    expect(r.lw.lists).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  it("falls back to a list when the end bookmark never comes within watchListEndTimeoutMs", async () => {
    await createNamespace(client, "wl-lost");
    await createConfigMap(client, "wl-lost", "a");
    await createConfigMap(client, "wl-lost", "b");
    const r = start(client, "wl-lost", { watchListEndTimeoutMs: 20_000 });
    let initialEvents = 0;
    r.lw.eventFilter = (event) => {
      const annotations = event.type === "BOOKMARK" ? event.object.metadata.annotations : undefined;
      if (annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true") return undefined;
      if (event.type === "ADDED") initialEvents++;
      return event;
    };
    await waitFor(() => initialEvents === 2, "the initial ADDED events");
    await r.clock.waitForTimers(1);
    expect((r.clock.nextTimerAt() ?? 0) - r.clock.now()).toBe(20_000);
    r.clock.advance(19_999);
    expect(r.errors).toEqual([]);
    r.clock.advance(1);

    await waitFor(() => r.reflector.hasSynced && r.lw.watches.length === 2, "the fallback list");
    expect(r.errors).toHaveLength(1);
    const error = r.errors[0];
    expect(error).toBeInstanceOf(WatchListIncompleteError);
    expect((error as WatchListIncompleteError).reason).toBe("timeout");
    expect((error as WatchListIncompleteError).eventsReceived).toBe(2);
    expect(r.lw.requests.map((q) => q.verb)).toEqual(["watch", "list", "watch"]);
    expect(r.lw.lists[0]).toEqual({ resourceVersion: "0", limit: 500 });
    const [replace] = r.store.ofType("replace");
    expect(replace?.keys).toEqual(["wl-lost/a", "wl-lost/b"]);
    // The buffered initial events never reached the store.
    expect(r.store.calls).toHaveLength(1);
    expect(r.lw.watches[1]).toEqual({
      resourceVersion: replace?.rv,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
  });

  it("falls back to a list when the server rejects sendInitialEvents (422)", async () => {
    const old = await startServer(false);
    await createNamespace(old.client, "wl-off");
    await createConfigMap(old.client, "wl-off", "a");
    const r = start(old.client, "wl-off");
    await waitFor(() => r.reflector.hasSynced && r.lw.watches.length === 2, "the fallback list");
    expect(r.errors).toHaveLength(1);
    expect(isInvalid(r.errors[0])).toBe(true);
    expect(r.lw.requests.map((q) => q.verb)).toEqual(["watch", "list", "watch"]);
    expect(r.lw.watches[0]).toEqual(WATCH_LIST_REQUEST);
    expect(r.lw.lists[0]).toEqual({ resourceVersion: "0", limit: 500 });
    expect(r.store.ofType("replace")[0]?.keys).toEqual(["wl-off/a"]);
    expect(r.store.calls).toHaveLength(1);
  });
});
