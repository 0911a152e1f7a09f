/**
 * `pods/NAME/portforward` upgrades: the protocols real clients use to reach a pod's ports, all
 * served by the same per-connection logic (`port-forward-connection.ts`):
 * - a WebSocket with subprotocol `SPDY/3.1+portforward.k8s.io` tunnelling SPDY/3.1 in binary
 *   messages: what kubectl 1.31+ sends (client-go `tools/portforward/tunneling_dialer.go`;
 *   kube-apiserver's `staging/src/k8s.io/apiserver/pkg/util/proxy/streamtunnel.go`);
 * - a plain `Upgrade: SPDY/3.1` with `X-Stream-Protocol-Version: portforward.k8s.io`: older
 *   kubectl, and kubectl's fallback when the tunnel is refused;
 * - a WebSocket with `v4.channel.k8s.io` (or no subprotocol) and the `ports` query: the
 *   kubelet's channel protocol, as client libraries speak it (one connection per port).
 */
import type { Duplex } from "node:stream";
import {
  isJsonObject,
  MAX_CHANNEL_MESSAGE_BYTES,
  PORT_FORWARD_CHANNEL_PROTOCOL,
} from "kubekit/apimachinery";
import { createWebSocketStream, WebSocketServer } from "ws";
import { serveForwardedConnection, type ServeForwardedPort } from "./port-forward-connection.js";
import { PORT_FORWARD_SPDY_PROTOCOL, servePortForwardSpdy } from "./port-forward-spdy.js";
import { servePortForwardWebSocket } from "./port-forward-websocket.js";
import {
  headerList,
  negotiateSpdyProtocol,
  unableToNegotiate,
  writeSpdyUpgrade,
} from "./stream-protocol-handshake.js";
import type { UpgradeRequest } from "./upgrade-request.js";
import { markUpgraded, writeUpgradeRefusal } from "./upgrade-responses.js";

/** kube's prefix of WebSocket subprotocols that tunnel SPDY (`k8s.io/apimachinery/pkg/util/portforward`). */
const SPDY_TUNNEL_PREFIX = "SPDY/3.1+";
const SPDY_TUNNEL_PROTOCOL = SPDY_TUNNEL_PREFIX + PORT_FORWARD_SPDY_PROTOCOL;

/**
 * Completes channel-protocol WebSocket handshakes handed over from the HTTP server's `upgrade`
 * event, answering `v4.channel.k8s.io` when offered (the checks before refused other offers).
 */
const channelWebSockets = new WebSocketServer({
  noServer: true,
  maxPayload: MAX_CHANNEL_MESSAGE_BYTES,
  perMessageDeflate: false,
  clientTracking: false,
  handleProtocols: (offered) =>
    offered.has(PORT_FORWARD_CHANNEL_PROTOCOL) && PORT_FORWARD_CHANNEL_PROTOCOL,
});

/**
 * Completes SPDY tunnel handshakes. `ws` accepts only RFC 7230 tokens as subprotocols, and
 * `SPDY/3.1+portforward.k8s.io` holds a "/": the offer is checked and taken out of the request
 * before the handshake, and the answer added to the 101's headers here.
 */
const spdyTunnelWebSockets = new WebSocketServer({
  noServer: true,
  maxPayload: MAX_CHANNEL_MESSAGE_BYTES,
  perMessageDeflate: false,
  clientTracking: false,
});
spdyTunnelWebSockets.on("headers", (headers: string[]) =>
  headers.push(`Sec-WebSocket-Protocol: ${SPDY_TUNNEL_PROTOCOL}`),
);

/**
 * Serves an upgrade request to `pods/NAME/portforward` (authenticated, authorized, the pod
 * found and bound by the caller): picks the protocol from the request's headers, answers the
 * handshake and forwards connections until the client or the server (its stop) ends them.
 * Refused before the handshake, in plain text as the kubelet's streaming server answers: 500
 * for a pod that is not `Running` (no sandbox to forward into), 403 when no offered
 * subprotocol is served, 400 for a missing or invalid `ports` query or one of more than
 * {@link MAX_CHANNEL_PORTS} ports (channel protocol only) or an upgrade that is neither
 * WebSocket nor SPDY/3.1. Messages over `MAX_CHANNEL_MESSAGE_BYTES` (32 MiB, kube's wsstream
 * limit) close a WebSocket with 1009.
 */
