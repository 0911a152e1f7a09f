/**
 * An informer-only process against `kubekit serve` in other processes: it outlives its API
 * server, resyncs with a replacement, syncs once a server comes up, and exits by itself
 * within a second of being stopped.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Child } from "./support/child-process.js";
import { runFixture, scratchDir, startServe } from "./support/child-process.js";
import type { ConfigMapVersions } from "./support/cluster-state.js";
import { createConfigMaps, listConfigMapVersions } from "./support/cluster-state.js";

/** The informer's cache as it last printed it. */
function lastCache(informer: Child): ConfigMapVersions | undefined {
  for (let i = informer.stdoutLines.length - 1; i >= 0; i--) {
    const line = informer.stdoutLines[i] ?? "";
    if (line.startsWith("cache "))
      return JSON.parse(line.slice("cache ".length)) as ConfigMapVersions;
  }
  return undefined;
}

/** Resolves once the informer's cache equals what the server lists. */
async function cacheMatchesServer(
  informer: Child,
  kubeconfig: string,
  timeoutMs = 30_000,
): Promise<ConfigMapVersions> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const expected = await listConfigMapVersions(kubeconfig);
    if (JSON.stringify(lastCache(informer)) === JSON.stringify(expected)) return expected;
    if (Date.now() > deadline || informer.exit !== undefined) {
      throw new Error(
        `informer cache ${JSON.stringify(lastCache(informer))} never matched ${JSON.stringify(expected)}\n${informer.output()}`,
      );
    }
    await informer
      .waitForLine(
        "a cache change",
        (l) => (l.startsWith("cache ") ? true : undefined),
        5_000,
        informer.stdoutLines.length,
      )
      .catch(() => undefined);
  }
}

/** Resolves once the informer reported `count` list/watch failures after output line `from`. */
async function watchErrors(informer: Child, count: number, from: number): Promise<void> {
  let seen = 0;
  await informer.waitForLine(
    `${count} list/watch failures`,
    (l) => (l.startsWith("watch-error ") && ++seen >= count ? true : undefined),
    30_000,
    from,
  );
}

/** Stops the informer with SIGTERM and checks it exits by itself, cleanly, within 1 s. */
async function stopsWithinOneSecond(informer: Child): Promise<void> {
  await informer.waitForLine("the informer to be running", (l) =>
    l === "synced" ? true : undefined,
  );
  informer.kill("SIGTERM");
  const exit = await informer.waitForExit(1_000);
  expect(exit, informer.output()).toEqual({ code: 0, signal: null });
}

describe("an informer process", () => {
  it("keeps running when its server dies and resyncs with an empty replacement on the same port", async () => {
    const dir = scratchDir();
    const first = await startServe(join(dir, "first.kubeconfig"));
    await createConfigMaps(first.kubeconfig, ["a-1", "a-2", "a-3", "a-4", "a-5", "a-6"]);
    const informer = runFixture("informer.mjs", { KUBECONFIG: first.kubeconfig });
    await informer.waitForLine("the first sync", (l) => (l === "synced" ? true : undefined));
    await cacheMatchesServer(informer, first.kubeconfig);

    first.child.kill("SIGKILL");
    await first.child.exited;
    // The server stays away while the informer fails three times (backoff 0.8 s, 1.6 s, ...).
    await watchErrors(informer, 3, informer.stdoutLines.length);
    expect(informer.exit).toBeUndefined();

    // A new, empty server on the same port: smaller resourceVersions, as after an etcd restore.
    const second = await startServe(join(dir, "second.kubeconfig"), first.port);
    await createConfigMaps(second.kubeconfig, ["b-1", "b-2"]);
    // The reflector relists from its last resourceVersion, which the new server does not have
    // yet: each LIST waits 3 s for it and answers 504 "Too large resource version" with
    // Retry-After: 1, which the REST client retries up to 10 times (as client-go does) before
    // the reflector relists from the newest state ("").
    const final = await cacheMatchesServer(informer, second.kubeconfig, 90_000);
    expect(final.map(([key]) => key)).toEqual(
      expect.arrayContaining(["default/b-1", "default/b-2"]),
    );
    expect(final.some(([key]) => key.startsWith("default/a-"))).toBe(false);

    await stopsWithinOneSecond(informer);
  }, 180_000);

  it("started while the server is down, syncs once it comes up", async () => {
    const dir = scratchDir();
    const gone = await startServe(join(dir, "kubeconfig"));
    gone.child.kill("SIGKILL");
    await gone.child.exited;

    const informer = runFixture("informer.mjs", { KUBECONFIG: gone.kubeconfig });
    await watchErrors(informer, 2, 0);
    expect(informer.exit).toBeUndefined();

    const server = await startServe(join(dir, "kubeconfig"), gone.port);
    await createConfigMaps(server.kubeconfig, ["late-1"]);
    await informer.waitForLine("the sync", (l) => (l === "synced" ? true : undefined), 45_000);
    await cacheMatchesServer(informer, server.kubeconfig);

    await stopsWithinOneSecond(informer);
  }, 120_000);
});
