import { describe, expect, it } from "vitest";
import { StatusError, StreamProtocolError } from "kubekit";
import { decodeExecResult } from "../../../packages/kubekit/src/client/exec-result.js";
import {
  decodeChannelMessage,
  encodeChannelMessage,
  encodeCloseMessage,
  encodeResizeMessage,
  REMOTE_COMMAND_PROTOCOLS,
  RemoteCommandChannel,
} from "../../../packages/kubekit/src/core/websocket-channels.js";

const V5 = "v5.channel.k8s.io";

describe("remote command channel framing", () => {
  it("offers v5 before v4", () => {
    expect(REMOTE_COMMAND_PROTOCOLS).toEqual(["v5.channel.k8s.io", "v4.channel.k8s.io"]);
  });

  it("prefixes data with its channel byte", () => {
    const message = encodeChannelMessage(RemoteCommandChannel.stdin, Buffer.from("hi"));
    expect([...message]).toEqual([0, 0x68, 0x69]);
    expect([...encodeChannelMessage(RemoteCommandChannel.stderr, new Uint8Array())]).toEqual([2]);
  });

  it("rejects channels outside a byte", () => {
    expect(() => encodeChannelMessage(256, new Uint8Array())).toThrow(RangeError);
    expect(() => encodeChannelMessage(-1, new Uint8Array())).toThrow(RangeError);
    expect(() => encodeChannelMessage(1.5, new Uint8Array())).toThrow(RangeError);
  });

  it("encodes v5's close signal as [255, channel]", () => {
    expect([...encodeCloseMessage(RemoteCommandChannel.stdin)]).toEqual([255, 0]);
  });

  it("encodes a resize as TerminalSize JSON with Go's field names on channel 4", () => {
    const message = encodeResizeMessage({ width: 120, height: 40 });
    expect(message[0]).toBe(4);
    expect(JSON.parse(message.subarray(1).toString())).toEqual({ Width: 120, Height: 40 });
  });

  it("rejects terminal sizes that are not uint16", () => {
    expect(() => encodeResizeMessage({ width: 65536, height: 1 })).toThrow(/width/);
    expect(() => encodeResizeMessage({ width: 1, height: -1 })).toThrow(/height/);
    expect(() => encodeResizeMessage({ width: 1, height: 2.5 })).toThrow(RangeError);
  });

  it("splits a message into channel and data without copying", () => {
    const message = Buffer.from([1, 0x61, 0x62]);
    const decoded = decodeChannelMessage(message);
    expect(decoded?.channel).toBe(1);
    expect(decoded?.data.toString()).toBe("ab");
    expect(decoded?.data.buffer).toBe(message.buffer);
    expect(decodeChannelMessage(Buffer.from([3]))?.data.length).toBe(0);
  });

  it("has no channel for an empty message", () => {
    expect(decodeChannelMessage(Buffer.alloc(0))).toBeUndefined();
  });
});

describe("the error channel's Status", () => {
  const decode = (value: unknown): ReturnType<typeof decodeExecResult> =>
    decodeExecResult(V5, Buffer.from(typeof value === "string" ? value : JSON.stringify(value)));

  it("is exit code 0 for Success (kubelet sends a Status without kind)", () => {
    const result = decode({ metadata: {}, status: "Success" });
    expect(result.exitCode).toBe(0);
    expect(result.status).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success" });
  });

  it("takes the exit code of a NonZeroExitCode Failure from its ExitCode cause", () => {
    const result = decode({
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: exit status 3",
      reason: "NonZeroExitCode",
      details: {
        causes: [
          { reason: "Other", message: "7" },
          { reason: "ExitCode", message: "3" },
        ],
      },
    });
    expect(result.exitCode).toBe(3);
    expect(result.status?.message).toContain("exit status 3");
  });

  it("accepts exit codes up to 255 and nothing beyond", () => {
    const failure = (code: string): unknown => ({
      status: "Failure",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: code }] },
    });
    expect(decode(failure("255")).exitCode).toBe(255);
    expect(() => decode(failure("256"))).toThrow(/invalid exit code value "256"/);
    expect(() => decode(failure("-1"))).toThrow(StreamProtocolError);
    expect(() => decode(failure("3x"))).toThrow(StreamProtocolError);
  });

  it("is a protocol error when the NonZeroExitCode Status lacks details or the ExitCode cause", () => {
    expect(() => decode({ status: "Failure", reason: "NonZeroExitCode" })).toThrow(
      /details must be set/,
    );
    expect(() =>
      decode({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [] } }),
    ).toThrow(/no ExitCode cause given/);
  });

  it("throws a StatusError for any other Failure", () => {
    let caught: unknown;
    try {
      decode({
        status: "Failure",
        message: 'exec: "nope": executable file not found in $PATH',
        reason: "InternalError",
        code: 500,
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StatusError);
    expect((caught as StatusError).code).toBe(500);
    expect((caught as StatusError).message).toContain("executable file not found");
  });

  it("is a protocol error for content that is not a Status", () => {
    expect(() => decode("not json")).toThrow(/v5.channel.k8s.io stream protocol error/);
    expect(() => decode("[1]")).toThrow(StreamProtocolError);
    expect(() => decode({ metadata: {} })).toThrow(/unknown error/);
    expect(() => decode({ status: "Pending" })).toThrow(/unknown error/);
  });
});