export function handlePortForwardUpgrade(request: UpgradeRequest): void {
  const { req, socket, head, pod } = request;
  const phase = isJsonObject(pod["status"]) ? pod["status"]["phase"] : undefined;
  if (phase !== "Running")
    return refuse(
      socket,
      500,
      `pod ${request.namespace}/${request.name} is not running (phase ${String(phase ?? "")})`,
    );
  const upgrade = (req.headers["upgrade"] ?? "").toLowerCase();
  const serve: ServeForwardedPort = (port, stream, signal) =>
    serveForwardedConnection({
      containers: request.ctx.containers,
      namespace: request.namespace,
      pod: request.pod,
      port,
      stream,
      signal,
    });

  if (upgrade === "spdy/3.1") {
    const negotiated = negotiateSpdyProtocol(req, [PORT_FORWARD_SPDY_PROTOCOL]);
    if ("refusal" in negotiated) return refuse(socket, 403, negotiated.refusal);
    writeSpdyUpgrade(socket, head, negotiated.protocol);
    servePortForwardSpdy(socket, serve, request.signal);
    return;
  }
  if (upgrade !== "websocket")
    return refuse(socket, 400, "unable to upgrade: missing upgrade headers in request");

  const offered = headerList(req, "sec-websocket-protocol");
  const tunnels = offered.filter((p) => p.startsWith(SPDY_TUNNEL_PREFIX));
  if (tunnels.length > 0) {
    if (!tunnels.includes(SPDY_TUNNEL_PROTOCOL))
      return refuse(socket, 403, unableToNegotiate(tunnels, [SPDY_TUNNEL_PROTOCOL]));
    delete req.headers["sec-websocket-protocol"];
    return spdyTunnelWebSockets.handleUpgrade(req, socket, head, (ws) => {
      markUpgraded(socket);
      servePortForwardSpdy(createWebSocketStream(ws), serve, request.signal);
    });
  }
  if (offered.length > 0 && !offered.includes(PORT_FORWARD_CHANNEL_PROTOCOL))
    return refuse(socket, 403, unableToNegotiate(offered, [PORT_FORWARD_CHANNEL_PROTOCOL]));
  const ports = parsePortsQuery(request.query.getAll("ports"));
  if (typeof ports === "string") return refuse(socket, 400, ports);
  channelWebSockets.handleUpgrade(req, socket, head, (ws) => {
    markUpgraded(socket);
    servePortForwardWebSocket(ws, ports, serve, request.signal);
  });
}

/**
 * The most ports one channel-protocol WebSocket forwards: port i takes channels 2i and 2i+1,
 * and a channel is one byte.
 */
const MAX_CHANNEL_PORTS = 128;

/**
 * The ports of the `ports` query (repeated, or comma-separated in one value), as the kubelet
 * parses its `port` parameter (`NewV4Options`); an error text when missing or invalid, or when
 * there are more ports than channels for them.
 */
function parsePortsQuery(values: readonly string[]): number[] | string {
  if (values.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const value of values) {
    if (value === "") return 'query parameter "port" cannot be empty';
    for (const part of value.split(",")) {
      const port = /^\d{1,5}$/.test(part) ? Number(part) : NaN;
      if (!(port <= 65535)) return `unable to parse "${value}" as a port: invalid syntax`;
      if (port < 1) return `port "${value}" must be > 0`;
      ports.push(port);
    }
  }
  if (ports.length > MAX_CHANNEL_PORTS)
    return `too many ports: ${ports.length}, at most ${MAX_CHANNEL_PORTS} in one request`;
  return ports;
}

/** Refuses the upgrade with a plain-text answer, as the kubelet's streaming server does. */
function refuse(socket: Duplex, code: number, text: string): void {
  writeUpgradeRefusal(socket, code, text, "text/plain; charset=utf-8");
}
