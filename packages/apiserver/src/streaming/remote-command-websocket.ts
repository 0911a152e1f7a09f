/**
 * The server end of kube's remote-command WebSocket protocols, as kube-apiserver's stream
 * translator (`staging/src/k8s.io/apiserver/pkg/util/proxy/websocket.go`, v5) and the
 * kubelet's streaming server (`pkg/kubelet/cri/streaming/remotecommand/websocket.go`, v4)
 * speak them over `wsstream` (`k8s.io/apiserver/pkg/util/wsstream/conn.go`): binary messages
 * whose first byte is the channel — 0 stdin, 1 stdout, 2 stderr, 3 error (one JSON
 * `metav1.Status`), 4 resize (JSON `{"Width":W,"Height":H}`) — and, in v5 only, 255 = close,
 * whose second byte names the channel the client has finished writing (stdin EOF). Text
 * messages are read like binary ones (wsstream's `websocket.Message.Receive` takes either;
 * the Python client's `write_stdin` sends text). Frames leave one at a time, each written to
 * the socket before the next starts, as the kubelet's one writer per connection does: the
 * ready message, the output, the status on the error channel, then the close frame.
 */
import { EventEmitter } from "node:events";
import { Readable, Writable } from "node:stream";
import type { WebSocket } from "ws";
import { type JsonObject, type Status, REMOTE_COMMAND_PROTOCOL_V5 } from "kubekit";
import {
  decodeChannelMessage,
  encodeChannelMessage,
  REMOTE_COMMAND_PROTOCOLS,
  RemoteCommandChannel,
} from "kubekit/apimachinery";
import {
  endWriter,
  errorStreamBody,
  parseTerminalSize,
  type RemoteCommandStreams,
  type RequestedStreams,
} from "./remote-command-streams.js";

/** The protocols served, in no order of preference (the client's order decides). */
const SUPPORTED = new Set(REMOTE_COMMAND_PROTOCOLS);

const {
  stdin: STDIN,
  stdout: STDOUT,
  stderr: STDERR,
  error: ERROR,
  resize: RESIZE,
  close: CLOSE,
} = RemoteCommandChannel;

/**
 * The protocol to answer with: the first one the client offers (`Sec-WebSocket-Protocol`,
 * comma-separated, in its order of preference) that is served, as wsstream's handshake picks
 * it; `undefined` when none is.
 */
export function negotiateStreamProtocol(header: string | undefined): string | undefined {
  for (const offered of (header ?? "").split(",")) {
    const protocol = offered.trim();
    if (SUPPORTED.has(protocol)) return protocol;
  }
  return undefined;
}

/**
 * One accepted remote-command WebSocket (see {@link RemoteCommandStreams}). Messages on
 * channels the client did not ask for are dropped, as wsstream ignores them. `stdin` ends on
 * the v5 close signal for channel 0 or when the connection goes away; reading it applies
 * backpressure to the connection.
 */
export class WebSocketRemoteCommand implements RemoteCommandStreams {
  readonly stdin: Readable | undefined;
  readonly stdout: Writable | undefined;
  readonly stderr: Writable | undefined;
  readonly resizes = new EventEmitter();
  readonly #aborter = new AbortController();
  #finished = false;
  #stdinEnded = false;
  /** Settles once every frame sent so far has been written to the socket. */
  #written: Promise<void> = Promise.resolve();

  readonly #ws: WebSocket;

  constructor(
    ws: WebSocket,
    /** The negotiated protocol (`v5.channel.k8s.io` or `v4.channel.k8s.io`). */
    readonly protocol: string,
    streams: RequestedStreams,
  ) {
    this.#ws = ws;
    this.stdin = streams.stdin
      ? new Readable({ read: () => this.#ws.isPaused && this.#ws.resume() })
      : undefined;
    this.stdout = streams.stdout ? this.#channelWriter(STDOUT) : undefined;
    this.stderr = streams.stderr ? this.#channelWriter(STDERR) : undefined;
    ws.on("message", (data) => this.#receive(toBuffer(data)));
    ws.on("close", () => {
      this.#endStdin();
      if (!this.#finished) this.#aborter.abort(new Error("the client closed the connection"));
    });
    ws.on("error", () => ws.terminate());
    // wsstream tells the client the streams are ready with an empty message on the lowest
    // writable channel (`createWebSocketStreams`).
    void this.#send(streams.stdout ? STDOUT : streams.stderr ? STDERR : ERROR, Buffer.alloc(0));
  }

  /** Aborted when the connection closes before the session finished. */
  get signal(): AbortSignal {
    return this.#aborter.signal;
  }

  /**
   * Ends the session as kube's `conns.finish` does: stops reading stdin and resizes, waits
   * for the output written so far to reach the socket, writes `status` on the error channel
   * and, once that frame is written, sends a normal close frame (sent together, python-client
   * 22.6.0 misses the status); the client closes the connection once it has read everything
   * (`ws` cuts it 30 s later if it never answers the close).
   */
  async finish(status: Status | JsonObject): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#endStdin();
    this.resizes.removeAllListeners();
    await Promise.all([endWriter(this.stdout), endWriter(this.stderr)]);
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    await this.#send(ERROR, Buffer.from(errorStreamBody(status)));
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.close(1000);
  }

  #receive(data: Buffer): void {
    const message = decodeChannelMessage(data);
    if (this.#finished || message === undefined) return;
    const { channel, data: payload } = message;
    if (channel === STDIN && this.stdin && !this.#stdinEnded) {
      if (payload.length > 0 && !this.stdin.push(payload)) this.#ws.pause();
    } else if (channel === RESIZE) {
      const size = parseTerminalSize(payload.toString("utf8"));
      if (size) this.resizes.emit("resize", size);
    } else if (
      channel === CLOSE &&
      this.protocol === REMOTE_COMMAND_PROTOCOL_V5 &&
      payload[0] === STDIN
    ) {
      this.#endStdin();
    }
  }

  #endStdin(): void {
    const stdin = this.stdin;
    if (!stdin || this.#stdinEnded) return;
    this.#stdinEnded = true;
    if (!stdin.destroyed) stdin.push(null);
    if (this.#ws.isPaused) this.#ws.resume();
  }

  /**
   * Sends one channel message after every earlier one has been written to the socket;
   * settles when it has been written (or dropped, the connection being gone). Never rejects.
   */
  #send(channel: number, payload: Buffer): Promise<void> {
    const frame = encodeChannelMessage(channel, payload);
    const written = this.#written.then(
      () =>
        new Promise<void>((resolve) => {
          if (this.#ws.readyState !== this.#ws.OPEN) resolve();
          else this.#ws.send(frame, { binary: true }, () => resolve());
        }),
    );
    this.#written = written;
    return written;
  }

  #channelWriter(channel: number): Writable {
    const writer = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        // A write after the client went away is dropped rather than failed: the session's
        // signal tells the writer to stop.
        void this.#send(channel, chunk).then(() => callback());
      },
    });
    // A handler writing after the session finished gets ERR_STREAM_WRITE_AFTER_END through
    // its write callback; it must not become an uncaught error event of the server.
    writer.on("error", () => undefined);
    return writer;
  }
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}
