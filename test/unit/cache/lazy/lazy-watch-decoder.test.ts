import { describe, expect, it } from "vitest";
import { LazyWatchDecoder } from "../../../../packages/kubekit/src/cache/lazy/lazy-watch-decoder.js";
import type { LazyObject, WatchEvent } from "kubekit";
import {
  WatchDecodeError,
  WatchFrameTooLargeError,
} from "../../../../packages/kubekit/src/rest/watch-errors.js";

type Event = WatchEvent<LazyObject<unknown>>;

const pod = (name: string, rv: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", resourceVersion: rv, labels: { app: "web" } },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

const frame = (type: string, object: unknown) => JSON.stringify({ type, object });

/** Feeds `text` in chunks of `size` bytes, then ends; returns the events. */
function decodeInChunks(text: string, size: number, maxFrameBytes?: number): Event[] {
  const decoder = new LazyWatchDecoder<unknown>(maxFrameBytes);
  const bytes = Buffer.from(text, "utf8");
  const out: Event[] = [];
  for (let i = 0; i < bytes.length; i += size) decoder.write(bytes.subarray(i, i + size), out);
  out.push(...decoder.end());
  return out;
}

/** What an event says, with the lazy object's metadata and parsed body. */
function show(event: Event): unknown {
  if (event.type === "ERROR") return { type: event.type, status: event.object.reason };
  return { type: event.type, metadata: event.object.metadata, body: event.object.object() };
}

describe("LazyWatchDecoder", () => {
  const a = pod("a", "1");
  const b = pod("b\u00e9\ud83d\ude00", "2");
  const expected = [
    { type: "ADDED", metadata: a.metadata, body: a },
    { type: "MODIFIED", metadata: b.metadata, body: b },
  ];

  it.each([1, 3, 7, 64, 100_000])(
    "decodes newline-delimited frames split into chunks of %i bytes, multi-byte characters included",
    (size) => {
      const text = `${frame("ADDED", a)}\n${frame("MODIFIED", b)}\n`;
      expect(decodeInChunks(text, size).map(show)).toEqual(expected);
    },
  );

  it.each([1, 5, 100_000])(
    "decodes concatenated and pretty-printed frames (chunks of %i bytes)",
    (size) => {
      const pretty = JSON.stringify({ object: b, type: "MODIFIED" }, null, 2);
      const text = ` ${frame("ADDED", a)}${pretty}\r\n`;
      expect(decodeInChunks(text, size).map(show)).toEqual(expected);
    },
  );

  it("keeps metadata eager and bodies unparsed until read, then the same instance", () => {
    const [event] = decodeInChunks(`${frame("ADDED", a)}\n`, 1000);
    if (event === undefined || event.type === "ERROR") throw new Error("no event");
    expect(event.object.parsed).toBe(false);
    expect(event.object.metadata.name).toBe("a");
    expect(event.object.kind).toBe("Pod");
    const body = event.object.object();
    expect(event.object.parsed).toBe(true);
    expect(event.object.object()).toBe(body);
  });

  it("decodes an ERROR event into its Status", () => {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
    };
    expect(decodeInChunks(`${frame("ERROR", status)}\n`, 10).map(show)).toEqual([
      { type: "ERROR", status: "Expired" },
    ]);
  });

  it.each([
    ["a frame that is not an object", "[1]\n", "frame is not a JSON object"],
    ["malformed JSON", '{"type":"ADDED","object":{"a":]}}\n', "malformed JSON frame"],
    ["an unknown type", `${frame("NOPE", a)}\n`, "unknown event type"],
    ["a missing object", '{"type":"ADDED"}\n', "not a watch event"],
    ["an ERROR without a Status", `${frame("ERROR", { a: 1 })}\n`, "ERROR event without a Status"],
  ])("fails on %s with a sticky WatchDecodeError", (_what, text, message) => {
    const decoder = new LazyWatchDecoder<unknown>();
    const out: Event[] = [];
    const good = `${frame("ADDED", a)}\n`;
    expect(() => decoder.write(Buffer.from(good + text), out)).toThrow(message);
    expect(out.map(show)).toEqual([expected[0]]);
    expect(() => decoder.write(Buffer.from(good), [])).toThrow(WatchDecodeError);
  });

  it("fails on a stream that ends inside a frame", () => {
    const decoder = new LazyWatchDecoder<unknown>();
    decoder.write(Buffer.from(frame("ADDED", a).slice(0, 20)), []);
    expect(() => decoder.end()).toThrow("stream ended inside a frame");
  });

  it("fails on a frame over the limit, on one line or held across chunks", () => {
    const text = `${frame("ADDED", a)}\n`;
    expect(() => decodeInChunks(text, 100_000, 50)).toThrow(WatchFrameTooLargeError);
    expect(() => decodeInChunks(text.slice(0, -3), 10, 50)).toThrow(WatchFrameTooLargeError);
  });
});
