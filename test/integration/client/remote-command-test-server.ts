/**
 * A scripted kube-style remote command WebSocket server on 127.0.0.1 for client tests: each
 * upgrade request is either refused with an HTTP answer (like kube-apiserver's 400/404
 * Statuses) or accepted with a protocol from the server's list, then handed to the test's
 * script as a {@link ServerSession}.
 */
import { once } from "node:events";
import type { IncomingMessage, Server } from "node:http";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { RawData, WebSocket } from "ws";
import { WebSocketServer } from "ws";

/** An HTTP answer that refuses the upgrade. */
export interface Refusal {
  readonly statusCode: number;
  readonly body: string;
  readonly contentType?: string;
}

/** One accepted connection as the script sees it. */
export interface ServerSession {
  readonly ws: WebSocket;
  /** The negotiated protocol, `""` when none. */
  readonly protocol: string;
  readonly request: IncomingMessage;
  /** The request URL (path and query). */
  readonly url: URL;
  /** Every binary message received so far, as [channel, data]. */
  readonly received: [number, Buffer][];
  /** Resolves with the oldest message on `channel` not taken by an earlier call. */
  next(channel: number): Promise<Buffer>;
  /** Sends `data` on `channel`. */
  send(channel: number, data: string | Uint8Array): void;
  /** Sends the error channel's Status for `exitCode` (Success for 0) and closes normally. */
  exit(exitCode: number): void;
}

export interface RemoteCommandServerOptions {
  /** TLS: serving certificate and key; `ca` + `requestCert` to verify client certificates. */
  readonly tls?: { cert: string; key: string; ca?: string; requestCert?: boolean };
  /** The protocols the server accepts (first offered by the client wins); default v5, v4. */
  readonly protocols?: readonly string[];
  /** Refuses a request by answering it; undefined lets the upgrade proceed. */
  readonly refuse?: (request: IncomingMessage) => Refusal | undefined;
  /** Whether the server answers pings (default true). */
  readonly autoPong?: boolean;
  /** Holds the upgrade request without answering it. */
  readonly hang?: boolean;
}

export interface RemoteCommandServer {
  /** `http://127.0.0.1:PORT` or `https://…`. */
  readonly url: string;
  /** Every upgrade request received. */
  readonly requests: IncomingMessage[];
  /** Resolves with the next accepted session. */
  nextSession(): Promise<ServerSession>;
  close(): Promise<void>;
}

/** The error channel Status of a command that exited with `exitCode`, as kubelet writes it. */
export function exitStatusJson(exitCode: number): string {
  return exitCode === 0
    ? JSON.stringify({ metadata: {}, status: "Success" })
    : JSON.stringify({
        metadata: {},
        status: "Failure",
        message: `command terminated with non-zero exit code: exit status ${exitCode}`,
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
      });
}

function frame(channel: number, data: string | Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(channel), Buffer.from(data)]);
}

/**
 * Starts the server; `script` runs for each accepted connection. Stop it with `close()`
 * (every connection is dropped).
 */
export async function startRemoteCommandServer(
  script: (session: ServerSession) => void | Promise<void>,
  options: RemoteCommandServerOptions = {},
): Promise<RemoteCommandServer> {
  const supported = options.protocols ?? ["v5.channel.k8s.io", "v4.channel.k8s.io"];
  const wss = new WebSocketServer({
    noServer: true,
    autoPong: options.autoPong ?? true,
    handleProtocols: (offered) => {
      for (const protocol of offered) if (supported.includes(protocol)) return protocol;
      return false;
    },
  });
  const server: Server = options.tls
    ? createHttpsServer({
        cert: options.tls.cert,
        key: options.tls.key,
        ...(options.tls.ca !== undefined ? { ca: options.tls.ca } : {}),
        requestCert: options.tls.requestCert === true,
        rejectUnauthorized: options.tls.requestCert === true,
      })
    : createHttpServer();
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const requests: IncomingMessage[] = [];
  const sessions: ServerSession[] = [];
  const waiting: ((session: ServerSession) => void)[] = [];
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    requests.push(request);
    if (options.hang === true) return;
    const refusal = options.refuse?.(request);
    if (refusal !== undefined) {
      const body = Buffer.from(refusal.body);
      socket.end(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 ${refusal.statusCode} Refused\r\ncontent-type: ${refusal.contentType ?? "application/json"}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
          ),
          body,
        ]),
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const received: [number, Buffer][] = [];
      /** Messages not yet taken by `next`, and `next` calls waiting for one. */
      const unread: [number, Buffer][] = [];
      const waiters: { channel: number; resolve: (data: Buffer) => void }[] = [];
      ws.on("message", (data: RawData) => {
        const bytes = data as Buffer;
        const channel = bytes[0] ?? -1;
        const payload = bytes.subarray(1);
        received.push([channel, payload]);
        const index = waiters.findIndex((w) => w.channel === channel);
        if (index >= 0) waiters.splice(index, 1)[0]?.resolve(payload);
        else unread.push([channel, payload]);
      });
      const session: ServerSession = {
        ws,
        protocol: ws.protocol,
        request,
        url: new URL(request.url ?? "/", "http://server"),
        received,
        next: (channel) => {
          const index = unread.findIndex(([c]) => c === channel);
          if (index >= 0) return Promise.resolve(unread.splice(index, 1)[0]![1]);
          return new Promise((resolve) => waiters.push({ channel, resolve }));
        },
        send: (channel, data) => ws.send(frame(channel, data)),
        exit: (exitCode) => {
          ws.send(frame(3, exitStatusJson(exitCode)));
          ws.close(1000);
        },
      };
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(session);
      else sessions.push(session);
      void script(session);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    nextSession: () => {
      const ready = sessions.shift();
      return ready !== undefined
        ? Promise.resolve(ready)
        : new Promise((resolve) => waiting.push(resolve));
    },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
