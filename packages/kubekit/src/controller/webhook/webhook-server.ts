/**
 * The HTTPS server of admission and conversion webhooks (controller-runtime's
 * `pkg/webhook/server.go` `DefaultServer`, with `pkg/certwatcher` and the instrumentation of
 * `pkg/webhook/internal/metrics`).
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type SecureVersion } from "node:tls";
import type { Clock, TimerHandle } from "../../core/clock.js";
import { realClock } from "../../core/clock.js";
import { errorMessage } from "../../core/error-message.js";
import { parseGoDuration } from "../../core/go-duration.js";
import type { JsonValue } from "../../core/json.js";
import type { Logger } from "../../core/logger.js";
import { consoleLogger } from "../../core/logger.js";
import type { MetricFactory } from "../../core/metrics.js";
import type { HealthCheck } from "../manager/health-checks.js";
import { onManagerAdd } from "../manager/manager-injection.js";
import { PrometheusMetricFactory } from "../metrics/prometheus-metric-factory.js";
import {
  CertificateWatcher,
  DEFAULT_CERTIFICATE_POLL_MS,
  type CertificatePair,
} from "./certificate-watcher.js";
import type { WebhookHandler } from "./webhook-handler.js";
import { WebhookMetrics, type WebhookPathMetrics } from "./webhook-metrics.js";
import { DEFAULT_MAX_WEBHOOK_REQUEST_BYTES, readRequestBody } from "./webhook-request-body.js";

/** controller-runtime's `DefaultPort`: 9443. */
export const DEFAULT_WEBHOOK_PORT = 9443;
/** How long a stop waits for requests in flight before closing their connections: 1 minute, as controller-runtime's server shutdown. */
export const DEFAULT_WEBHOOK_SHUTDOWN_MS = 60_000;

/** Settings of a {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** The port (default {@link DEFAULT_WEBHOOK_PORT}; 0: any free port, see {@link WebhookServer.port}). */
  readonly port?: number;
  /**
   * The address to listen on. Default `127.0.0.1`, as the {@link Manager}'s endpoints: in a
   * pod, set `0.0.0.0` (or `::`) so that the API server reaches the webhook through its
   * Service (controller-runtime listens on every address by default).
   */
  readonly host?: string;
  /**
   * The directory of the serving certificate and key (default
   * `<os.tmpdir()>/k8s-webhook-server/serving-certs`, controller-runtime's). Both files are
   * watched and reloaded when they change (cert-manager's rotation of a mounted Secret).
   */
  readonly certDir?: string;
  /** The certificate's file name in `certDir` (default `tls.crt`). */
  readonly certName?: string;
  /** The key's file name in `certDir` (default `tls.key`). */
  readonly keyName?: string;
  /** A certificate and key in memory (PEM), instead of files; never reloaded. */
  readonly certificate?: { readonly certPem: string; readonly keyPem: string };
  /** How often the files are re-read besides on file events (default 10000, controller-runtime's). */
  readonly certPollIntervalMs?: number;
  /** The lowest TLS version accepted (default `TLSv1.2`, as controller-runtime's). */
  readonly minTlsVersion?: SecureVersion;
  /** The largest request body accepted (default 7 MiB, controller-runtime's); larger ones get a 400. */
  readonly maxRequestBytes?: number;
  /**
   * Where the `controller_runtime_webhook_*` metrics are recorded (default: prom-client's
   * global registry, which a {@link Manager} serves by default; give `mgr.metricFactory`
   * when the manager has a registry of its own).
   */
  readonly metricFactory?: MetricFactory;
  /** How long a stop waits for requests in flight (default {@link DEFAULT_WEBHOOK_SHUTDOWN_MS}). */
  readonly shutdownTimeoutMs?: number;
  /** The logger (default: the console, or the manager's when added to one). */
  readonly logger?: Logger;
  /** The clock of request deadlines, polls and the stop (default: real, or the manager's). */
  readonly clock?: Clock;
}

/**
 * The request's timeout in ms from its `?timeout=`: kube-apiserver's webhook client sends the
 * webhook's `timeoutSeconds` as a Go duration (`rest.Request.Timeout`: `10s`, `1m0s`). Undefined
 * when the parameter is absent, not a Go duration, or not positive (then only the caller
 * hanging up ends the handler's wait).
 */
