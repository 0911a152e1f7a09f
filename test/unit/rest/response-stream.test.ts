import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  StatusError,
  LineStream,
  ResponseTooLargeError,
  TransportError,
  type ResponseStreamOptions,
  WatchDecodeError,
  WatchIdleTimeoutError,
} from "kubekit";
import {
  DEFAULT_WATCH_IDLE_BASE_MS,
  Watch,
  watchIdleTimeoutMs,
} from "../../../packages/kubekit/src/rest/watch.js";

interface Harness {
  readonly body: PassThrough;
  /** The signal the stream passed to open(), once it was called. */
  signal: AbortSignal | undefined;
  opened: number;
}

function harness(): Harness {
  return { body: new PassThrough(), signal: undefined, opened: 0 };
}

function options(
  clock: FakeClock,
  extra: Partial<ResponseStreamOptions> = {},
): ResponseStreamOptions {
  return { method: "GET", url: "https://example.test/api/v1/pods?watch=true", clock, ...extra };
}

function watchOf(h: Harness, opts: ResponseStreamOptions): Watch<{ n: number }> {
  return new Watch<{ n: number }>(async (signal) => {
    h.opened++;
    h.signal = signal;
    signal.addEventListener("abort", () => h.body.destroy(), { once: true });
    return h.body;
  }, opts);
}

const event = (type: string, n: number): string => `${JSON.stringify({ type, object: { n } })}\n`;

describe("Watch iteration", () => {
  it("sends nothing until iterated, then yields events and ends at a clean end of stream", async () => {
    const h = harness();
    const watch = watchOf(h, options(new FakeClock(0)));
    expect(h.opened).toBe(0);
    const it = watch[Symbol.asyncIterator]();
    const first = it.next();
    h.body.write(event("ADDED", 1).slice(0, 10));
    h.body.write(event("ADDED", 1).slice(10) + event("MODIFIED", 2));
    expect(await first).toEqual({ done: false, value: { type: "ADDED", object: { n: 1 } } });
    expect(await it.next()).toEqual({ done: false, value: { type: "MODIFIED", object: { n: 2 } } });
    h.body.end();
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(h.opened).toBe(1);
    expect(h.signal?.aborted).toBe(true);
  });

  it("can be iterated only once", () => {
    const watch = watchOf(harness(), options(new FakeClock(0)));
    watch[Symbol.asyncIterator]();
    expect(() => watch[Symbol.asyncIterator]()).toThrow(TypeError);
  });

  it("throws the request's error (e.g. a StatusError) from the first iteration", async () => {
    const status = new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Forbidden",
      code: 403,
    });
    const watch = new Watch(() => Promise.reject(status), options(new FakeClock(0)));
    await expect(watch[Symbol.asyncIterator]().next()).rejects.toBe(status);
  });

  it("delivers events before a malformed frame, then throws WatchDecodeError and closes", async () => {
    const h = harness();
    const it = watchOf(h, options(new FakeClock(0)))[Symbol.asyncIterator]();
    h.body.write(`${event("ADDED", 1)}{"type":"NOPE","object":{}}\n`);
    expect((await it.next()).value).toEqual({ type: "ADDED", object: { n: 1 } });
    await expect(it.next()).rejects.toBeInstanceOf(WatchDecodeError);
    expect(h.body.destroyed).toBe(true);
  });

  it("throws WatchDecodeError when the stream ends inside a frame", async () => {
    const h = harness();
    const it = watchOf(h, options(new FakeClock(0)))[Symbol.asyncIterator]();
    h.body.end('{"type":"ADDED","obj');
    await expect(it.next()).rejects.toThrow(/ended inside a frame/);
  });

  it("maps a connection breaking mid-stream to TransportError", async () => {
    const h = harness();
    const it = watchOf(h, options(new FakeClock(0)))[Symbol.asyncIterator]();
    h.body.write(event("ADDED", 1));
    await it.next();
    const pending = it.next();
    h.body.destroy(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }));
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe("UND_ERR_SOCKET");
    expect((err as TransportError).message).toContain("other side closed");
  });
});

