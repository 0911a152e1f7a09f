/**
 * A seeded fuzzer of the server's SPDY/3.1 session: sequences of valid, mutated, truncated and
 * hostile frames (unknown types, wrong versions, short payloads, DATA to unknown streams,
 * oversized and out-of-window data, corrupted header blocks, a header block followed by a
 * zlib bomb, raw garbage), cut into random pieces, against a session whose streams read,
 * ignore, write or refuse. Every session must, within a bounded time, either answer a last
 * PING or end with a typed error (`SpdyProtocolError`, `SpdyHeaderBlockError`), and the heap
 * must not keep what the sessions held.
 *
 * The seed and iteration count are fixed so a failure reproduces; `KUBEKIT_FUZZ_SEED` and
 * `KUBEKIT_FUZZ_ITERATIONS` run other sequences locally.
 */
import { Duplex, PassThrough } from "node:stream";
import { constants, createDeflate } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SPDY_HEADER_DICTIONARY } from "../../../packages/apiserver/src/streaming/spdy/spdy-dictionary.js";
import {
  encodeControlFrame,
  encodeDataFrame,
  SpdyFrameType,
  SpdyProtocolError,
  uint32Payload,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import { SpdyHeaderBlockError } from "../../../packages/apiserver/src/streaming/spdy/spdy-header-block.js";
import { SpdySession } from "../../../packages/apiserver/src/streaming/spdy/spdy-session.js";
import { retainedHeapBytes } from "../../support/garbage-collection.js";
import { SeededRandom } from "../../support/seeded-random.js";
import { eventually } from "../../support/server-test-helpers.js";
import { SpdyTestClient } from "../../support/spdy-test-client.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20_261_128);
const ITERATIONS = Number(process.env["KUBEKIT_FUZZ_ITERATIONS"] ?? 120);
const SENTINEL_PING = 0x7ffffff1;

/** A valid header block continuing a fresh zlib stream, then 16 MiB of zeros: ~16 KiB. */
async function headerBomb(): Promise<Buffer> {
  const deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY, level: 1 });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  deflate.write(Buffer.from([0, 0, 0, 0]));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 16; i++) deflate.write(zeros);
  await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  await new Promise((resolve) => setImmediate(resolve));
  deflate.destroy();
  return Buffer.concat(out);
}

function mutate(random: SeededRandom, bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  const flips = random.int(1, 4);
  for (let i = 0; i < flips && copy.length > 0; i++)
    copy[random.int(0, copy.length)] = random.int(0, 256);
  return random.chance(0.3) ? copy.subarray(0, random.int(0, copy.length + 1)) : copy;
}

/** One hostile or valid frame (or raw bytes), written through `client` or returned raw. */
function fuzzFrame(random: SeededRandom, client: SpdyTestClient, bomb: Buffer): Buffer | undefined {
  const streamId = random.chance(0.8) ? random.int(0, 12) * 2 + 1 : random.int(0, 2 ** 31);
  switch (random.int(0, 12)) {
    case 0:
    case 1:
      client.openStream({ streamtype: random.pick(["data", "error", "stdin"]), port: "80" });
      return undefined;
    case 2:
    case 3:
      return encodeDataFrame(streamId, random.int(0, 2), Buffer.alloc(random.int(0, 70_000), 7));
    case 4:
      return encodeControlFrame(
        SpdyFrameType.RstStream,
        0,
        uint32Payload(streamId, random.int(0, 12)),
      );
    case 5:
      return encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(random.int(0, 2 ** 31)));
    case 6:
      return encodeControlFrame(
        random.pick([
          SpdyFrameType.Settings,
          SpdyFrameType.WindowUpdate,
          SpdyFrameType.GoAway,
          5,
          10,
          0x7fff,
        ]),
        random.int(0, 256),
        Buffer.alloc(random.int(0, 24), random.int(0, 256)),
      );
    case 7: {
      const frame = encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(1));
      frame.writeUInt16BE(0x8000 | random.int(0, 8), 0); // another version
      return frame;
    }
    case 8:
      return encodeControlFrame(
        random.pick([
          SpdyFrameType.SynStream,
          SpdyFrameType.RstStream,
          SpdyFrameType.Ping,
          SpdyFrameType.Headers,
        ]),
        0,
        Buffer.alloc(random.int(0, 4)),
      );
    case 9: {
      const block = mutate(random, Buffer.from([0x78, 0x01, 0, 4, 0, 0xfb, 0xff, 0, 0, 0, 0]));
      return encodeControlFrame(
        SpdyFrameType.SynStream,
        0,
        Buffer.concat([uint32Payload(streamId, 0), Buffer.alloc(2), block]),
      );
    }
    case 10:
      return encodeControlFrame(
        SpdyFrameType.SynStream,
        0,
        Buffer.concat([uint32Payload(streamId, 0), Buffer.alloc(2), bomb]),
      );
    default: {
      // Random bytes in a frame whose length is right (the stream stays cut at frame bounds).
      const frame = Buffer.alloc(8 + random.int(0, 64), random.int(0, 256));
      frame.writeUInt32BE(random.int(0, 2 ** 32), 0);
      frame.writeUInt32BE(((random.int(0, 256) << 24) | (frame.length - 8)) >>> 0, 4);
      return frame;
    }
  }
}

