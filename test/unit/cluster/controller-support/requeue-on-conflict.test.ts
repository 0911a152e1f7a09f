import { describe, expect, it } from "vitest";
import {
  newAlreadyExists,
  newConflict,
  noopLogger,
  type Logger,
  type ResourceVersionObservable,
} from "kubekit";
import { OwnWrites } from "../../../../packages/cluster/src/controller-support/own-writes.js";
import { requeueOnConflict } from "../../../../packages/cluster/src/controller-support/requeue-on-conflict.js";

const PODS = { group: "", resource: "pods" };

/** An informer whose cache observes the recorded write only once `catchUp` is called. */
function laggingInformer(): { informer: ResourceVersionObservable; catchUp: () => void } {
  let release: () => void = () => undefined;
  const caughtUp = new Promise<void>((resolve) => (release = resolve));
  return {
    informer: { waitForCacheResourceVersion: () => caughtUp.then(() => true) },
    catchUp: () => release(),
  };
}

/** Settles `promise` into what happened, or "pending" when it has not settled after a few turns. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  const pending = Symbol("pending");
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return Promise.race([settled, Promise.resolve(pending)]).then((r) =>
    r === pending ? "pending" : r,
  );
}

function recordingLogger(): { logger: Logger; debug: unknown[][] } {
  const debug: unknown[][] = [];
  return { logger: { ...noopLogger, debug: (...args: unknown[]) => debug.push(args) }, debug };
}

describe("requeueOnConflict", () => {
  const signal = new AbortController().signal;

  it("returns a successful attempt's result unchanged", async () => {
    const writes = new OwnWrites();
    const result = await requeueOnConflict(
      { controller: "test", key: "ns/a", writes, signal, logger: noopLogger },
      async () => ({ requeueAfterMs: 7 }),
    );
    expect(result).toEqual({ requeueAfterMs: 7 });
  });

  it("requeues a Conflict once the attempt's writes are observed, logging it at debug", async () => {
    const { informer, catchUp } = laggingInformer();
    const writes = new OwnWrites();
    const { logger, debug } = recordingLogger();
    const run = requeueOnConflict(
      { controller: "test", key: "ns/a", writes, signal, logger },
      () => {
        writes.record(informer, { metadata: { resourceVersion: "5" } });
        return Promise.reject(newConflict(PODS, "a", "stale"));
      },
    );
    expect(await outcome(run)).toBe("pending");
    catchUp();
    expect(await run).toEqual({ requeue: true });
    expect(debug).toHaveLength(1);
    expect(debug[0]?.[0]).toBe("test: conflict; requeued");
    expect(debug[0]?.[1]).toMatchObject({ key: "ns/a", error: expect.stringContaining("stale") });
  });

  it("rethrows other failures, after the attempt's writes are observed", async () => {
    const { informer, catchUp } = laggingInformer();
    const writes = new OwnWrites();
    const failure = new Error("boom");
    const run = requeueOnConflict(
      { controller: "test", key: "ns/a", writes, signal, logger: noopLogger },
      () => {
        writes.record(informer, { metadata: { resourceVersion: "5" } });
        return Promise.reject(failure);
      },
    );
    expect(await outcome(run)).toBe("pending");
    catchUp();
    await expect(run).rejects.toBe(failure);
  });

  it("retries what alsoRetry accepts like a Conflict, and only that", async () => {
    const options = {
      controller: "test",
      key: "ns/a",
      writes: new OwnWrites(),
      signal,
      logger: noopLogger,
      alsoRetry: (err: unknown) => err instanceof Error && err.message.includes("already exists"),
    };
    const exists = newAlreadyExists(PODS, "a");
    expect(await requeueOnConflict(options, () => Promise.reject(exists))).toEqual({
      requeue: true,
    });
    const other = new Error("boom");
    await expect(requeueOnConflict(options, () => Promise.reject(other))).rejects.toBe(other);
  });
});
