/**
 * A TCP tunnel through an HTTP(S) proxy with `CONNECT` (RFC 9110 section 9.3.6), for
 * connections the REST transport's undici `ProxyAgent` does not carry: WebSocket upgrades.
 * client-go dials WebSockets through `config.Proxy` the same way (gorilla's proxy dialer).
 */
import type { Socket } from "node:net";
import { connect as connectTcp } from "node:net";
import { connect as connectTls } from "node:tls";

/** The longest proxy answer head read before giving up on the proxy. */
const MAX_RESPONSE_HEAD_BYTES = 16 * 1024;

/** The default ports of the proxy schemes. */
const DEFAULT_PROXY_PORT: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/**
 * The proxy refused the tunnel (an answer other than 2xx) or answered something that is not
 * HTTP. Proxy credentials never appear in the message.
 */
export class ProxyTunnelError extends Error {
  /** The proxy's status code; undefined when it sent no valid HTTP answer. */
  readonly statusCode: number | undefined;

  constructor(message: string, statusCode?: number) {
    super(message);
    this.name = "ProxyTunnelError";
    this.statusCode = statusCode;
  }
}

/**
 * Opens a connection to `proxyUrl` (`http:`, or `https:` verified against the system roots)
 * and asks it to tunnel to `host:port`; resolves with the connected socket once the proxy
 * answered 2xx, bytes past the answer head pushed back into it. A user name and password in
 * the proxy URL are sent as `Proxy-Authorization: Basic`.
 *
 * @throws {ProxyTunnelError} when the proxy refuses or does not answer HTTP.
 * @throws the socket's error when the proxy cannot be reached; `signal.reason` on abort.
 */
export function openConnectTunnel(
  proxyUrl: URL,
  host: string,
  port: number,
  signal?: AbortSignal,
): Promise<Socket> {
  signal?.throwIfAborted();
  const proxyHost = proxyUrl.hostname.replace(/^\[(.*)\]$/, "$1");
  const proxyPort = Number(proxyUrl.port) || (DEFAULT_PROXY_PORT[proxyUrl.protocol] ?? 80);
  const socket: Socket =
    proxyUrl.protocol === "https:"
      ? connectTls({ host: proxyHost, port: proxyPort, servername: proxyHost })
      : connectTcp({ host: proxyHost, port: proxyPort });
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const headers = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxyUrl.username !== "" || proxyUrl.password !== "") {
    const user = decodeURIComponent(proxyUrl.username);
    const password = decodeURIComponent(proxyUrl.password);
    headers.push(
      `Proxy-Authorization: Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
    );
  }
  socket.write(`${headers.join("\r\n")}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const cleanup = (): void => {
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", onClose);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown): void => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onError = (err: Error): void => fail(err);
    const onClose = (): void =>
      fail(new ProxyTunnelError("the proxy closed the connection before answering CONNECT"));
    const onAbort = (): void => fail(signal?.reason);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) {
        if (received.length > MAX_RESPONSE_HEAD_BYTES) {
          fail(new ProxyTunnelError("the proxy's answer to CONNECT is not HTTP"));
        }
        return;
      }
      const statusLine = received.subarray(0, received.indexOf("\r\n")).toString("latin1");
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      if (match === null) {
        fail(new ProxyTunnelError("the proxy's answer to CONNECT is not HTTP"));
        return;
      }
      const statusCode = Number(match[1]);
      if (statusCode < 200 || statusCode > 299) {
        fail(new ProxyTunnelError(`the proxy refused CONNECT: ${statusLine}`, statusCode));
        return;
      }
      cleanup();
      // The new owner of the socket reads it from here on, starting with what came early.
      socket.pause();
      const rest = received.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
    socket.once("error", onError);
    socket.once("close", onClose);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
