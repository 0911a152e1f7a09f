/**
 * The small HTTP server behind a {@link Manager}'s `/metrics`, `/healthz` and `/readyz`
 * (controller-runtime serves them from `pkg/metrics/server` and the manager's health probe
 * listener).
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../core/logger.js";

/** What an endpoint answers. */
export interface EndpointResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * Answers `GET`/`HEAD` of one path and the paths under it: `subpath` is what follows
 * `/<path>/` (empty for the path itself). `signal` aborts when the client hangs up.
 */
export type EndpointHandler = (
  subpath: string,
  query: URLSearchParams,
  signal: AbortSignal,
) => Promise<EndpointResponse>;

/**
 * An HTTP server (plain `node:http`, no TLS) routing `GET`/`HEAD` requests by their first
 * path segment to handlers: 404 for other paths, 405 for other methods, 500 (logged) when a
 * handler fails. {@link close} stops listening and ends every open connection, so nothing
 * of it keeps the process alive.
 */
export class EndpointServer {
  readonly #handlers: ReadonlyMap<string, EndpointHandler>;
  readonly #logger: Logger;
  readonly #server: Server;

  /** @param handlers by top-level path, e.g. `"/metrics"`. */
  constructor(handlers: ReadonlyMap<string, EndpointHandler>, logger: Logger) {
    this.#handlers = handlers;
    this.#logger = logger;
    this.#server = createServer((req, res) => void this.#serve(req, res));
  }

  /**
   * Listens on `host:port` (port 0: any free port) and resolves with the port bound.
   *
   * @throws the listen error (e.g. `EADDRINUSE`) as a rejection.
   */
  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.#server.once("error", onError);
      this.#server.listen(port, host, () => {
        this.#server.off("error", onError);
        resolve();
      });
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /** Stops listening and closes every connection; resolves once the server has closed. Idempotent. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A request target that is no URL path (e.g. `http://[`) must get an answer, not throw:
    // this runs detached from the request event, where a throw would be an unhandled rejection.
    const target = req.url ?? "/";
    if (!URL.canParse(target, "http://localhost")) {
      return send(res, 400, "text/plain; charset=utf-8", "400 Bad Request\n");
    }
    const url = new URL(target, "http://localhost");
    const [, first = "", ...rest] = url.pathname.split("/");
    const handler = this.#handlers.get(`/${first}`);
    if (handler === undefined)
      return send(res, 404, "text/plain; charset=utf-8", "404 page not found\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return send(res, 405, "text/plain; charset=utf-8", "method not allowed\n");
    }
    const hangUp = new AbortController();
    res.once("close", () => hangUp.abort());
    try {
      const answer = await handler(rest.join("/"), url.searchParams, hangUp.signal);
      send(res, answer.status, answer.contentType, answer.body, req.method === "HEAD");
    } catch (error) {
      this.#logger.error("endpoint handler failed", { path: url.pathname, error });
      send(res, 500, "text/plain; charset=utf-8", "internal server error\n");
    }
  }
}

/** Answers with `body` (its headers only when `headOnly`, for a HEAD request). */
function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headOnly = false,
): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, {
    "Content-Type": contentType,
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(headOnly ? undefined : body);
}
