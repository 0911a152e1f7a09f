/**
 * A kube-style streaming server on 127.0.0.1 that does whatever a test scripts, for the
 * client's exec and port-forward under hostile or broken peers: every GET answers a
 * `Running` pod (what `portForward` reads first), every upgrade is accepted and handed to
 * the script. The server reads messages of any
 * size (`maxPayload` off): only the client under test is bounded.
 */
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { WebSocketServer } from "ws";
import { encodeChannelMessage } from "../../packages/kubekit/src/core/websocket-channels.js";

/** One accepted upgrade as the script sees it. */
export interface HostileStreamSession {
  readonly ws: WebSocket;
  /** The request URL (path and query). */
  readonly url: URL;
  readonly request: IncomingMessage;
}

export interface HostileStreamServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts the server; `script` runs for each accepted upgrade. `protocols`: the protocols it
 * accepts, the client's first offered one among them wins (default: whatever the client
 * offers first).
 */
export async function startHostileStreamServer(
  script: (session: HostileStreamSession) => void | Promise<void>,
  protocols?: readonly string[],
): Promise<HostileStreamServer> {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 0,
    handleProtocols: (offered) =>
      [...offered].find((p) => protocols === undefined || protocols.includes(p)) ?? false,
  });
  const server = createServer((request, response) => {
    const name = new URL(request.url ?? "/", "http://server").pathname.split("/").pop();
    response.setHeader("content-type", "application/json");
    response.end(
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        status: { phase: "Running" },
      }),
    );
  });
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on("error", () => undefined);
      void script({ ws, url: new URL(request.url ?? "/", "http://server"), request });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `data` as one binary message on `channel` and resolves once it was written out. */
export function sendOnChannel(ws: WebSocket, channel: number, data: Uint8Array): Promise<void> {
  return new Promise((resolve) => ws.send(encodeChannelMessage(channel, data), () => resolve()));
}