describe("Watch ending on request", () => {
  it("close() during a pending next() ends the iteration normally and closes the body", async () => {
    const h = harness();
    const watch = watchOf(h, options(new FakeClock(0)));
    const it = watch[Symbol.asyncIterator]();
    const pending = it.next();
    await new Promise((resolve) => setImmediate(resolve));
    watch.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(watch.closed).toBe(true);
    expect(h.signal?.aborted).toBe(true);
    expect(h.body.destroyed).toBe(true);
  });

  it("close() before iterating sends nothing", async () => {
    const h = harness();
    const watch = watchOf(h, options(new FakeClock(0)));
    watch.close();
    expect(await watch[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    expect(h.opened).toBe(0);
  });

  it("breaking out of for-await aborts the request and destroys the body", async () => {
    const h = harness();
    const watch = watchOf(h, options(new FakeClock(0)));
    h.body.write(event("ADDED", 1) + event("ADDED", 2));
    for await (const ev of watch) {
      expect(ev.type).toBe("ADDED");
      break;
    }
    expect(h.signal?.aborted).toBe(true);
    expect(h.body.destroyed).toBe(true);
  });

  it("aborting the user's signal rejects the pending next() with its reason", async () => {
    const h = harness();
    const controller = new AbortController();
    const it = watchOf(h, options(new FakeClock(0), { signal: controller.signal }))[
      Symbol.asyncIterator
    ]();
    h.body.write(event("ADDED", 1));
    await it.next();
    const pending = it.next();
    const reason = new Error("shutting down");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(h.body.destroyed).toBe(true);
  });
});

describe("Watch idle deadline", () => {
  it("fails with WatchIdleTimeoutError when no bytes arrive in time, and closes the body", async () => {
    const clock = new FakeClock(0);
    const h = harness();
    const it = watchOf(
      h,
      options(clock, { idle: { ms: 500, error: () => new WatchIdleTimeoutError(500) } }),
    )[Symbol.asyncIterator]();
    const pending = it.next();
    await clock.waitForTimers(1);
    clock.advance(499);
    h.body.write(event("ADDED", 1));
    expect((await pending).value).toEqual({ type: "ADDED", object: { n: 1 } });
    // While the consumer holds an event, the deadline does not run.
    expect(clock.pendingTimers()).toBe(0);
    const next = it.next();
    await clock.waitForTimers(1);
    clock.advance(500);
    const err = await next.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchIdleTimeoutError);
    expect((err as WatchIdleTimeoutError).idleTimeoutMs).toBe(500);
    expect(h.body.destroyed).toBe(true);
    expect(h.signal?.aborted).toBe(true);
  });

  it("covers the wait for the response headers", async () => {
    const clock = new FakeClock(0);
    let openSignal: AbortSignal | undefined;
    const watch = new Watch<{ n: number }>(
      (signal) =>
        new Promise((_resolve, reject) => {
          openSignal = signal;
          signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
        }),
      options(clock, { idle: { ms: 500, error: () => new WatchIdleTimeoutError(500) } }),
    );
    const pending = watch[Symbol.asyncIterator]().next();
    await clock.waitForTimers(1);
    clock.advance(500);
    await expect(pending).rejects.toBeInstanceOf(WatchIdleTimeoutError);
    expect(openSignal?.aborted).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("fails a stream that trickles bytes but completes no event in time", async () => {
    const clock = new FakeClock(0);
    const h = harness();
    const it = watchOf(
      h,
      options(clock, { idle: { ms: 500, error: () => new WatchIdleTimeoutError(500) } }),
    )[Symbol.asyncIterator]();
    const pending = it.next().then(
      () => "an event",
      (err: unknown) => err,
    );
    await clock.waitForTimers(1);
    h.body.write('{"type":"ADDED",');
    for (let i = 0; i < 4; i++) {
      clock.advance(100);
      h.body.write(" ");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(100);
    expect(await pending).toBeInstanceOf(WatchIdleTimeoutError);
    expect(h.body.destroyed).toBe(true);
  });

  it("computes the deadline from timeoutSeconds plus the grace, or the explicit override", () => {
    expect(watchIdleTimeoutMs(300, {})).toBe(330_000);
    expect(watchIdleTimeoutMs(1, { idleGraceMs: 200 })).toBe(1200);
    // Without timeoutSeconds: client-go's reflector minWatchTimeout (5 min) plus the grace.
    expect(watchIdleTimeoutMs(undefined, {})).toBe(330_000);
    expect(DEFAULT_WATCH_IDLE_BASE_MS).toBe(300_000);
    expect(watchIdleTimeoutMs(300, { idleTimeoutMs: 250 })).toBe(250);
    expect(watchIdleTimeoutMs(300, { idleTimeoutMs: 0 })).toBeUndefined();
  });
});

describe("LineStream", () => {
  it("fails with ResponseTooLargeError on a line over its limit, across chunks", async () => {
    const body = new PassThrough();
    const lines = new LineStream(async () => body, options(new FakeClock(0)), 10);
    const it = lines[Symbol.asyncIterator]();
    body.write("0123456789\n01234");
    expect(await it.next()).toEqual({ done: false, value: "0123456789" });
    const next = it.next();
    body.write("56789A");
    const err = await next.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).limitBytes).toBe(10);
    expect(body.destroyed).toBe(true);
  });

  it("splits lines across chunks, keeps split UTF-8 characters whole and yields a last partial line", async () => {
    const body = new PassThrough();
    const lines = new LineStream(async () => body, options(new FakeClock(0)));
    const snowman = Buffer.from("☃", "utf8");
    body.write("first li");
    body.write(Buffer.concat([Buffer.from("ne\nsnow "), snowman.subarray(0, 1)]));
    body.write(Buffer.concat([snowman.subarray(1), Buffer.from("\r\n\nlast")]));
    body.end();
    const seen: string[] = [];
    for await (const line of lines) seen.push(line);
    expect(seen).toEqual(["first line", "snow ☃\r", "", "last"]);
  });
});
