/**
 * A forward proxy on 127.0.0.1 that answers HTTP CONNECT by opening the requested TCP
 * connection and piping both ways (what a corporate HTTP proxy does for TLS), recording each
 * tunnel it opened. Any other request gets 405.
 */
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { connect } from "node:net";

/** One CONNECT the proxy served. */
export interface ProxyTunnel {
  /** The request target, `host:port`. */
  readonly target: string;
  /** The `Proxy-Authorization` header, when sent. */
  readonly auth: string | undefined;
}

/** A running {@link startConnectProxy}. */
export interface ConnectProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The tunnels opened so far, in order. */
  readonly tunnels: readonly ProxyTunnel[];
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a CONNECT proxy; the caller closes it. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: ProxyTunnel[] = [];
  const proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? "", auth: req.headers["proxy-authorization"] });
    const [host = "", port = ""] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    close: () => {
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