function requestTimeoutMs(query: URLSearchParams): number | undefined {
  const ms = parseGoDuration(query.get("timeout") ?? "");
  return ms !== undefined && ms > 0 && Number.isFinite(ms) ? ms : undefined;
}

/** A webhook's answer is sent this long before the caller's timeout (a fifth of it, at most 1 s). */
function answerMarginMs(timeoutMs: number): number {
  return Math.min(1000, timeoutMs / 5);
}

/** The path of the server's own liveness endpoint. */
const HEALTHZ_PATH = "/healthz";

/**
 * Serves admission and conversion webhooks over HTTPS, as controller-runtime's webhook server
 * does: register a handler per path, add the server to a {@link Manager} (it runs on every
 * replica, `needLeaderElection` is false) or `start` it yourself.
 *
 * Guarantees:
 * - TLS 1.2 or later with the certificate of `certDir` (or `certificate`); a changed pair is
 *   used for every connection made after it was read (file events, else the poll), a pair that
 *   does not match is ignored until it does. `start` rejects when no valid pair can be read.
 * - `POST` of `application/json` to a registered path (exact match) goes to its handler with
 *   the parsed body; an empty, oversized (`maxRequestBytes`), non-JSON or other-typed body is
 *   answered 400 with the handler's `badRequest` body, other methods 405, other paths 404.
 *   `GET /healthz` answers `ok` while serving.
 * - A handler's signal aborts shortly before the request's `?timeout=` runs out (a fifth of
 *   it, at most 1 s, earlier) and when the caller hangs up, so an answer always precedes the
 *   caller's deadline; a handler that rejects is answered 500 with its message.
 * - Metrics per path (label `webhook`): `controller_runtime_webhook_requests_total{webhook,code}`,
 *   `controller_runtime_webhook_latency_seconds{webhook}`,
 *   `controller_runtime_webhook_requests_in_flight{webhook}`.
 * - `stop` (or the signal of `start`/`run`) stops accepting connections, waits up to
 *   `shutdownTimeoutMs` for requests in flight, closes every connection and stops watching
 *   the files; nothing it started then keeps the process alive.
 *
 * @example
 * A validating webhook in a controller process (the certificate mounted from a Secret at the
 * default directory), run on every replica by the manager:
 *
 * ```ts
 * import type { ConfigMap } from "kubernetes-types/core/v1.js";
 * import { Manager, WebhookServer, signalHandler, validatingWebhookFor } from "kubekit";
 *
 * const mgr = new Manager({ healthPort: 8081, bindAddress: "0.0.0.0" });
 * const webhooks = new WebhookServer({ host: "0.0.0.0" }); // port 9443, certificates in tls.crt/tls.key
 * webhooks.register(
 *   "/validate-v1-configmap",
 *   validatingWebhookFor<ConfigMap>({
 *     validateCreate(configMap) {
 *       if (configMap.data?.["mode"] === "unsafe") throw new Error("mode unsafe is not allowed");
 *     },
 *   }),
 * );
 * mgr.add(webhooks);
 * mgr.addReadyzCheck("webhook", webhooks.startedChecker());
 * await mgr.start(signalHandler());
 * ```
 */
export class WebhookServer {
  /** A webhook server runs on every replica (controller-runtime's `NeedLeaderElection() == false`). */
  readonly needLeaderElection = false;
  readonly #options: WebhookServerOptions;
  readonly #handlers = new Map<string, { handler: WebhookHandler; metrics: WebhookPathMetrics }>();
  readonly #metrics: WebhookMetrics;
  readonly #inFlight = new Set<Promise<void>>();
  #logger: Logger;
  #clock: Clock;
  #server: Server | undefined;
  #watcher: CertificateWatcher | undefined;
  #port: number | undefined;
  #state: "new" | "starting" | "serving" | "stopped" = "new";
  #stopping: Promise<void> | undefined;

