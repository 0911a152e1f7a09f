import { describe, expect, it } from "vitest";
import type { JsonObject, WatchEvent } from "kubekit";
import {
  WatchDecodeError,
  WatchFrameTooLargeError,
} from "../../../packages/kubekit/src/rest/watch-errors.js";
import {
  DEFAULT_MAX_WATCH_FRAME_BYTES,
  WatchFrameDecoder,
} from "../../../packages/kubekit/src/rest/watch-frame-decoder.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function drain(decoder: WatchFrameDecoder): WatchEvent<JsonObject>[] {
  const out: WatchEvent<JsonObject>[] = [];
  for (let ev = decoder.read(); ev !== undefined; ev = decoder.read()) out.push(ev);
  return out;
}

function frame(type: string, name: string, rv = "1"): string {
  return `${JSON.stringify({ type, object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name, resourceVersion: rv } } })}\n`;
}

describe("WatchFrameDecoder framing", () => {
  it("decodes several frames written in one chunk", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes(frame("ADDED", "a") + frame("MODIFIED", "b") + frame("DELETED", "c")));
    const events = drain(d);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events.map((e) => (e.object as { metadata: { name: string } }).metadata.name)).toEqual([
      "a",
      "b",
      "c",
    ]);
    d.end();
  });

  it("decodes a frame split at every possible byte boundary, including inside strings and escapes", () => {
    const text = `{"type":"ADDED","object":{"kind":"ConfigMap","data":{"k":"a \\"quoted\\" }{ value ü ✓ 😀"}}}\n`;
    const all = bytes(text);
    for (let cut = 1; cut < all.length; cut++) {
      const d = new WatchFrameDecoder();
      d.write(all.subarray(0, cut));
      const early = drain(d);
      d.write(all.subarray(cut));
      const events = [...early, ...drain(d)];
      expect(events).toHaveLength(1);
      expect((events[0]?.object as { data: { k: string } }).data.k).toBe(
        'a "quoted" }{ value ü ✓ 😀',
      );
      d.end();
    }
  });

  it("mixes line frames with a line of concatenated frames and a frame split across chunks, in order", () => {
    const d = new WatchFrameDecoder();
    const joined = frame("ADDED", "b").trimEnd() + frame("ADDED", "c");
    const split = frame("ADDED", "e");
    d.write(bytes(frame("ADDED", "a") + joined + frame("ADDED", "d") + split.slice(0, 20)));
    d.write(bytes(split.slice(20) + frame("DELETED", "f")));
    const names = drain(d).map(
      (e) => `${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`,
    );
    expect(names).toEqual(["ADDED a", "ADDED b", "ADDED c", "ADDED d", "ADDED e", "DELETED f"]);
    d.end();
  });

  it("decodes frames spread over many one-byte chunks", () => {
    const all = bytes(frame("ADDED", "x") + frame("BOOKMARK", "", "42"));
    const d = new WatchFrameDecoder();
    const events: WatchEvent<JsonObject>[] = [];
    for (const b of all) {
      d.write(Uint8Array.of(b));
      events.push(...drain(d));
    }
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    d.end();
  });

  it("accepts concatenated frames without newlines and blank lines between frames", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes(`${frame("ADDED", "a").trim()}${frame("ADDED", "b").trim()}\n\n  \r\n`));
    expect(drain(d).map((e) => e.type)).toEqual(["ADDED", "ADDED"]);
    d.end();
  });

  it("decodes a frame larger than 1 MB arriving in 64 KiB chunks", () => {
    const big = "x".repeat(1_500_000);
    const all = bytes(
      `${JSON.stringify({ type: "MODIFIED", object: { kind: "ConfigMap", data: { big } } })}\n${frame("ADDED", "after")}`,
    );
    const d = new WatchFrameDecoder();
    const events: WatchEvent<JsonObject>[] = [];
    for (let i = 0; i < all.length; i += 65_536) {
      d.write(all.subarray(i, i + 65_536));
      events.push(...drain(d));
    }
    expect(events.map((e) => e.type)).toEqual(["MODIFIED", "ADDED"]);
    expect((events[0]?.object as { data: { big: string } }).data.big).toHaveLength(1_500_000);
    d.end();
  });

  it("returns undefined until a frame is complete", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes('{"type":"ADDED","object":{"a":[1,2,{"b":"}"}'));
    expect(d.read()).toBeUndefined();
    d.write(bytes("]}}"));
    expect(d.read()?.type).toBe("ADDED");
    expect(d.read()).toBeUndefined();
  });
});

