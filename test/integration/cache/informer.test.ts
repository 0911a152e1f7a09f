import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Lister,
  DeletedFinalStateUnknown,
  waitForCacheSync,
  noopLogger,
  isNotFound,
} from "kubekit";
import type {
  ResourceEventHandler,
  SharedIndexInformerOptions,
} from "../../../packages/kubekit/src/cache/shared-index-informer.js";
import { stripManagedFields } from "../../../packages/kubekit/src/cache/shared-index-informer.js";
import { newWireInformer } from "../../support/informer-mode.js";
import type { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { FakeClock } from "kubekit/testing";
import {
  clientFor,
  createNamespace,
  RecordingListerWatcher,
  waitFor,
} from "./reflector-harness.js";

interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    managedFields?: unknown[];
  };
  spec?: { containers: { name: string; image: string }[] };
}

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

async function createPod(namespace: string, name: string, labels: Record<string, string> = {}) {
  const res = await client
    .post()
    .version("v1")
    .namespace(namespace)
    .resource("pods")
    .body({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    })
    .do<Pod>();
  return res.body;
}

async function labelPod(namespace: string, name: string, labels: Record<string, string>) {
  const res = await client
    .patch("application/merge-patch+json")
    .version("v1")
    .namespace(namespace)
    .resource("pods")
    .name(name)
    .body({ metadata: { labels } })
    .do<Pod>();
  return res.body;
}

async function deletePod(namespace: string, name: string): Promise<void> {
  await client.delete().version("v1").namespace(namespace).resource("pods").name(name).do();
}

function keyOf(pod: Pod | DeletedFinalStateUnknown<Pod>): string {
  if (pod instanceof DeletedFinalStateUnknown) return pod.key;
  return `${pod.metadata.namespace ?? ""}/${pod.metadata.name}`;
}

/** Records every notification as `{ type, key, rv }` (rv "" for a tombstone without object). */
class EventLog implements ResourceEventHandler<Pod> {
  readonly events: { type: string; key: string; rv: string; initial?: boolean }[] = [];
  onAdd(pod: Pod, isInInitialList: boolean): void {
    this.events.push({
      type: "add",
      key: keyOf(pod),
      rv: pod.metadata.resourceVersion ?? "",
      initial: isInInitialList,
    });
  }
  onUpdate(_old: Pod, pod: Pod): void {
    this.events.push({ type: "update", key: keyOf(pod), rv: pod.metadata.resourceVersion ?? "" });
  }
  onDelete(pod: Pod | DeletedFinalStateUnknown<Pod>): void {
    const tombstone = pod instanceof DeletedFinalStateUnknown;
    const last = tombstone ? pod.obj : pod;
    this.events.push({
      type: tombstone ? "tombstone" : "delete",
      key: keyOf(pod),
      rv: last?.metadata.resourceVersion ?? "",
    });
  }
  of(key: string): string[] {
    return this.events.filter((e) => e.key === key).map((e) => e.type);
  }
}

function start(namespace: string, options: Partial<SharedIndexInformerOptions<Pod>> = {}) {
  let lw: RecordingListerWatcher<unknown> | undefined;
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const informer = newWireInformer<Pod>(
    client,
    { group: "", version: "v1", resource: "pods", namespace },
    { name: "pods", clock, logger: noopLogger, ...options },
    (inner) => {
      const recording = new RecordingListerWatcher(inner);
      lw = recording as RecordingListerWatcher<unknown>;
      return recording;
    },
  );
  if (lw === undefined) throw new Error("no ListerWatcher");
  informer.setWatchErrorHandler((err) => errors.push(err));
  const log = new EventLog();
  const registration = informer.addEventHandler(log);
  const lister = new Lister<Pod>(informer.indexer, { group: "", resource: "pods" });
  const controller = new AbortController();
  const done = informer.run(controller.signal);
  stops.push(async () => {
    controller.abort();
    await done;
  });
  return { lw, clock, errors, informer, log, registration, lister, controller };
}

