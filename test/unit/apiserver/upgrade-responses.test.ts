import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  markUpgraded,
  writeUpgradeRefusal,
} from "../../../packages/apiserver/src/streaming/upgrade-responses.js";

describe("writeUpgradeRefusal", () => {
  it("writes a complete HTTP answer on a socket that has not switched protocols", () => {
    const socket = new PassThrough();
    writeUpgradeRefusal(socket, 400, "bad ports", "text/plain; charset=utf-8");
    const written = String(socket.read());
    expect(written).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(written.endsWith("\r\n\r\nbad ports")).toBe(true);
  });

  it("never writes HTTP on a socket that switched protocols: it is destroyed instead", () => {
    const socket = new PassThrough();
    markUpgraded(socket);
    writeUpgradeRefusal(socket, 500, "too late", "text/plain");
    expect(socket.destroyed).toBe(true);
    expect(socket.read()).toBeNull();
  });
});
