/**
 * The server end of kube's SPDY port-forward protocol `portforward.k8s.io`, as the kubelet's
 * streaming server speaks it (`pkg/kubelet/cri/streaming/portforward/httpstream.go`), over a
 * raw `Upgrade: SPDY/3.1` connection or a WebSocket tunnelling SPDY (kubectl 1.31+). The
 * client opens two streams per forwarded connection, both with headers `port`, `streamtype`
 * (`error` or `data`) and `requestid` (the pair's key); the connection is served once both
 * arrived. Streams without a valid port or stream type, or a second stream of one type for a
 * request, are refused. When a connection is over the server closes both its streams (FLAG_FIN),
 * writing the error text first on the error stream when there was one. Pairs that never
 * complete wait until the session ends (the kubelet gives up after its stream creation timeout).
 */
import type { Duplex } from "node:stream";
import { SpdySession } from "./spdy/spdy-session.js";
import type { SpdyStream } from "./spdy/spdy-stream.js";
import type { ServeForwardedPort } from "./port-forward-connection.js";

/** The SPDY subprotocol of port forwarding (`X-Stream-Protocol-Version`). */
export const PORT_FORWARD_SPDY_PROTOCOL = "portforward.k8s.io";

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
}

/**
 * Serves port forwarding over SPDY/3.1 on `transport` (the upgraded socket, or the byte
 * stream of a tunnelling WebSocket) until the client closes it or `signal` aborts (server
 * stop: GOAWAY and close). Each forwarded connection goes to `serve`.
 */
export function servePortForwardSpdy(
  transport: Duplex,
  serve: ServeForwardedPort,
  signal: AbortSignal,
): void {
  const pairs = new Map<string, StreamPair>();
  const session = new SpdySession(transport, {
    onStream: (stream) => {
      const { requestId, type } = parseStreamHeaders(stream);
      const pair = pairs.get(requestId) ?? {};
      if (pair[type]) throw new Error(`${type} stream already assigned`);
      pair[type] = stream;
      pairs.set(requestId, pair);
      if (type === "error") stream.resume(); // the client sends nothing on it but its FIN
      const { data, error } = pair;
      if (data && error) {
        pairs.delete(requestId);
        void forward(Number(data.header("port")), data, error);
      }
    },
    onClose: () => signal.removeEventListener("abort", stop),
  });
  const stop = (): void => session.close();
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });

  async function forward(port: number, data: SpdyStream, error: SpdyStream): Promise<void> {
    // The session's end destroys its streams too, so this covers the client going away.
    const message = await serve(port, data, closedSignal(data));
    if (!error.destroyed) error.end(message);
    if (!data.destroyed && !data.writableEnded) data.end();
  }
}

/** A signal aborted when `stream` closes (reset, or finished both ways). */
function closedSignal(stream: SpdyStream): AbortSignal {
  const closed = new AbortController();
  if (stream.destroyed) closed.abort();
  else stream.once("close", () => closed.abort());
  return closed.signal;
}

/**
 * The pair key and stream type of a stream, its headers checked as the kubelet's
 * `httpStreamReceived` does; throws (refusing the stream) when invalid. A stream without a
 * `requestid` (clients before kube 1.6) is paired by stream id: an error stream's own id, a
 * data stream's id minus 2.
 */
function parseStreamHeaders(stream: SpdyStream): { requestId: string; type: "data" | "error" } {
  const portText = stream.header("port");
  if (portText === undefined || portText === "") throw new Error(`"port" header is required`);
  if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
    throw new Error(`unable to parse "${portText}" as a port`);
  const type = stream.header("streamtype");
  if (type !== "data" && type !== "error") throw new Error(`invalid stream type "${type ?? ""}"`);
  const requestId =
    stream.header("requestid") ?? String(type === "error" ? stream.id : stream.id - 2);
  return { requestId, type };
}