  /** @throws {TypeError} for a port out of range or a non-positive duration or size. */
  constructor(options: WebhookServerOptions = {}) {
    const { port, certPollIntervalMs, maxRequestBytes, shutdownTimeoutMs } = options;
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      throw new TypeError(`webhook server port must be an integer in 0..65535, got ${port}`);
    }
    for (const [name, value] of Object.entries({
      certPollIntervalMs,
      maxRequestBytes,
      shutdownTimeoutMs,
    })) {
      if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
        throw new TypeError(`webhook server ${name} must be a positive number, got ${value}`);
      }
    }
    this.#options = options;
    this.#logger = options.logger ?? consoleLogger;
    this.#clock = options.clock ?? realClock;
    this.#metrics = new WebhookMetrics(options.metricFactory ?? new PrometheusMetricFactory());
    onManagerAdd(this, (defaults) => {
      if (options.logger === undefined) this.#logger = defaults.logger;
      if (options.clock === undefined) this.#clock = defaults.clock;
    });
  }

  /** The port listened on, once {@link start} has bound it. */
  get port(): number | undefined {
    return this.#port;
  }

  /**
   * Serves `handler` at `path` (exactly), before or after the start.
   *
   * @throws {TypeError} when `path` does not start with `/`, is `/healthz`, or is taken
   *   (controller-runtime panics on a duplicate path).
   */
  register(path: string, handler: WebhookHandler): void {
    if (!path.startsWith("/") || path === HEALTHZ_PATH) {
      throw new TypeError(
        `webhook path must start with "/" and not be ${HEALTHZ_PATH}, got ${JSON.stringify(path)}`,
      );
    }
    if (this.#handlers.has(path)) throw new TypeError(`can't register duplicate path: ${path}`);
    this.#handlers.set(path, { handler, metrics: this.#metrics.forPath(path) });
    this.#logger.info("webhook server: registering webhook", { path });
  }

  /**
   * Loads the certificate, listens, and resolves once serving; `signal` aborting stops the
   * server (as {@link stop}).
   *
   * @throws (as a rejection) an `Error` when started twice, the certificate's read or TLS error,
   *   or the listen error (e.g. `EADDRINUSE`).
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#state !== "new") throw new Error("webhook server: start() may only be called once");
    this.#state = "starting";
    try {
      const pair = await this.#loadCertificate();
      const server = createServer(
        { cert: pair.cert, key: pair.key, minVersion: this.#options.minTlsVersion ?? "TLSv1.2" },
        (req, res) => this.#track(this.#serve(req, res)),
      );
      this.#server = server;
      const host = this.#options.host ?? "127.0.0.1";
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(this.#options.port ?? DEFAULT_WEBHOOK_PORT, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      this.#port = (server.address() as AddressInfo).port;
      this.#watcher?.start();
      this.#state = "serving";
      this.#logger.info("webhook server: serving", { host, port: this.#port });
    } catch (error) {
      await this.stop();
      throw error;
    }
    signal?.addEventListener("abort", () => void this.stop(), { once: true });
    if (signal?.aborted) await this.stop();
  }

  /** Runs the server until `signal` aborts, then stops it (a {@link Manager}'s runnable). */
  async run(signal: AbortSignal): Promise<void> {
    await this.start();
    if (!signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true }),
      );
    }
    await this.stop();
  }

  /** Stops serving (see the class for the order); resolves once stopped. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  /**
   * A health check that passes once the server serves and accepts a TLS connection
   * (controller-runtime's `StartedChecker`), for `mgr.addReadyzCheck` or `addHealthzCheck`.
   */
  startedChecker(): HealthCheck {
    return (signal) => {
      if (this.#state !== "serving" || this.#port === undefined) {
        throw new Error("webhook server has not been started yet");
      }
      return dialTls(dialHost(this.#options.host ?? "127.0.0.1"), this.#port, signal);
    };
  }

  async #loadCertificate(): Promise<CertificatePair> {
    const { certificate } = this.#options;
    if (certificate !== undefined) {
      return { cert: Buffer.from(certificate.certPem), key: Buffer.from(certificate.keyPem) };
    }
    const certDir = this.#options.certDir ?? join(tmpdir(), "k8s-webhook-server", "serving-certs");
    const watcher = new CertificateWatcher({
      certFile: join(certDir, this.#options.certName ?? "tls.crt"),
      keyFile: join(certDir, this.#options.keyName ?? "tls.key"),
      pollIntervalMs: this.#options.certPollIntervalMs ?? DEFAULT_CERTIFICATE_POLL_MS,
      clock: this.#clock,
      logger: this.#logger,
      onChange: (pair) =>
        this.#server?.setSecureContext({
          cert: pair.cert,
          key: pair.key,
          minVersion: this.#options.minTlsVersion ?? "TLSv1.2",
        }),
    });
    this.#watcher = watcher;
    return watcher.read();
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A request target that is no URL path (e.g. `http://[`) gets an answer, not a throw.
    const target = req.url ?? "/";
    if (!URL.canParse(target, "https://localhost")) return sendText(res, 400, "400 Bad Request\n");
    const url = new URL(target, "https://localhost");
    if (url.pathname === HEALTHZ_PATH && (req.method === "GET" || req.method === "HEAD")) {
      return sendText(res, 200, "ok");
    }
    const entry = this.#handlers.get(url.pathname);
    if (entry === undefined) return sendText(res, 404, "404 page not found\n");
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return sendText(res, 405, "method not allowed\n");
    }
    const started = performance.now();
    entry.metrics.started();
    let status = 500;
    try {
      status = await this.#answer(req, res, url, entry.handler);
    } catch (error) {
      this.#logger.error("webhook server: the handler failed", { path: url.pathname, error });
      sendJson(res, 500, { message: errorMessage(error) });
    } finally {
      entry.metrics.finished(status, (performance.now() - started) / 1000);
    }
  }

  /** Reads the body, runs the handler until the request's deadline, answers; returns the status sent. */
  async #answer(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    handler: WebhookHandler,
  ): Promise<number> {
    const body = await readRequestBody(
      req,
      this.#options.maxRequestBytes ?? DEFAULT_MAX_WEBHOOK_REQUEST_BYTES,
    );
    if ("refused" in body) {
      this.#logger.info("webhook server: bad request", {
        path: url.pathname,
        problem: body.refused,
      });
      sendJson(res, 400, handler.badRequest(body.refused));
      return 400;
    }
    const timeoutMs = requestTimeoutMs(url.searchParams);
    const abort = new AbortController();
    const onClose = (): void => abort.abort(new Error("the caller hung up"));
    res.once("close", onClose);
    let deadline: TimerHandle | undefined;
    if (timeoutMs !== undefined) {
      deadline = this.#clock.setTimer(timeoutMs - answerMarginMs(timeoutMs), () =>
        abort.abort(new Error("the request's deadline passed")),
      );
    }
    try {
      const answer = await handler.handle({
        body: body.json,
        signal: abort.signal,
        timeoutMs,
        logger: this.#logger,
      });
      sendJson(res, answer.status, answer.body);
      return answer.status;
    } finally {
      deadline?.cancel();
      res.off("close", onClose);
    }
  }

  async #shutdown(): Promise<void> {
    this.#state = "stopped";
    await this.#watcher?.stop();
    const server = this.#server;
    if (server === undefined || !server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: TimerHandle | undefined;
    const graceMs = this.#options.shutdownTimeoutMs ?? DEFAULT_WEBHOOK_SHUTDOWN_MS;
    const grace = new Promise<void>((resolve) => (timer = this.#clock.setTimer(graceMs, resolve)));
    await Promise.race([Promise.all([...this.#inFlight]), grace]);
    timer?.cancel();
    server.closeAllConnections();
    await closed;
    this.#logger.info("webhook server: stopped", { port: this.#port });
  }
}

/** An address to dial for a server listening on `host` (a wildcard address dials loopback). */
function dialHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "::1";
  return host;
}

/** Resolves once a TLS handshake with `host:port` succeeded (the certificate is not verified). */
function dialTls(host: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false }, () => {
      socket.end();
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
    const onAbort = (): void => void socket.destroy(new Error("the probe was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(new Error(`webhook server is not reachable: ${error.message}`));
    });
  });
}

function sendJson(res: ServerResponse, status: number, body: JsonValue): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}
