/**
 * A minimal WebSocket client over a raw TCP connection, for offering subprotocols the `ws`
 * client refuses to send: kubectl's `SPDY/3.1+portforward.k8s.io` is not an RFC 7230 token
 * (it holds a "/"), which gorilla/websocket sends anyway. Binary messages only, unfragmented
 * server frames (what `ws` sends), pings answered.
 */
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import type { Socket } from "node:net";

/** The server refused the upgrade. */
export interface RawWebSocketRefusal {
  readonly refused: true;
  readonly status: number;
  readonly body: string;
}

/** An open connection. */
export interface RawWebSocket {
  /** The `Sec-WebSocket-Protocol` the server answered (`""` when none). */
  readonly protocol: string;
  /** Sends one binary message. */
  send(data: Buffer): void;
  /** Calls `listener` with every binary message. */
  onMessage(listener: (data: Buffer) => void): void;
  /** Sends a close frame (1000) and ends the connection. */
  close(): void;
  /** Settles when the connection is closed. */
  readonly closed: Promise<void>;
}

const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/** Opens a WebSocket to 127.0.0.1:`port` `path`, sending `protocol` verbatim. */
export function openRawWebSocket(
  port: number,
  path: string,
  protocol: string,
): Promise<RawWebSocket | RawWebSocketRefusal> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("error", reject);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n` +
        `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
    );
    let buffered = Buffer.alloc(0);
    const onHead = (bytes: Buffer): void => {
      buffered = Buffer.concat([buffered, bytes]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onHead);
      const head = buffered.subarray(0, end).toString("latin1");
      const rest = buffered.subarray(end + 4);
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
      if (status !== 101) {
        let body = rest.toString();
        socket.on("data", (more: Buffer) => (body += more.toString()));
        socket.once("close", () => resolve({ refused: true, status, body }));
        return;
      }
      const answered = /\r\nsec-websocket-protocol: *([^\r]*)/i.exec(head)?.[1] ?? "";
      resolve(new Connection(socket, answered, rest));
    };
    socket.on("data", onHead);
  });
}

class Connection implements RawWebSocket {
  readonly closed: Promise<void>;
  private readonly listeners: ((data: Buffer) => void)[] = [];
  private pending = Buffer.alloc(0);

  constructor(
    private readonly socket: Socket,
    readonly protocol: string,
    rest: Buffer,
  ) {
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => undefined);
    socket.on("data", (bytes: Buffer) => this.receive(bytes));
    if (rest.length > 0) this.receive(rest);
  }

  send(data: Buffer): void {
    this.writeFrame(OP_BINARY, data);
  }

  onMessage(listener: (data: Buffer) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    if (this.socket.destroyed) return;
    this.writeFrame(OP_CLOSE, Buffer.from([0x03, 0xe8]));
    this.socket.end();
  }

  private writeFrame(opcode: number, payload: Buffer): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    const length =
      payload.length < 126
        ? Buffer.from([0x80 | payload.length])
        : payload.length < 0x10000
          ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff])
          : Buffer.concat([Buffer.from([0x80 | 127]), bigEndian64(payload.length)]);
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
    this.socket.write(Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked]));
  }

  private receive(bytes: Buffer): void {
    this.pending = Buffer.concat([this.pending, bytes]);
    for (;;) {
      if (this.pending.length < 2) return;
      const opcode = this.pending[0]! & 0x0f;
      let length = this.pending[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.pending.length < 4) return;
        length = this.pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.pending.length < 10) return;
        length = Number(this.pending.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.pending.length < offset + length) return;
      const payload = this.pending.subarray(offset, offset + length);
      this.pending = this.pending.subarray(offset + length);
      if (opcode === OP_BINARY)
        for (const listener of this.listeners) listener(Buffer.from(payload));
      else if (opcode === OP_PING) this.writeFrame(OP_PONG, payload);
      else if (opcode === OP_CLOSE) this.close();
    }
  }
}

function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
