import type { Duplex } from "node:stream";
import type { JsonObject } from "kubekit";
import { errorMessage, metadataOf } from "kubekit/apimachinery";
import type { ContainerHandlers } from "../containers/container-handlers.js";
import { builtinPortForwardHandler } from "./port-forward-builtin.js";

/** One forwarded connection to serve: which pod and port, and its data stream. */
export interface ForwardedConnection {
  readonly containers: ContainerHandlers;
  readonly namespace: string;
  readonly pod: JsonObject;
  readonly port: number;
  /** The connection's bytes both ways (a WebSocket data channel or a SPDY data stream). */
  readonly stream: Duplex;
  /** Aborted when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/**
 * How a protocol hands over one forwarded connection to `port`: `stream` carries its bytes,
 * `signal` is aborted when the client goes away; resolves with the text for the error stream
 * when the connection failed.
 */
export type ServeForwardedPort = (
  port: number,
  stream: Duplex,
  signal: AbortSignal,
) => Promise<string | undefined>;

/**
 * Serves one forwarded connection as the kubelet's `PortForward` does, with what runs
 * "inside" the pod: the latest matching `containers.onPortForward` handler, else the built-in
 * answer (`port-forward-builtin.ts`), else nothing listens. Resolves once the connection is
 * over: the handler ended its side of `stream` (or destroyed it), the client went away
 * (`signal`), or the handler failed. The resolved value is the text for the connection's error
 * stream, kubelet's `error forwarding port P to pod ID, uid : CAUSE`
 * (`pkg/kubelet/cri/streaming/portforward/httpstream.go`), or undefined when there was no error;
 * the caller writes it and closes the connection's streams. A handler's error ends this
 * connection only.
 */
export async function serveForwardedConnection(
  connection: ForwardedConnection,
): Promise<string | undefined> {
  const { containers, namespace, pod, port, stream, signal } = connection;
  const handler =
    containers.portForwardHandlerFor(pod, port) ?? builtinPortForwardHandler(pod, port);
  if (!handler) return forwardingError(pod, port, refusedCause(pod, port));
  const over = new Promise<void>((resolve) => {
    if (signal.aborted || stream.writableFinished || stream.destroyed) return resolve();
    stream.once("finish", () => resolve());
    stream.once("close", () => resolve());
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  try {
    await handler(stream, { namespace, pod, port, signal });
  } catch (err) {
    return forwardingError(pod, port, errorMessage(err));
  }
  await over;
  return undefined;
}

/** The sandbox id stands in for the pod in kubelet's messages; the pod's uid plays that part here. */
function forwardingError(pod: JsonObject, port: number, cause: string): string {
  const metadata = metadataOf(pod) ?? {};
  return `error forwarding port ${port} to pod ${String(metadata["uid"])}, uid : ${cause}`;
}

/** containerd's cause when nothing listens on the port inside the pod's network namespace. */
function refusedCause(pod: JsonObject, port: number): string {
  const metadata = metadataOf(pod) ?? {};
  return (
    `failed to connect to localhost:${port} inside namespace "${String(metadata["namespace"])}/${String(metadata["name"])}", ` +
    `IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused`
  );
}