describe("WatchFrameDecoder events", () => {
  it("decodes BOOKMARK events with their resourceVersion and annotations", () => {
    const d = new WatchFrameDecoder();
    d.write(
      bytes(
        '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746","annotations":{"k8s.io/initial-events-end":"true"}}}}\n',
      ),
    );
    const ev = d.read();
    expect(ev).toEqual({
      type: "BOOKMARK",
      object: {
        kind: "Pod",
        apiVersion: "v1",
        metadata: {
          resourceVersion: "12746",
          annotations: { "k8s.io/initial-events-end": "true" },
        },
      },
    });
  });

  it("decodes an ERROR event into a Status", () => {
    const d = new WatchFrameDecoder();
    d.write(
      bytes(
        '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1200 (1500)","reason":"Expired","code":410}}\n',
      ),
    );
    const ev = d.read();
    expect(ev?.type).toBe("ERROR");
    if (ev?.type !== "ERROR") return;
    expect(ev.object.code).toBe(410);
    expect(ev.object.reason).toBe("Expired");
    expect(ev.object.message).toBe("too old resource version: 1200 (1500)");
  });

  it("delivers events before a malformed frame, then fails with WatchDecodeError (sticky)", () => {
    const d = new WatchFrameDecoder();
    d.write(
      bytes(`${frame("ADDED", "ok")}{"type":"ADDED","object":{"a":1,,}}\n${frame("ADDED", "x")}`),
    );
    expect(d.read()?.type).toBe("ADDED");
    expect(() => d.read()).toThrow(WatchDecodeError);
    expect(() => d.read()).toThrow(/malformed JSON frame/);
    expect(() => d.end()).toThrow(WatchDecodeError);
  });

  it("rejects a frame that is not a JSON object", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes('"ADDED"\n'));
    expect(() => d.read()).toThrow(/not a JSON object/);
    const e = new WatchFrameDecoder();
    e.write(bytes("garbage\n"));
    let error: unknown;
    try {
      e.read();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(WatchDecodeError);
    expect((error as WatchDecodeError).frame).toBe("garbage\n");
  });

  it("rejects an unknown event type", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes('{"type":"UPSERTED","object":{"kind":"Pod"}}\n'));
    expect(() => d.read()).toThrow(/unknown event type "UPSERTED"/);
  });

  it("rejects an event without an object, and an ERROR event whose object is not a Status", () => {
    const noObject = new WatchFrameDecoder();
    noObject.write(bytes('{"type":"ADDED"}\n'));
    expect(() => noObject.read()).toThrow(/ADDED event without an object/);
    const notStatus = new WatchFrameDecoder();
    notStatus.write(bytes('{"type":"ERROR","object":{"kind":"Pod","apiVersion":"v1"}}\n'));
    expect(() => notStatus.read()).toThrow(/ERROR event without a Status/);
  });

  it("end() fails when the stream stopped inside a frame, and passes after whitespace", () => {
    const truncated = new WatchFrameDecoder();
    truncated.write(bytes('{"type":"ADDED","object":{"kind"'));
    expect(truncated.read()).toBeUndefined();
    expect(() => truncated.end()).toThrow(/stream ended inside a frame/);
    const clean = new WatchFrameDecoder();
    clean.write(bytes(`${frame("ADDED", "a")}\n  `));
    drain(clean);
    expect(() => clean.end()).not.toThrow();
  });

  it("end() reports unread input as a usage error", () => {
    const d = new WatchFrameDecoder();
    d.write(bytes(frame("ADDED", "a")));
    expect(() => d.end()).toThrow(/read\(\) every pending event/);
  });
});

describe("WatchFrameDecoder frame limit", () => {
  it("fails a never-ending frame once it passes 16 MiB, holding no more than one extra chunk", () => {
    expect(DEFAULT_MAX_WATCH_FRAME_BYTES).toBe(16 * 1024 * 1024);
    const d = new WatchFrameDecoder();
    const chunk = new Uint8Array(64 * 1024).fill(0x61); // "aaaa…" inside a string
    d.write(bytes('{"type":"ADDED","object":{"data":"'));
    expect(d.read()).toBeUndefined();
    let written = 0;
    let failure: unknown;
    while (failure === undefined && written < 64 * 1024 * 1024) {
      d.write(chunk);
      written += chunk.length;
      try {
        d.read();
      } catch (err) {
        failure = err;
      }
    }
    expect(failure).toBeInstanceOf(WatchFrameTooLargeError);
    expect(failure).toBeInstanceOf(WatchDecodeError);
    expect((failure as WatchFrameTooLargeError).maxFrameBytes).toBe(DEFAULT_MAX_WATCH_FRAME_BYTES);
    expect(written).toBeLessThanOrEqual(DEFAULT_MAX_WATCH_FRAME_BYTES + chunk.length);
    expect(() => d.read()).toThrow(WatchFrameTooLargeError);
  });

  it("applies a configured limit to line frames and to frames split across chunks", () => {
    const big = frame("ADDED", "x".repeat(200));
    const lined = new WatchFrameDecoder(150);
    lined.write(bytes(frame("ADDED", "small") + big));
    expect(lined.read()?.type).toBe("ADDED");
    expect(() => lined.read()).toThrow(WatchFrameTooLargeError);

    const split = new WatchFrameDecoder(150);
    for (let i = 0; i < big.length; i += 7) split.write(bytes(big.slice(i, i + 7)));
    expect(() => drain(split)).toThrow(WatchFrameTooLargeError);

    const exact = new WatchFrameDecoder(big.length - 1); // the newline is not part of the frame
    exact.write(bytes(big));
    expect(drain(exact)).toHaveLength(1);
    expect(() => new WatchFrameDecoder(0)).toThrow(RangeError);
  });
});
