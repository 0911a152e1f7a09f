/**
 * One forwarded local connection over its own WebSocket, in kube's port-forward channel
 * protocol (`v4.channel.k8s.io` for `pods/portforward`, served by the kubelet's
 * `pkg/kubelet/cri/streaming/portforward/websocket.go`): the request's single `ports` value
 * gets channel 0 (data, both ways) and channel 1 (error, server to client); each binary
 * message starts with its channel byte, and the server starts each channel with the port as a
 * 16-bit little-endian integer.
 */
import type { Socket } from "node:net";
import type WebSocket from "ws";
import type { RESTClient } from "../rest/rest-client.js";
import { openApiWebSocket } from "./api-websocket.js";
import {
  encodeChannelMessage,
  encodePortPrefix,
  PORT_FORWARD_CHANNEL_PROTOCOL,
} from "../core/websocket-channels.js";
import { startHeartbeat } from "./websocket-heartbeat.js";
import type { ForwardedPort } from "./port-forward-ports.js";
import { errorMessage } from "../core/error-message.js";
import { ErrorChannelBuffer } from "./error-channel-buffer.js";
import { textExcerpt } from "./text-excerpt.js";

const DATA_CHANNEL = 0;
const ERROR_CHANNEL = 1;
/** The port prefix the server sends first on each channel. */
const PORT_PREFIX_BYTES = 2;
const NORMAL_CLOSURE = 1000;

/** Where one local connection goes. */
export interface ForwardTarget {
  readonly client: RESTClient;
  readonly namespace: string;
  readonly pod: string;
  readonly port: ForwardedPort;
  /** Aborting it ends the connection at once (the forward is closing). */
  readonly signal: AbortSignal;
}

/**
 * Carries `local` (accepted paused) to the pod's port over a new WebSocket until either side
 * ends, and resolves then; never rejects. Failures end this connection only and are logged
 * through the client's logger: a refused upgrade (the server's Status), an error text on the
 * error channel (e.g. nothing listens on the port: the local connection is reset), a broken
 * channel protocol or an unanswered heartbeat (warn); the local side going away (debug).
 * The error channel's text is bounded (its first 64 KiB kept, the rest counted and dropped)
 * and the warn line quotes at most its first few KiB, followed by its size in bytes.
 *
 * The v4 protocol cannot half-close: the local peer's end of input (EOF) ends the forwarded
 * connection, closing the WebSocket after what was read before it (as client-node's
 * `PortForward` does); answers the pod sends after that are lost.
 */
export async function forwardLocalConnection(local: Socket, target: ForwardTarget): Promise<void> {
  const { client, namespace, pod, port, signal } = target;
  const fields = { namespace, pod, localPort: port.local, remotePort: port.remote };
  const logger = client.logger;
  local.on("error", (err) =>
    logger.debug("port-forward: local connection error", { ...fields, error: err.message }),
  );
  const ws = await openForwardSocket(target, fields);
  if (ws === undefined) {
    local.destroy();
    return;
  }
  return new Promise<void>((resolve) => {
    const pendingPrefix = [PORT_PREFIX_BYTES, PORT_PREFIX_BYTES];
    const errorText = new ErrorChannelBuffer();
    let failure: string | undefined;
    const fail = (message: string): void => {
      failure ??= message;
      ws.terminate();
    };
    const heartbeat = startHeartbeat(ws, client.clock, () =>
      fail("no heartbeat answer from the server"),
    );
    const onAbort = (): void => {
      ws.close(NORMAL_CLOSURE);
      local.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });

    ws.on("message", (data: Buffer, isBinary: boolean) => {
      const channel = data[0];
      if (!isBinary || channel === undefined) {
        fail("the server sent a message that is not a binary channel message");
        return;
      }
      let payload = data.subarray(1);
      if (channel === DATA_CHANNEL || channel === ERROR_CHANNEL) {
        const prefix = Math.min(pendingPrefix[channel]!, payload.length);
        const expected = encodePortPrefix(port.remote);
        const offset = PORT_PREFIX_BYTES - pendingPrefix[channel]!;
        if (!payload.subarray(0, prefix).equals(expected.subarray(offset, offset + prefix))) {
          fail(`the server's channel ${channel} does not start with port ${port.remote}`);
          return;
        }
        pendingPrefix[channel]! -= prefix;
        payload = payload.subarray(prefix);
      }
      if (payload.length === 0) return;
      if (channel === ERROR_CHANNEL) errorText.push(payload);
      else if (channel === DATA_CHANNEL && !local.write(payload)) {
        ws.pause();
        local.once("drain", () => ws.resume());
      }
    });
    ws.on("error", (err) => fail(err.message));
    ws.once("close", () => {
      heartbeat.stop();
      signal.removeEventListener("abort", onAbort);
      const error = textExcerpt(errorText.content(), { totalBytes: errorText.totalBytes });
      if (error !== "") logger.warn(`port-forward: ${error}`, fields);
      else if (failure !== undefined)
        logger.warn(`port-forward: connection to the pod failed: ${failure}`, fields);
      if (error !== "" || failure !== undefined) local.destroy();
      else local.end();
      resolve();
    });

    local.on("data", (chunk: Buffer) => {
      if (ws.readyState !== ws.OPEN) return;
      local.pause();
      ws.send(encodeChannelMessage(DATA_CHANNEL, chunk), () => local.resume());
    });
    const closeWebSocket = (): void => {
      if (ws.readyState === ws.OPEN) ws.close(NORMAL_CLOSURE);
    };
    local.once("end", () => {
      logger.debug("port-forward: local connection ended its input", fields);
      closeWebSocket();
    });
    local.once("close", () => {
      logger.debug("port-forward: local connection closed", fields);
      closeWebSocket();
    });
    ws.resume();
    local.resume();
  });
}

/**
 * Opens the WebSocket of one forwarded connection (`pods/<pod>/portforward?ports=<remote>`);
 * undefined, after logging why at warn (unless the forward is closing), when it cannot.
 */
async function openForwardSocket(
  target: ForwardTarget,
  fields: Readonly<Record<string, string | number>>,
): Promise<WebSocket | undefined> {
  const { client, namespace, pod, port, signal } = target;
  const url = client
    .get()
    .version("v1")
    .namespace(namespace)
    .resource("pods")
    .name(pod)
    .subresource("portforward")
    .param("ports", port.remote)
    .url();
  try {
    const { socket } = await openApiWebSocket(client, url, {
      protocols: [PORT_FORWARD_CHANNEL_PROTOCOL],
      signal,
      errorTarget: { resource: "pods", name: pod },
    });
    return socket;
  } catch (err) {
    if (!signal.aborted) {
      client.logger.warn("port-forward: unable to open the connection to the pod", {
        ...fields,
        error: errorMessage(err),
      });
    }
    return undefined;
  }
}
