import { Duplex } from "node:stream";
import { FLAG_FIN, INITIAL_WINDOW_SIZE, MAX_FRAME_PAYLOAD, RstStatus } from "./spdy-frames.js";
import type { SpdyHeaders } from "./spdy-header-block.js";

/** What a {@link SpdyStream} needs from its session to send frames. */
export interface SpdyStreamSink {
  /**
   * Sends a data frame of the stream; `done` runs once the transport took it or failed (a
   * failed transport ends the session, which abandons its streams: the stream itself never
   * errors for it).
   */
  sendData(stream: SpdyStream, flags: number, payload: Buffer, done: () => void): void;
  /** Sends RST_STREAM for the stream. */
  sendReset(stream: SpdyStream, status: number): void;
  /** The stream's reader consumed `delta` more bytes: WINDOW_UPDATE for the stream (and the session). */
  sendWindowUpdate(stream: SpdyStream, delta: number): void;
  /** The stream is over (closed both ways or reset): the session forgets it. */
  forget(stream: SpdyStream): void;
}

/**
 * One SPDY/3.1 stream opened by the peer, as a Node Duplex: what is written goes out as DATA
 * frames of the stream, `end()` sends an empty DATA frame with FLAG_FIN (a half close, the
 * stream stays readable), and the peer's DATA frames are readable until its FLAG_FIN (the
 * readable side ends). A RST_STREAM from the peer ends the readable side and drops later
 * writes (see {@link receiveReset}); destroying it locally before both sides finished sends RST_STREAM
 * CANCEL, as spdystream's `Stream.Reset` does.
 *
 * Flow control on receipt (SPDY/3.1, section 2.6.8): the peer's window starts at
 * {@link INITIAL_WINDOW_SIZE} and is reopened with WINDOW_UPDATE as the reader consumes (by
 * half a window at least). The session bounds what a stream may hold unread, since
 * moby/spdystream (kubectl's and the kubelet's SPDY) neither honours nor sends windows. On
 * sending, windows are not honoured either, for the same reason: a window-honouring sender
 * would stall at 64 KiB against kubectl.
 */
export class SpdyStream extends Duplex {
  /** True once the peer reset the stream (RST_STREAM). */
  resetByPeer = false;
  #transportGone = false;
  #remoteFinished = false;
  /** Data bytes received, and how many of them WINDOW_UPDATEs gave back to the peer. */
  #received = 0;
  #acknowledged = 0;

  readonly #sink: SpdyStreamSink;

  constructor(
    /** The stream id the peer chose (odd: client-initiated). */
    readonly id: number,
    /** The SYN_STREAM's headers. */
    readonly headers: SpdyHeaders,
    sink: SpdyStreamSink,
    /** The decompressed size of the SYN_STREAM's header block (what holding the headers costs). */
    readonly headerBytes = 0,
  ) {
    super({ allowHalfOpen: true });
    this.#sink = sink;
  }

  /** The first value of header `name` (lowercase), if present. */
  header(name: string): string | undefined {
    return this.headers.get(name)?.[0];
  }

  /** Session side: the peer's data (copied: the payload may be a view of a larger buffer). */
  receiveData(payload: Buffer): void {
    if (this.#remoteFinished || this.destroyed || payload.length === 0) return;
    this.#received += payload.length;
    this.push(Buffer.from(payload));
  }

  /** Data bytes received and not acknowledged by a WINDOW_UPDATE yet (read or not). */
  get unacknowledgedBytes(): number {
    return this.#received - this.#acknowledged;
  }

  /** Session side: the peer's FLAG_FIN. */
  receiveFin(): void {
    if (this.#remoteFinished || this.destroyed) return;
    this.#remoteFinished = true;
    this.push(null);
  }

  /**
   * Session side: the peer's RST_STREAM. The readable side ends (so a `pipe` ends its
   * destination), later writes are dropped, and the stream is destroyed once the local side
   * finished too.
   */
  receiveReset(): void {
    this.resetByPeer = true;
    this.receiveFin();
    if (this.writableFinished) this.destroy();
  }

  /** Session side: the transport is gone; the stream ends without sending anything more. */
  abandon(): void {
    this.#transportGone = true;
    this.destroy();
  }

  override _read(): void {
    // Data is pushed as frames arrive; a read means the reader consumed: reopen the window.
    const consumed = this.#received - this.readableLength - this.#acknowledged;
    if (consumed >= INITIAL_WINDOW_SIZE / 2 && !this.#remoteFinished) {
      this.#acknowledged += consumed;
      this.#sink.sendWindowUpdate(this, consumed);
    }
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (err?: Error | null) => void,
  ): void {
    if (this.resetByPeer) callback();
    else this.#sendChunks(chunk, 0, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    if (this.resetByPeer) callback();
    else this.#sink.sendData(this, FLAG_FIN, Buffer.alloc(0), () => callback());
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const finished = this.writableFinished && this.readableEnded;
    if (!finished && !this.resetByPeer && !this.#transportGone)
      this.#sink.sendReset(this, RstStatus.Cancel);
    this.#sink.forget(this);
    callback(err);
  }

  #sendChunks(chunk: Buffer, offset: number, callback: (err?: Error | null) => void): void {
    const end = Math.min(chunk.length, offset + MAX_FRAME_PAYLOAD);
    this.#sink.sendData(this, 0, chunk.subarray(offset, end), () => {
      if (end >= chunk.length || this.destroyed) callback();
      else this.#sendChunks(chunk, end, callback);
    });
  }
}