/** Runs one fuzzed session; resolves with "alive" when it answered the last PING, or how it ended. */
async function fuzzSession(
  random: SeededRandom,
  bomb: Buffer,
): Promise<Error | undefined | "alive"> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const pending: Buffer[] = [];
  const client = new SpdyTestClient((bytes) => pending.push(bytes));
  toClient.on("data", (bytes: Buffer) => client.receive(bytes));
  let closed: { error: Error | undefined } | undefined;
  const behaviour = random.int(0, 4);
  const session = new SpdySession(Duplex.from({ readable: toServer, writable: toClient }), {
    onStream: (stream) => {
      if (behaviour === 0) stream.resume();
      else if (behaviour === 1) stream.end("hello");
      else if (behaviour === 2 && random.chance(0.5)) throw new Error("refused by the handler");
    },
    onClose: (error) => (closed = { error }),
  });
  const count = random.int(1, 40);
  for (let i = 0; i < count; i++) {
    const raw = fuzzFrame(random, client, bomb);
    if (raw) pending.push(raw);
  }
  client.sendPing(SENTINEL_PING);
  const bytes = Buffer.concat(pending);
  for (let offset = 0; offset < bytes.length;) {
    const size = random.int(1, 70_000);
    toServer.write(bytes.subarray(offset, offset + size));
    offset += size;
  }
  const outcome = await eventually(
    "the session answered its last PING or ended",
    async () => (closed ? closed : client.pings.includes(SENTINEL_PING) ? "alive" : undefined),
    5_000,
  );
  session.close();
  client.close();
  return outcome === "alive" ? outcome : outcome.error;
}

describe("SPDY session fuzzing", () => {
  it(`ends only with typed errors and keeps answering otherwise (seed ${SEED}, ${ITERATIONS} sessions)`, async () => {
    const random = new SeededRandom(SEED);
    const bomb = await headerBomb();
    const before = retainedHeapBytes();
    const outcomes = { alive: 0, clean: 0, protocol: 0, headerBlock: 0 };
    for (let i = 0; i < ITERATIONS; i++) {
      const outcome = await fuzzSession(random.derive(i), bomb);
      if (outcome === "alive") outcomes.alive++;
      else if (outcome === undefined) outcomes.clean++;
      else if (outcome instanceof SpdyProtocolError) outcomes.protocol++;
      else if (outcome instanceof SpdyHeaderBlockError) outcomes.headerBlock++;
      else throw new Error(`session ${i} ended with an untyped error: ${String(outcome)}`);
    }
    // Every kind of ending happened, so the generator reaches each path.
    expect(outcomes.alive).toBeGreaterThan(0);
    expect(outcomes.protocol).toBeGreaterThan(0);
    expect(outcomes.headerBlock).toBeGreaterThan(0);
    expect(retainedHeapBytes() - before).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);
});
