/**
 * The server end of kube's WebSocket port-forward protocol, as the kubelet's streaming server
 * speaks it (`pkg/kubelet/cri/streaming/portforward/websocket.go` over
 * `k8s.io/apiserver/pkg/util/wsstream`): one WebSocket forwards one connection to each port of
 * the request's `ports` query. Port i gets channel 2i (data, both ways) and channel 2i+1
 * (error, server to client); every binary message starts with its channel byte. The server's
 * first message on each of the two channels is the port as a 16-bit little-endian integer;
 * after that the data channel carries the connection's bytes and the error channel at most one
 * error text. There is no per-channel close in this protocol: the WebSocket closes (1000) once
 * every port's connection is over, and the client closing it ends them all.
 */
import { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { encodeChannelMessage, encodePortPrefix } from "kubekit/apimachinery";
import type { ServeForwardedPort } from "./port-forward-connection.js";

/**
 * Runs the port-forward channel protocol on an accepted WebSocket for `ports` (in query
 * order), handing each port's data channel to `serve` as a Duplex; `signal` aborts every
 * connection (server stop). Messages on other channels, and text messages, are dropped.
 */
export function servePortForwardWebSocket(
  ws: WebSocket,
  ports: readonly number[],
  serve: ServeForwardedPort,
  signal: AbortSignal,
): void {
  const aborter = new AbortController();
  const abort = (): void => aborter.abort();
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  const channels = ports.map((port, i) => new DataChannel(ws, 2 * i));
  ws.on("message", (data: Buffer, isBinary: boolean) => {
    const channel = data[0];
    if (isBinary && channel !== undefined && channel % 2 === 0)
      channels[channel / 2]?.receive(data.subarray(1));
  });
  ws.once("close", () => {
    signal.removeEventListener("abort", abort);
    aborter.abort();
    for (const channel of channels) channel.socketClosed();
  });
  ws.on("error", () => ws.terminate());
  aborter.signal.addEventListener("abort", () => ws.close(1000), { once: true });

  for (const [i, port] of ports.entries()) {
    ws.send(encodeChannelMessage(2 * i, encodePortPrefix(port)));
    ws.send(encodeChannelMessage(2 * i + 1, encodePortPrefix(port)));
  }
  void Promise.all(
    ports.map(async (port, i) => {
      const error = await serve(port, channels[i]!, aborter.signal);
      if (error !== undefined && ws.readyState === ws.OPEN)
        ws.send(encodeChannelMessage(2 * i + 1, Buffer.from(error, "utf8")));
    }),
  ).then(() => aborter.abort());
}

/**
 * A data channel as a Duplex: writes become messages on the channel, its messages are
 * readable. When the WebSocket closes the readable side ends (so a `pipe` ends its
 * destination) and later writes are dropped.
 */
class DataChannel extends Duplex {
  #open = true;

  readonly #ws: WebSocket;
  readonly #channel: number;

  constructor(ws: WebSocket, channel: number) {
    super({ allowHalfOpen: true });
    this.#ws = ws;
    this.#channel = channel;
  }

  receive(data: Buffer): void {
    if (this.#open) this.push(Buffer.from(data));
  }

  /** The WebSocket closed: the client sends nothing more and reads nothing more. */
  socketClosed(): void {
    if (!this.#open) return;
    this.#open = false;
    this.push(null);
    if (this.writableFinished) this.destroy();
  }

  override _read(): void {
    // Messages are pushed as they arrive.
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (err?: Error | null) => void,
  ): void {
    if (!this.#open || this.#ws.readyState !== this.#ws.OPEN) return callback();
    // A failed send closes the WebSocket, which ends the channel: the stream never errors.
    this.#ws.send(encodeChannelMessage(this.#channel, chunk), () => callback());
  }

  override _final(callback: (err?: Error | null) => void): void {
    callback(); // no per-channel close in v4: the connection ends with the WebSocket
  }
}
