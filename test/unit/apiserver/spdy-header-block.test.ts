import { constants, createDeflate, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SPDY_HEADER_DICTIONARY } from "../../../packages/apiserver/src/streaming/spdy/spdy-dictionary.js";
import {
  SpdyHeaderBlockDecoder,
  SpdyHeaderBlockEncoder,
  SpdyHeaderBlockError,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-header-block.js";

/** Adler-32 (RFC 1950), the zlib dictionary id. */
function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** An uncompressed name/value block, as the spec lays it out. */
function rawBlock(pairs: readonly [string, string][]): Buffer {
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  return Buffer.concat([
    u32(pairs.length),
    ...pairs.flatMap(([k, v]) => [
      u32(Buffer.byteLength(k)),
      Buffer.from(k),
      u32(Buffer.byteLength(v)),
      Buffer.from(v),
    ]),
  ]);
}

/** Compresses blocks as Go's spdy framer does: one zlib stream with the dictionary, a sync flush per block. */
async function compressLikeSpdystream(blocks: readonly Buffer[]): Promise<Buffer[]> {
  const deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY, level: 9 });
  let pending: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => pending.push(chunk));
  const out: Buffer[] = [];
  for (const block of blocks) {
    deflate.write(block);
    await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    out.push(Buffer.concat(pending));
    pending = [];
  }
  deflate.destroy();
  return out;
}

const plain = (
  headers: ReadonlyMap<string, readonly string[]>,
): Record<string, readonly string[]> => Object.fromEntries(headers);

describe("SPDY/3 header blocks", () => {
  it("the dictionary is SPDY/3's: 1423 bytes with dictionary id (Adler-32) 0xe3c6a7c2", () => {
    expect(SPDY_HEADER_DICTIONARY.length).toBe(1423);
    expect(adler32(SPDY_HEADER_DICTIONARY).toString(16)).toBe("e3c6a7c2");
  });

  it("decodes blocks a dictionary-preset zlib stream compressed, the context carrying over", async () => {
    const blocks = [
      rawBlock([
        ["streamtype", "error"],
        ["port", "8080"],
        ["requestid", "0"],
      ]),
      rawBlock([
        ["streamtype", "data"],
        ["port", "8080"],
        ["requestid", "0"],
      ]),
      rawBlock([["accept", "a\0b"]]),
    ];
    const compressed = await compressLikeSpdystream(blocks);
    // The second block leans on the first (the same names again): it is much smaller.
    expect(compressed[1]!.length).toBeLessThan(compressed[0]!.length / 2);
    const decoder = new SpdyHeaderBlockDecoder();
    try {
      expect(plain(await decoder.decode(compressed[0]!))).toEqual({
        streamtype: ["error"],
        port: ["8080"],
        requestid: ["0"],
      });
      expect(plain(await decoder.decode(compressed[1]!))).toEqual({
        streamtype: ["data"],
        port: ["8080"],
        requestid: ["0"],
      });
      expect(plain(await decoder.decode(compressed[2]!))).toEqual({ accept: ["a", "b"] });
    } finally {
      decoder.close();
    }
  });

  it("encodes blocks any zlib reader reads back as one stream, and the decoder round-trips them", async () => {
    const encoder = new SpdyHeaderBlockEncoder();
    const first = encoder.encode(new Map([["port", ["80"]]]));
    const second = encoder.encode(new Map());
    const big = encoder.encode(new Map([["x", ["y".repeat(70_000)]]])); // more than one stored block
    expect(first.subarray(0, 2).toString("hex")).toBe("7801"); // the zlib header, first block only
    // Each block ends as a sync flush does: an empty stored block (a streaming reader such as
    // Go's flate hands the block's bytes over only once it sees the next block).
    for (const block of [first, second, big])
      expect(block.subarray(-5).toString("hex")).toBe("000000ffff");
    expect(second.toString("hex")).toBe("0004" + "00fbff" + "00000000" + "000000ffff");
    const inflated = inflateSync(Buffer.concat([first, second, big]), {
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    expect(
      inflated.equals(
        Buffer.concat([
          rawBlock([["port", "80"]]),
          rawBlock([]),
          rawBlock([["x", "y".repeat(70_000)]]),
        ]),
      ),
    ).toBe(true);
    const decoder = new SpdyHeaderBlockDecoder();
    try {
      expect(plain(await decoder.decode(first))).toEqual({ port: ["80"] });
      expect(plain(await decoder.decode(second))).toEqual({});
      expect((await decoder.decode(big)).get("x")?.[0]?.length).toBe(70_000);
    } finally {
      decoder.close();
    }
  });

  it("rejects bytes that are not zlib, and every block after them", async () => {
    const decoder = new SpdyHeaderBlockDecoder();
    try {
      await expect(decoder.decode(Buffer.from("not zlib at all"))).rejects.toBeInstanceOf(
        SpdyHeaderBlockError,
      );
      await expect(
        decoder.decode(new SpdyHeaderBlockEncoder().encode(new Map())),
      ).rejects.toBeInstanceOf(SpdyHeaderBlockError);
    } finally {
      decoder.close();
    }
  });

  it("rejects a block that stops short, and one that repeats a name", async () => {
    const truncated = new SpdyHeaderBlockEncoder().encode(new Map([["port", ["80"]]]));
    const short = new SpdyHeaderBlockDecoder();
    try {
      await expect(short.decode(truncated.subarray(0, truncated.length - 8))).rejects.toThrow(
        "incomplete SPDY header block",
      );
    } finally {
      short.close();
    }
    const [repeated] = await compressLikeSpdystream([
      rawBlock([
        ["port", "1"],
        ["port", "2"],
      ]),
    ]);
    const duplicate = new SpdyHeaderBlockDecoder();
    try {
      await expect(duplicate.decode(repeated!)).rejects.toThrow('repeats the header "port"');
    } finally {
      duplicate.close();
    }
  });

  it("refuses bytes inflated past the end of the block in the same frame", async () => {
    const [frame] = await compressLikeSpdystream([
      Buffer.concat([rawBlock([["port", "80"]]), Buffer.from("trailing")]),
    ]);
    const decoder = new SpdyHeaderBlockDecoder();
    try {
      await expect(decoder.decode(frame!)).rejects.toThrow(
        "SPDY header block followed by more bytes in its frame",
      );
    } finally {
      decoder.close();
    }
  });

  it("stops inflating a zlib bomb after the block at 1 MiB instead of inflating it all", async () => {
    // A valid block, then 64 MiB of zeros in the same frame: about 64 KiB compressed.
    const deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY, level: 1 });
    const compressed: Buffer[] = [];
    deflate.on("data", (chunk: Buffer) => compressed.push(chunk));
    deflate.write(rawBlock([["port", "80"]]));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 64; i++) deflate.write(zeros);
    await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    deflate.destroy();
    const bomb = Buffer.concat(compressed);
    expect(bomb.length).toBeLessThan(512 * 1024);
    const decoder = new SpdyHeaderBlockDecoder();
    try {
      await expect(decoder.decode(bomb)).rejects.toThrow("SPDY header block exceeds 1048576 bytes");
      // The zlib state is gone: the connection cannot go on.
      await expect(
        decoder.decode(new SpdyHeaderBlockEncoder().encode(new Map())),
      ).rejects.toBeInstanceOf(SpdyHeaderBlockError);
    } finally {
      decoder.close();
    }
  });
});