/** Creates a probe pod and waits for the handler to see it: the watch is established. */
async function awaitWatching(
  s: ReturnType<typeof start>,
  namespace: string,
  name: string,
): Promise<void> {
  await createPod(namespace, name);
  await waitFor(() => s.log.of(`${namespace}/${name}`).includes("add"), `the watch to see ${name}`);
}

/** Per key, the resourceVersions of its notifications never go backwards. */
function expectRvOrderPerKey(log: EventLog): void {
  const last = new Map<string, number>();
  for (const e of log.events) {
    if (e.rv === "") continue;
    const rv = Number(e.rv);
    expect(rv, `${e.type} ${e.key}@${e.rv}`).toBeGreaterThanOrEqual(last.get(e.key) ?? 0);
    last.set(e.key, rv);
  }
}

const variants: [string, Partial<SharedIndexInformerOptions<Pod>>][] = [
  ["in-order queue", { queue: "in-order" }],
  ["delta-fifo queue", { queue: "delta-fifo" }],
  ["WatchList", { reflector: { useWatchList: true } }],
];

describe.each(variants)(
  "SharedIndexInformer against the embedded API server (%s)",
  (label, options) => {
    const ns = `inf-${label.split(" ")[0]?.toLowerCase() ?? "x"}`;

    it("informer → handler → lister end to end", async () => {
      await createNamespace(client, ns);
      await createPod(ns, "web-0", { app: "web" });
      await createPod(ns, "db-0", { app: "db" });
      const s = start(ns, options);
      const controller = new AbortController();
      expect(await waitForCacheSync(controller.signal, s.informer, s.registration)).toBe(true);
      expect(s.log.events.map((e) => `${e.type} ${e.key} ${String(e.initial)}`).sort()).toEqual([
        `add ${ns}/db-0 true`,
        `add ${ns}/web-0 true`,
      ]);
      expect(
        s.lister
          .namespace(ns)
          .list("app=web")
          .map((p) => p.metadata.name),
      ).toEqual(["web-0"]);

      await createPod(ns, "web-1", { app: "web" });
      await labelPod(ns, "db-0", { app: "web" });
      await labelPod(ns, "web-0", { app: "web", tier: "fe" });
      await deletePod(ns, "web-1");
      const last = await labelPod(ns, "web-0", { app: "web", tier: "be" });
      await waitFor(
        () =>
          s.lister.namespace(ns).get("web-0").metadata.resourceVersion ===
          last.metadata.resourceVersion,
        "the last update to reach the cache",
      );
      await waitFor(() => s.log.events.length === 7, "every notification");

      expect(s.log.of(`${ns}/web-1`)).toEqual(["add", "delete"]);
      expect(s.log.of(`${ns}/web-0`)).toEqual(["add", "update", "update"]);
      expect(s.log.of(`${ns}/db-0`)).toEqual(["add", "update"]);
      expectRvOrderPerKey(s.log);
      expect(s.log.events.filter((e) => e.initial === false).map((e) => e.key)).toEqual([
        `${ns}/web-1`,
      ]);

      const pods = s.lister.namespace(ns);
      expect(
        pods
          .list()
          .map((p) => p.metadata.name)
          .sort(),
      ).toEqual(["db-0", "web-0"]);
      expect(
        pods
          .list("app=web")
          .map((p) => p.metadata.name)
          .sort(),
      ).toEqual(["db-0", "web-0"]);
      expect(pods.get("web-0").metadata.labels).toEqual({ app: "web", tier: "be" });
      expect(isNotFound(catchError(() => pods.get("web-1")))).toBe(true);
      expect(s.informer.lastSyncResourceVersion).not.toBe("");
      // A WatchList streams the initial state instead of listing it.
      const watchList = options.reflector?.useWatchList === true;
      expect(s.lw.lists).toHaveLength(watchList ? 0 : 1);
      expect(s.lw.watches[0]?.sendInitialEvents === true).toBe(watchList);
    });
  },
);

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("SharedIndexInformer against the embedded API server: recovery", () => {
  it("re-watches without relisting after the server closes its watches", async () => {
    const ns = "inf-close";
    await createNamespace(client, ns);
    await createPod(ns, "a");
    const s = start(ns);
    await waitForCacheSync(new AbortController().signal, s.informer);
    await awaitWatching(s, ns, "probe");
    const watchesBefore = s.lw.watches.length;

    server.faults.closeWatches();
    await waitFor(() => s.lw.watches.length === watchesBefore + 1, "the re-watch");
    await createPod(ns, "b");
    await deletePod(ns, "a");
    await waitFor(() => s.log.of(`${ns}/a`).includes("delete"), "the delete after the re-watch");
    expect(s.log.of(`${ns}/b`)).toEqual(["add"]);
    expect(s.lw.lists).toHaveLength(1);
    expect(
      s.lister
        .namespace(ns)
        .list()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(["b", "probe"]);
    expectRvOrderPerKey(s.log);
  });

  it("relists after compaction and delivers tombstones for objects deleted meanwhile", async () => {
    const ns = "inf-compact";
    await createNamespace(client, ns);
    await createPod(ns, "a");
    await createPod(ns, "b");
    const s = start(ns);
    await waitForCacheSync(new AbortController().signal, s.informer);
    await awaitWatching(s, ns, "probe");
    const lastB = s.lister.namespace(ns).get("b");

    // Cut the watch and hold the re-watch while the world changes and history is compacted.
    s.lw.holdWatches();
    const watchesBefore = s.lw.watches.length;
    server.faults.closeWatches();
    await waitFor(() => s.lw.watches.length === watchesBefore + 1, "the held re-watch");
    await deletePod(ns, "b");
    await labelPod(ns, "a", { changed: "yes" });
    await createPod(ns, "c");
    server.faults.compactHistory();
    s.lw.release();

    await waitFor(() => s.errors.length >= 1, "the 410 of the re-watch");
    await s.clock.waitForTimers(1);
    s.clock.advance((s.clock.nextTimerAt() ?? s.clock.now()) - s.clock.now());
    await waitFor(() => s.log.of(`${ns}/b`).includes("tombstone"), "the tombstone");
    await waitFor(() => s.log.of(`${ns}/c`).includes("add"), "the add from the relist");

    const tombstone = s.log.events.find((e) => e.type === "tombstone");
    expect(tombstone).toEqual({
      type: "tombstone",
      key: `${ns}/b`,
      rv: lastB.metadata.resourceVersion,
    });
    expect(s.log.of(`${ns}/a`)).toEqual(["add", "update"]);
    expect(s.lw.lists).toHaveLength(2);
    const pods = s.lister.namespace(ns);
    expect(
      pods
        .list()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(["a", "c", "probe"]);
    expect(pods.get("a").metadata.labels).toEqual({ changed: "yes" });
    expect(isNotFound(catchError(() => pods.get("b")))).toBe(true);
    expectRvOrderPerKey(s.log);
  });

  it("strips managedFields and freezes cached objects when asked", async () => {
    const ns = "inf-transform";
    await createNamespace(client, ns);
    const created = await createPod(ns, "a");
    expect(created.metadata.managedFields?.length ?? 0).toBeGreaterThan(0);
    const s = start(ns, { transform: stripManagedFields, detectMutations: true });
    await waitForCacheSync(new AbortController().signal, s.informer, s.registration);
    const cached = s.lister.namespace(ns).get("a");
    expect(cached.metadata).not.toHaveProperty("managedFields");
    expect(() => {
      cached.metadata.labels = { x: "y" };
    }).toThrow(TypeError);
  });

  it("lets a handler added after sync catch up from the cache", async () => {
    const ns = "inf-late";
    await createNamespace(client, ns);
    await createPod(ns, "a");
    await createPod(ns, "b");
    const s = start(ns);
    await waitForCacheSync(new AbortController().signal, s.informer);
    const late = new EventLog();
    const reg = s.informer.addEventHandler(late);
    expect(await reg.waitForSync()).toBe(true);
    expect(late.events.map((e) => `${e.type} ${e.key} ${String(e.initial)}`).sort()).toEqual([
      `add ${ns}/a true`,
      `add ${ns}/b true`,
    ]);
    await awaitWatching(s, ns, "probe");
    await waitFor(
      () => late.of(`${ns}/probe`).includes("add"),
      "the late handler to see the probe",
    );
  });
});
