import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Watch, WatchDecodeError, WatchIdleTimeoutError } from "kubekit";
import { WatchFrameDecoder } from "../../../packages/kubekit/src/rest/watch-frame-decoder.js";

const frame = (type: string, n: number): string => `${JSON.stringify({ type, object: { n } })}\n`;

function watchOver(
  body: PassThrough,
  clock = new FakeClock(0),
  idleMs?: number,
): Watch<{ n: number }> {
  return new Watch<{ n: number }>(
    async (signal) => {
      signal.addEventListener("abort", () => body.destroy(), { once: true });
      return body;
    },
    {
      method: "GET",
      url: "https://example.test/api/v1/pods?watch=true",
      clock,
      ...(idleMs !== undefined
        ? { idle: { ms: idleMs, error: () => new WatchIdleTimeoutError(idleMs) } }
        : {}),
    },
  );
}

describe("Watch.batches", () => {
  it("delivers the events each read completes as one batch, in order", async () => {
    const body = new PassThrough();
    const batches = watchOver(body).batches();
    const first = batches.next();
    body.write(frame("ADDED", 1) + frame("MODIFIED", 2) + frame("DELETED", 3));
    expect((await first).value).toEqual([
      { type: "ADDED", object: { n: 1 } },
      { type: "MODIFIED", object: { n: 2 } },
      { type: "DELETED", object: { n: 3 } },
    ]);
    const second = batches.next();
    body.end(frame("MODIFIED", 4));
    expect((await second).value).toEqual([{ type: "MODIFIED", object: { n: 4 } }]);
    expect(await batches.next()).toEqual({ done: true, value: undefined });
  });

  it("delivers the events decoded before a malformed frame, then throws the decode error", async () => {
    const body = new PassThrough();
    const batches = watchOver(body).batches();
    const first = batches.next();
    body.write(`${frame("ADDED", 1)}${frame("ADDED", 2)}{"type":}\n`);
    expect((await first).value).toEqual([
      { type: "ADDED", object: { n: 1 } },
      { type: "ADDED", object: { n: 2 } },
    ]);
    await expect(batches.next()).rejects.toBeInstanceOf(WatchDecodeError);
  });

  it("is one way of iterating: batches() after iteration, or iteration after batches(), throws", () => {
    const a = watchOver(new PassThrough());
    a[Symbol.asyncIterator]();
    expect(() => a.batches()).toThrow(TypeError);
    const b = watchOver(new PassThrough());
    b.batches();
    expect(() => b[Symbol.asyncIterator]()).toThrow(TypeError);
  });

  it("does not run the idle deadline while the consumer holds a batch", async () => {
    const clock = new FakeClock(0);
    const body = new PassThrough();
    const batches = watchOver(body, clock, 1_000).batches();
    const first = batches.next();
    body.write(frame("ADDED", 1));
    expect((await first).value).toHaveLength(1);
    clock.advance(5_000); // the consumer holds the batch
    const second = batches.next();
    body.write(frame("ADDED", 2));
    expect((await second).value).toEqual([{ type: "ADDED", object: { n: 2 } }]);
    const third = batches.next();
    await clock.waitForTimers(1);
    clock.advance(1_000); // the consumer waits: the deadline runs
    await expect(third).rejects.toBeInstanceOf(WatchIdleTimeoutError);
  });
});

describe("WatchFrameDecoder across chunks", () => {
  it("decodes a line split across chunks, with a multi-byte character split too", () => {
    const decoder = new WatchFrameDecoder();
    const bytes = Buffer.from(
      `${JSON.stringify({ type: "ADDED", object: { name: "é€😀" } })}\n${frame("MODIFIED", 2)}`,
    );
    const cut = bytes.indexOf(Buffer.from("€")) + 1; // inside the 3-byte character
    decoder.write(bytes.subarray(0, cut));
    expect(decoder.read()).toBeUndefined();
    decoder.write(bytes.subarray(cut));
    expect(decoder.read()).toEqual({ type: "ADDED", object: { name: "é€😀" } });
    expect(decoder.read()).toEqual({ type: "MODIFIED", object: { n: 2 } });
    expect(decoder.read()).toBeUndefined();
  });

  it("falls back to the scanner when the joined line is not one frame (concatenated frames)", () => {
    const decoder = new WatchFrameDecoder();
    const text = `{"type":"ADDED","object":{"n":1}}{"type":"ADDED","object":{"n":2}}\n`;
    decoder.write(Buffer.from(text.slice(0, 10)));
    expect(decoder.read()).toBeUndefined();
    decoder.write(Buffer.from(text.slice(10)));
    expect(decoder.read()).toEqual({ type: "ADDED", object: { n: 1 } });
    expect(decoder.read()).toEqual({ type: "ADDED", object: { n: 2 } });
    expect(decoder.read()).toBeUndefined();
  });
});
