import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Logger,
  noopLogger,
  isNotFound,
  StatusError,
  type RestConfig,
  TransportError,
  RESTClient,
  type WatchEvent,
  WatchIdleTimeoutError,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

interface ConfigMap {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

let server: ApiServer;
let client: RESTClient;
const logger: Logger = noopLogger;

beforeAll(async () => {
  server = await ApiServer.start({ tls: true, auth: { tokens: { t: "alice" } } });
  const config: RestConfig = {
    host: server.url,
    tls: { caPem: server.caPem ?? "" },
    credentials: {
      kind: "token",
      get: () => Promise.resolve({ headers: { Authorization: "Bearer t" } }),
      invalidate: () => undefined,
    },
    qps: -1,
    burst: 0,
  };
  client = new RESTClient(config, { logger });
});

afterAll(async () => {
  await server.stop();
});

const configMaps = (namespace: string) =>
  client.get().version("v1").namespace(namespace).resource("configmaps");

async function createNamespace(name: string): Promise<void> {
  await client.post().version("v1").resource("namespaces").body({ metadata: { name } }).do();
}

async function createConfigMap(
  namespace: string,
  name: string,
  data: Record<string, string> = {},
): Promise<ConfigMap> {
  const res = await client
    .post()
    .version("v1")
    .namespace(namespace)
    .resource("configmaps")
    .body({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data })
    .do<ConfigMap>();
  return res.body;
}

describe("watch against the embedded API server", () => {
  it("streams ADDED, MODIFIED and DELETED events from a resourceVersion", async () => {
    await createNamespace("w-events");
    const start = await configMaps("w-events").do<{ metadata: { resourceVersion: string } }>();
    const watch = configMaps("w-events")
      .listOptions({ resourceVersion: start.body.metadata.resourceVersion })
      .watch<ConfigMap>();
    const it = watch[Symbol.asyncIterator]();
    const first = it.next();
    await createConfigMap("w-events", "a", { k: "1" });
    await client
      .patch("application/merge-patch+json")
      .version("v1")
      .namespace("w-events")
      .resource("configmaps")
      .name("a")
      .body({ data: { k: "2" } })
      .do();
    await client.delete().version("v1").namespace("w-events").resource("configmaps").name("a").do();
    const events = [await first, await it.next(), await it.next()].map(
      (r) => r.value as WatchEvent<ConfigMap>,
    );
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events.map((e) => (e.type === "ERROR" ? "" : e.object.data?.["k"]))).toEqual([
      "1",
      "2",
      "2",
    ]);
    watch.close();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it("delivers the end-of-initial-events BOOKMARK of a streaming list", async () => {
    await createNamespace("w-list");
    await createConfigMap("w-list", "one");
    const seen: string[] = [];
    for await (const ev of configMaps("w-list")
      .listOptions({
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      })
      .watch<ConfigMap>()) {
      if (ev.type === "ERROR") throw new Error(ev.object.message);
      seen.push(`${ev.type}:${ev.object.metadata.name ?? ""}`);
      if (ev.type === "BOOKMARK") {
        expect(ev.object.metadata.annotations?.["k8s.io/initial-events-end"]).toBe("true");
        break;
      }
    }
    expect(seen).toEqual(["ADDED:one", "BOOKMARK:"]);
  });

  it("throws a non-200 answer as a StatusError from the first iteration", async () => {
    const watch = client.get().version("v1").resource("nosuchresources").watch();
    await expect(watch[Symbol.asyncIterator]().next()).rejects.toSatisfy(
      (e: unknown) => e instanceof StatusError && isNotFound(e),
    );
  });

  it("ends with WatchIdleTimeoutError on a stalled connection instead of hanging", async () => {
    await createNamespace("w-stall");
    const watch = configMaps("w-stall").watch<ConfigMap>({ idleTimeoutMs: 300 });
    const it = watch[Symbol.asyncIterator]();
    const first = it.next();
    await createConfigMap("w-stall", "before-stall");
    expect((await first).value?.type).toBe("ADDED");
    server.faults.stallWatches();
    await createConfigMap("w-stall", "during-stall");
    const started = Date.now();
    await expect(it.next()).rejects.toBeInstanceOf(WatchIdleTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("derives the idle deadline from timeoutSeconds plus the grace period", async () => {
    await createNamespace("w-grace");
    const watch = configMaps("w-grace")
      .listOptions({ timeoutSeconds: 1 })
      .watch<ConfigMap>({ idleGraceMs: 200 });
    const it = watch[Symbol.asyncIterator]();
    const first = it.next();
    await createConfigMap("w-grace", "x");
    expect((await first).value?.type).toBe("ADDED");
    server.faults.stallWatches();
    const err = await it.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchIdleTimeoutError);
    expect((err as WatchIdleTimeoutError).idleTimeoutMs).toBe(1200);
  });

  it("ends normally when the server closes the watch cleanly (closeWatches)", async () => {
    await createNamespace("w-cut");
    const watch = configMaps("w-cut").watch<ConfigMap>();
    const seen: string[] = [];
    const done = (async () => {
      for await (const ev of watch) {
        if (ev.type !== "ERROR") seen.push(ev.object.metadata.name);
        if (seen.length === 1) server.faults.closeWatches();
      }
    })();
    await createConfigMap("w-cut", "only");
    await expect(done).resolves.toBeUndefined();
    expect(seen).toEqual(["only"]);
  });

  it("throws a TransportError when the server restarts under the watch", async () => {
    await createNamespace("w-restart");
    const watch = configMaps("w-restart").watch<ConfigMap>();
    const it = watch[Symbol.asyncIterator]();
    const first = it.next();
    await createConfigMap("w-restart", "r");
    expect((await first).value?.type).toBe("ADDED");
    const pending = it.next().catch((e: unknown) => e);
    await server.faults.restart();
    const err = await pending;
    expect(err).toBeInstanceOf(TransportError);
    // The client keeps working against the restarted server.
    await expect(configMaps("w-restart").name("r").do()).resolves.toMatchObject({
      statusCode: 200,
    });
  });
});
