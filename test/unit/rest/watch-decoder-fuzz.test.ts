/**
 * A seeded fuzzer of the watch decoder: thousands of mutated watch streams (flipped,
 * inserted, deleted and repeated bytes, truncations, deep nesting, never-ending frames),
 * each cut into random chunks and fed to a `WatchFrameDecoder`. Every stream must decode
 * into well-formed events or end with a `WatchDecodeError` (a `WatchFrameTooLargeError` for
 * an over-long frame), quickly, without growing the heap. The seed is fixed; set
 * KUBEKIT_FUZZ_SEED and KUBEKIT_FUZZ_CASES to explore further.
 */
import { describe, expect, it } from "vitest";
import {
  WatchDecodeError,
  WatchFrameTooLargeError,
} from "../../../packages/kubekit/src/rest/watch-errors.js";
import { WatchFrameDecoder } from "../../../packages/kubekit/src/rest/watch-frame-decoder.js";
import { SeededRandom } from "../../support/seeded-random.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20261124);
const CASES = Number(process.env["KUBEKIT_FUZZ_CASES"] ?? 10_000);
/** A small frame limit, so that over-long frames are among the mutations. */
const MAX_FRAME_BYTES = 64 * 1024;
const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

const encoder = new TextEncoder();

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Well-formed watch streams the mutations start from. */
const SEEDS: readonly Uint8Array[] = [
  line({
    type: "ADDED",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "a", namespace: "default", resourceVersion: "10", labels: { app: "x" } },
      data: { "key.json": '{"nested":"json \\" quote"}', snow: "☃ \u0000 \t", empty: "" },
    },
  }) +
    line({ type: "MODIFIED", object: { kind: "ConfigMap", metadata: { name: "a" }, data: [] } }) +
    line({ type: "DELETED", object: { kind: "ConfigMap", metadata: { name: "a" } } }),
  line({
    type: "BOOKMARK",
    object: {
      kind: "Pod",
      metadata: {
        resourceVersion: "42",
        annotations: { "k8s.io/initial-events-end": "true" },
      },
    },
  }) +
    line({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Expired",
        code: 410,
        details: { causes: [{ reason: "x", message: "y", field: "z" }], retryAfterSeconds: 1 },
      },
    }),
  // Concatenated frames without newlines, with whitespace between them.
  `${JSON.stringify({ type: "ADDED", object: { a: [1, { b: "}" }] } })} \r\n\t${JSON.stringify({ type: "ADDED", object: { c: "\\\\" } })}`,
].map((text) => encoder.encode(text));

/** Bytes that matter to the framer and the JSON parser. */
const INTERESTING = [...'{}[]"\\\n\r\t :,0-eE.u']
  .map((c) => c.charCodeAt(0))
  .concat([0x00, 0xff, 0xc3, 0xe2]);

function mutate(random: SeededRandom, input: Uint8Array): Uint8Array {
  let bytes = Buffer.from(input);
  const rounds = random.int(1, 5);
  for (let round = 0; round < rounds; round++) {
    const at = random.int(0, bytes.length + 1);
    switch (random.int(0, 9)) {
      case 0: // flip a byte
        if (bytes.length > 0) bytes[Math.min(at, bytes.length - 1)] = random.int(0, 256);
        break;
      case 1: // insert an interesting byte
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from([random.pick(INTERESTING)]),
          bytes.subarray(at),
        ]);
        break;
      case 2: // delete a range
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + random.int(1, 40))]);
        break;
      case 3: // repeat a range
        {
          const end = Math.min(bytes.length, at + random.int(1, 200));
          const piece = bytes.subarray(at, end);
          bytes = Buffer.concat([
            bytes.subarray(0, end),
            ...Array<Buffer>(random.int(1, 50)).fill(piece),
            bytes.subarray(end),
          ]);
        }
        break;
      case 4: // truncate
        bytes = bytes.subarray(0, at);
        break;
      case 5: // deep nesting
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.alloc(random.int(100, 20_000), random.pick(["[", "{"]).charCodeAt(0)),
          bytes.subarray(at),
        ]);
        break;
      case 6: // a never-ending (or very long) string inside a frame
        bytes = Buffer.concat([
          encoder.encode('{"type":"ADDED","object":{"s":"'),
          Buffer.alloc(random.int(1_000, 200_000), 0x61),
          bytes.subarray(at),
        ]);
        break;
      case 7: // splice in another seed
        bytes = Buffer.concat([bytes.subarray(0, at), random.pick(SEEDS), bytes.subarray(at)]);
        break;
      default: // replace a value's type
        bytes = Buffer.from(
          bytes
            .toString("latin1")
            .replace(
              random.pick(['"ADDED"', '"object"', "{", '"Status"', "410"]),
              random.pick(['"UNKNOWN"', "null", "[]", "1e999", '"\\ud800"', "{}"]),
            ),
          "latin1",
        );
    }
  }
  return bytes;
}

/** Cuts `bytes` into chunks of random sizes (often single bytes, sometimes large). */
function chunks(random: SeededRandom, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = random.chance(0.2) ? 1 : random.int(1, random.chance(0.5) ? 64 : 65_536);
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

/** Feeds one stream; returns the error it ended with, or undefined for a clean end. */
function decodeStream(parts: readonly Uint8Array[]): unknown {
  const decoder = new WatchFrameDecoder(MAX_FRAME_BYTES);
  try {
    for (const part of parts) {
      decoder.write(part);
      for (let event = decoder.read(); event !== undefined; event = decoder.read()) {
        if (!EVENT_TYPES.has(event.type) || typeof event.object !== "object") {
          return new Error(`malformed event passed the decoder: ${JSON.stringify(event)}`);
        }
      }
    }
    decoder.end();
    return undefined;
  } catch (err) {
    return err;
  }
}

describe("watch decoder fuzzing", () => {
  it(`decodes ${CASES} mutated streams into events or WatchDecodeErrors, quickly, in bounded memory`, () => {
    const random = new SeededRandom(SEED);
    const heapBefore = process.memoryUsage().heapUsed;
    const untyped: string[] = [];
    let failures = 0;
    let tooLarge = 0;
    let slowestMs = 0;
    const started = performance.now();
    for (let i = 0; i < CASES; i++) {
      const stream = mutate(random, random.pick(SEEDS));
      const caseStart = performance.now();
      const outcome = decodeStream(chunks(random, stream));
      slowestMs = Math.max(slowestMs, performance.now() - caseStart);
      if (outcome === undefined) continue;
      failures++;
      if (outcome instanceof WatchFrameTooLargeError) tooLarge++;
      if (!(outcome instanceof WatchDecodeError) && untyped.length < 5) {
        untyped.push(`case ${i}: ${String(outcome)}`);
      }
    }
    const elapsedMs = performance.now() - started;
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(untyped).toEqual([]);
    expect(failures).toBeGreaterThan(CASES / 4); // the mutations do break streams
    expect(failures).toBeLessThan(CASES); // and some survive them
    expect(tooLarge).toBeGreaterThan(0); // over-long frames are cut at the limit
    expect(slowestMs).toBeLessThan(1_000);
    expect(elapsedMs).toBeLessThan(CASES);
    expect(heapGrowth).toBeLessThan(128 * 1024 * 1024);
  });
});
