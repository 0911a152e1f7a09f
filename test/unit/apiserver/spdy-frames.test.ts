import { describe, expect, it } from "vitest";
import {
  encodeControlFrame,
  encodeDataFrame,
  FLAG_FIN,
  MAX_FRAME_PAYLOAD,
  SpdyFrameParser,
  SpdyFrameType,
  uint32Payload,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";

describe("SPDY/3.1 framing", () => {
  it("encodes a control frame: control bit, version 3, type, flags, 24-bit length", () => {
    const frame = encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(7));
    expect([...frame]).toEqual([0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 7]);
    const rst = encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(3, 5));
    expect(rst.subarray(0, 8).toString("hex")).toBe("8003000300000008");
  });

  it("encodes a data frame: control bit clear, 31-bit stream id, flags, length", () => {
    const frame = encodeDataFrame(5, FLAG_FIN, Buffer.from("hi"));
    expect(frame.toString("hex")).toBe("00000005" + "01000002" + "6869");
  });

  it("refuses a payload longer than the 24-bit length field", () => {
    const big = { length: MAX_FRAME_PAYLOAD + 1 } as Buffer;
    expect(() => encodeDataFrame(1, 0, big)).toThrow(RangeError);
  });

  it("cuts frames from bytes arriving one at a time and several per chunk", () => {
    const bytes = Buffer.concat([
      encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(1)),
      encodeDataFrame(3, 0, Buffer.from("abc")),
      encodeDataFrame(3, FLAG_FIN, Buffer.alloc(0)),
      encodeControlFrame(SpdyFrameType.GoAway, 0, uint32Payload(3, 0)),
    ]);
    const trickled = new SpdyFrameParser();
    const fromTrickle = [...bytes].flatMap((b) => trickled.push(Buffer.from([b])));
    const fromWhole = new SpdyFrameParser().push(bytes);
    for (const frames of [fromTrickle, fromWhole]) {
      expect(frames.map((f) => (f.control ? `c${f.type}` : `d${f.streamId}:${f.flags}`))).toEqual([
        "c6",
        "d3:0",
        "d3:1",
        "c7",
      ]);
      const data = frames[1]!;
      expect(data.payload.toString()).toBe("abc");
      expect(frames[0]!.control && frames[0]!.version).toBe(3);
    }
  });

  it("keeps an incomplete frame until the rest arrives", () => {
    const parser = new SpdyFrameParser();
    const frame = encodeDataFrame(1, 0, Buffer.from("payload"));
    expect(parser.push(frame.subarray(0, 10))).toEqual([]);
    const [done] = parser.push(frame.subarray(10));
    expect(done?.payload.toString()).toBe("payload");
  });
});
