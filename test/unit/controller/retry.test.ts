import { describe, expect, it } from "vitest";
import {
  DEFAULT_BACKOFF,
  DEFAULT_RETRY,
  retryOnConflict,
  retryOnError,
  newConflict,
  newNotFound,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

const conflict = (): Error => newConflict({ group: "", resource: "configmaps" }, "a", "changed");

/** Runs `retry` on a FakeClock, advancing it through every delay; returns the result and the delays. */
async function driven<R>(
  clock: FakeClock,
  retry: Promise<R>,
): Promise<{ result: PromiseSettledResult<R>; delays: number[] }> {
  const delays: number[] = [];
  let settled: PromiseSettledResult<R> | undefined;
  void retry.then(
    (value) => (settled = { status: "fulfilled", value }),
    (reason: unknown) => (settled = { status: "rejected", reason }),
  );
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (settled !== undefined) return { result: settled, delays };
    const next = clock.nextTimerAt();
    if (next === undefined) continue;
    delays.push(next - clock.now());
    clock.advance(next - clock.now());
  }
}

describe("retryOnConflict", () => {
  it("has client-go's DefaultRetry and DefaultBackoff", () => {
    expect(DEFAULT_RETRY).toEqual({ steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });
    expect(DEFAULT_BACKOFF).toEqual({ steps: 4, durationMs: 10, factor: 5, jitter: 0.1 });
  });

  it("retries conflicts, re-running fn with the attempt number, until it succeeds", async () => {
    const clock = new FakeClock();
    const attempts: number[] = [];
    const retry = retryOnConflict(
      (attempt) => {
        attempts.push(attempt);
        if (attempt < 2) throw conflict();
        return "written";
      },
      DEFAULT_RETRY,
      { clock, random: () => 0 },
    );
    const { result, delays } = await driven(clock, retry);
    expect(result).toEqual({ status: "fulfilled", value: "written" });
    expect(attempts).toEqual([0, 1, 2]);
    expect(delays).toEqual([10, 10]);
  });

  it("gives up after `steps` attempts with the last conflict; delays grow by factor, plus jitter", async () => {
    const clock = new FakeClock();
    let calls = 0;
    const retry = retryOnConflict(
      async () => {
        calls++;
        throw conflict();
      },
      DEFAULT_BACKOFF,
      { clock, random: () => 0.5 },
    );
    const { result, delays } = await driven(clock, retry);
    expect(calls).toBe(4);
    expect(result.status).toBe("rejected");
    expect((result as PromiseRejectedResult).reason).toMatchObject({ name: "StatusError" });
    expect(delays).toEqual([10.5, 52.5, 262.5]);
  });

  it("retries a conflict wrapped in another error's cause", async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const retry = retryOnConflict(
      () => {
        if (attempts++ === 0) throw new Error("update failed", { cause: conflict() });
        return "written";
      },
      DEFAULT_RETRY,
      { clock, random: () => 0 },
    );
    const { result } = await driven(clock, retry);
    expect(result).toEqual({ status: "fulfilled", value: "written" });
    expect(attempts).toBe(2);
  });

  it("does not retry other errors", async () => {
    const clock = new FakeClock();
    let calls = 0;
    const notFound = newNotFound({ group: "", resource: "configmaps" }, "a");
    await expect(
      retryOnConflict(
        () => {
          calls++;
          throw notFound;
        },
        DEFAULT_RETRY,
        { clock },
      ),
    ).rejects.toBe(notFound);
    expect(calls).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("stops on abort during a delay, with the signal's reason, leaving no timer", async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const retry = retryOnError(
      () => {
        throw new Error("transient");
      },
      () => true,
      DEFAULT_RETRY,
      { clock, signal: stop.signal },
    );
    await clock.waitForTimers(1);
    stop.abort(new Error("stopped"));
    await expect(retry).rejects.toThrow("stopped");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("rejects a backoff without at least one step", async () => {
    await expect(retryOnConflict(() => 1, { ...DEFAULT_RETRY, steps: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(retryOnConflict(() => 1, { ...DEFAULT_RETRY, factor: 0.5 })).rejects.toThrow(
      RangeError,
    );
  });
});
