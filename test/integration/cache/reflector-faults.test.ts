import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  listerWatcherFor,
  type ReflectorOptions,
  Reflector,
  UnsupportedListKindError,
  type LogFields,
  type Logger,
  type LogLevel,
  noopLogger,
  isInternalError,
  isServiceUnavailable,
  isTooManyRequests,
} from "kubekit";
import type { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import { TransportError, WatchIdleTimeoutError } from "../../../packages/kubekit/src/rest/index.js";
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

let server: ApiServer;
let client: RESTClient;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await ApiServer.start({ clock: new FakeClock() });
  client = clientFor(server);
});

afterEach(async () => {
  server.faults.clear();
  for (const stop of stops.splice(0)) await stop();
});

afterAll(async () => {
  await server.stop();
  await client.transport.close();
});

/** A logger that keeps every line, for assertions on what a default-configured process prints. */
function recordingLogger(): Logger & {
  entries: { level: LogLevel; message: string; fields?: LogFields }[];
} {
  const entries: { level: LogLevel; message: string; fields?: LogFields }[] = [];
  const log =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      entries.push({ level, message, ...(fields !== undefined ? { fields } : {}) });
    };
  return {
    entries,
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}

function start(
  namespace: string,
  options: Partial<ReflectorOptions<ConfigMap>> = {},
  accept?: string,
) {
  const lw = new RecordingListerWatcher<ConfigMap>(
    listerWatcherFor<ConfigMap>(client, {
      group: "",
      version: "v1",
      resource: "configmaps",
      namespace,
      ...(accept !== undefined ? { accept } : {}),
    }),
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

type Started = ReturnType<typeof start>;

/** The delay of the reflector's only pending timer (its backoff sleep), once it is armed. */
async function pendingBackoff(r: Started): Promise<number> {
  await r.clock.waitForTimers(1);
  expect(r.clock.pendingTimers()).toBe(1);
  return (r.clock.nextTimerAt() ?? 0) - r.clock.now();
}

async function synced(r: Started): Promise<void> {
  await waitFor(() => r.reflector.hasSynced && r.lw.watches.length === 1, "the first sync");
}

describe("Reflector against the embedded API server: faults", () => {
  it("backs off 800 ms, then 1.6 s on 429 lists, and lists again at RV 0", async () => {
    await createNamespace(client, "ft-429-list");
    await createConfigMap(client, "ft-429-list", "a");
    server.faults.failNext(2, { code: 429, verbs: ["list"] });
    const r = start("ft-429-list");

    await waitFor(() => r.errors.length === 1, "the first 429");
    expect(isTooManyRequests(r.errors[0])).toBe(true);
    expect(await pendingBackoff(r)).toBe(800);
    r.clock.advance(799);
    expect(r.lw.lists).toHaveLength(1);
    r.clock.advance(1);
    await waitFor(() => r.errors.length === 2, "the second 429");
    expect(await pendingBackoff(r)).toBe(1_600);
    expect(r.store.calls).toEqual([]);
    expect(r.reflector.hasSynced).toBe(false);
    expect(r.reflector.lastError?.error).toBe(r.errors[1]);
    r.clock.advance(1_600);

    await synced(r);
    expect(r.lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "0", limit: 500 },
    ]);
    expect(r.store.ofType("replace")[0]?.keys).toEqual(["ft-429-list/a"]);
    expect(r.reflector.lastError?.at).toBe(r.clock.now() - 1_600);
  });

  it("jitters the backoff with the injected random source", async () => {
    await createNamespace(client, "ft-jitter");
    server.faults.failNext(1, { code: 500, verbs: ["list"] });
    const r = start("ft-jitter", { random: () => 0.5 });
    await waitFor(() => r.errors.length === 1, "the 500");
    expect(isInternalError(r.errors[0])).toBe(true);
    expect(await pendingBackoff(r)).toBe(1_200);
    r.clock.advance(1_200);
    await synced(r);
  });

  it("re-watches without relisting after a 429 on the watch", async () => {
    await createNamespace(client, "ft-429-watch");
    const r = start("ft-429-watch");
    await synced(r);
    await awaitWatching(r.store, client, "ft-429-watch");
    const rv = r.reflector.lastSyncResourceVersion;
    server.faults.failNext(1, { code: 429, verbs: ["watch"] });
    r.clock.advance(1_000);
    server.faults.closeWatches();

    await waitFor(() => r.errors.length === 1, "the 429 on the re-watch");
    expect(isTooManyRequests(r.errors[0])).toBe(true);
    expect(await pendingBackoff(r)).toBe(800);
    r.clock.advance(800);
    await waitFor(() => r.lw.watches.length === 3, "the watch after the backoff");
    expect(r.lw.watches.slice(1).map((w) => w.resourceVersion)).toEqual([rv, rv]);
    expect(r.lw.lists).toHaveLength(1);
    await createConfigMap(client, "ft-429-watch", "later");
    await waitFor(() => r.store.ofType("add").length === 2, "an event on the new watch");
  });

  it.each([
    [500, isInternalError],
    [503, isServiceUnavailable],
  ])("relists 'not older than' the last RV after a %i on the watch", async (code, predicate) => {
    const namespace = `ft-${code}-watch`;
    await createNamespace(client, namespace);
    const r = start(namespace);
    await synced(r);
    await awaitWatching(r.store, client, namespace);
    const rv = r.reflector.lastSyncResourceVersion;
    server.faults.failNext(1, { code, verbs: ["watch"] });
    r.clock.advance(1_000);
    server.faults.closeWatches();

    await waitFor(() => r.errors.length === 1, `the ${code}`);
    expect(predicate(r.errors[0])).toBe(true);
    r.clock.advance(await pendingBackoff(r));
    await waitFor(() => r.lw.watches.length === 3, "the watch after the relist");
    expect(r.lw.lists).toEqual([{ resourceVersion: "0", limit: 500 }, { resourceVersion: rv }]);
    expect(r.store.ofType("replace")).toHaveLength(2);
  });

  it("detects a stalled (half-open) watch by its idle deadline and re-watches from the last RV", async () => {
    await createNamespace(client, "ft-stall");
    const r = start("ft-stall", { minWatchTimeoutMs: 1_000, idleGraceMs: 200 });
    await synced(r);
    const created = await createConfigMap(client, "ft-stall", "before");
    await waitFor(() => r.store.ofType("add").length === 1, "the event before the stall");
    expect(r.lw.requests[1]?.watchOptions).toEqual({ idleGraceMs: 200 });
    expect(r.lw.watches[0]?.timeoutSeconds).toBe(1);
    server.faults.stallWatches();
    await createConfigMap(client, "ft-stall", "during");

    // timeoutSeconds (1 s) + idleGraceMs (200 ms) of silence on the REST client's real clock.
    await waitFor(() => r.errors.length === 1, "the idle deadline");
    expect(r.errors[0]).toBeInstanceOf(WatchIdleTimeoutError);
    expect(r.store.ofType("add")).toHaveLength(1);
    r.clock.advance(await pendingBackoff(r));

    await waitFor(() => r.store.ofType("add").length === 2, "the event missed during the stall");
    expect(r.lw.watches[1]?.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(r.lw.lists).toHaveLength(1);
    expect(r.store.keys()).toEqual(["ft-stall/before", "ft-stall/during"]);
  });

  it("recovers from a server restart: relists, and the store converges", async () => {
    await createNamespace(client, "ft-restart");
    for (const name of ["a", "b"]) await createConfigMap(client, "ft-restart", name);
    const r = start("ft-restart");
    await synced(r);
    await awaitWatching(r.store, client, "ft-restart");
    const rv = r.reflector.lastSyncResourceVersion;

    await server.faults.restart();
    await waitFor(() => r.errors.length >= 1, "the broken watch");
    expect(r.errors[0]).toBeInstanceOf(TransportError);
    await deleteConfigMap(client, "ft-restart", "a");
    await updateConfigMap(client, "ft-restart", "b", { v: "2" });
    await createConfigMap(client, "ft-restart", "c");

    // Drive the backoff clock until the reflector is watching again after a relist.
    await waitFor(() => {
      if (r.clock.pendingTimers() > 0)
        r.clock.advance((r.clock.nextTimerAt() ?? 0) - r.clock.now());
      return r.store.ofType("replace").length === 2 && r.lw.watches.length >= 2;
    }, "the relist after the restart");
    expect(r.lw.lists[1]).toEqual({ resourceVersion: rv });
    const relist = r.store.ofType("replace")[1];
    expect(relist?.keys).toEqual(["ft-restart/b", "ft-restart/c", "ft-restart/probe"]);
    expect(relist?.removed).toEqual(["ft-restart/a"]);
    expect(r.store.state.get("ft-restart/b")?.data).toEqual({ v: "2" });

    await createConfigMap(client, "ft-restart", "d");
    await waitFor(() => r.store.ofType("add").length === 2, "an event after the restart");
    const stored = ["b", "c", "d"].map((n) =>
      server.storedObject("", "configmaps", `ft-restart/${n}`),
    );
    expect(stored.every((o) => o !== undefined)).toBe(true);
    expect(r.store.keys()).toEqual([
      "ft-restart/b",
      "ft-restart/c",
      "ft-restart/d",
      "ft-restart/probe",
    ]);
  });

  it("logs a server restart as one info line naming the resource and the relist; nothing louder", async () => {
    await createNamespace(client, "ft-restart-log");
    await createConfigMap(client, "ft-restart-log", "a");
    const logger = recordingLogger();
    const r = start("ft-restart-log", {
      name: "/v1/configmaps",
      logger,
      watchErrorHandler: undefined,
    });
    await synced(r);
    await awaitWatching(r.store, client, "ft-restart-log");
    const rv = r.reflector.lastSyncResourceVersion;

    await server.faults.restart();
    await waitFor(() => {
      if (r.clock.pendingTimers() > 0)
        r.clock.advance((r.clock.nextTimerAt() ?? 0) - r.clock.now());
      return r.store.ofType("replace").length === 2 && r.lw.watches.length >= 2;
    }, "the relist after the restart");
    const loud = logger.entries.filter((e) => e.level !== "debug");
    expect(loud).toHaveLength(1);
    expect(loud[0]?.level).toBe("info");
    expect(loud[0]?.message).toMatch(
      new RegExp(`^watch of /v1/configmaps failed: .+; relisting from ${rv} in 0\\.8 s$`),
    );
    expect(loud[0]?.fields).toBeUndefined();
    expect(
      logger.entries.some((e) => e.level === "debug" && e.fields?.["error"] instanceof Error),
    ).toBe(true);
  });

  it("fails a list answered as a Table loudly and never syncs an empty store", async () => {
    await createNamespace(client, "ft-table");
    await createConfigMap(client, "ft-table", "a");
    const r = start("ft-table", {}, "application/json;as=Table;v=v1;g=meta.k8s.io");
    await waitFor(() => r.errors.length >= 1, "the unsupported list");
    expect(r.errors[0]).toBeInstanceOf(UnsupportedListKindError);
    expect((r.errors[0] as UnsupportedListKindError).apiVersion).toBe("meta.k8s.io/v1");
    expect(await pendingBackoff(r)).toBe(800);
    r.clock.advance(800);
    await waitFor(() => r.errors.length >= 2, "the retried list failing again");
    expect(r.lw.lists).toHaveLength(2);
    expect(r.store.calls).toEqual([]);
    expect(r.reflector.hasSynced).toBe(false);
  });
});
