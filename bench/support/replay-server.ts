import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { answer, drainedOrClosed } from "./bare-server.js";
import type { ReplayLoaded, ReplaySpec } from "./host-protocol.js";
import { makePod, modifiedPod } from "./pods.js";

/** The collection the replay server answers (all namespaces). */
export const REPLAY_PODS_PATH = "/api/v1/pods";

/**
 * POST here starts the watch stream: every watch waiting for it gets the frames, or, when
 * none is open yet, the next watch to arrive does (the trigger is used once).
 */
export const REPLAY_STREAM_PATH = "/_bench/replay/stream";

/** First resourceVersion of the generated pods (pod `i` has `FIRST_RV + i`). */
const FIRST_RV = 1_000;

/** A watch response held open, waiting for the trigger or streaming. */
interface WatchClient {
  readonly res: ServerResponse;
  /** Index of the first frame this watch gets. */
  readonly from: number;
  streaming: boolean;
}

function encodeContinue(start: number): string {
  return Buffer.from(JSON.stringify({ start })).toString("base64url");
}

function decodeContinue(token: string): number | undefined {
  try {
    const start = (
      JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { start?: unknown }
    ).start;
    return typeof start === "number" && Number.isInteger(start) && start >= 0 ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The replay server of the informer benchmark: a node:http server on 127.0.0.1 that answers
 * a list of pods and a watch of MODIFIED events from bytes serialized once beforehand, so
 * that every consumer reads identical bytes and the server costs next to nothing (the
 * embedded API server's write path could not produce 100k events fast enough to measure a
 * consumer).
 *
 * - `GET /api/v1/pods` (without `watch`): the list. With `limit`, a page of pre-serialized
 *   items, `metadata.continue` (opaque) and `remainingItemCount` while more remain; `continue`
 *   resumes after the previous page. Without `limit`, every item in one body. The list's
 *   `resourceVersion` is the same on every page; `resourceVersion`/`resourceVersionMatch`
 *   parameters are accepted and ignored.
 * - `GET /api/v1/pods?watch=true&resourceVersion=RV`: a chunked stream that sends headers at
 *   once, then, after the trigger ({@link REPLAY_STREAM_PATH}), the frames with a
 *   resourceVersion above RV, one `write` per frame as fast as the socket takes them, and
 *   then stays open (no bookmarks, no timeout). An RV below the list's is answered 410
 *   Expired (a relist would be a benchmark bug); `timeoutSeconds` is ignored.
 *
 * Caveats: no selectors, no namespaced paths, no authentication, no compression.
 */
export class ReplayServer {
  private items: Buffer[] = [];
  private frames: Buffer[] = [];
  private listResourceVersion = "";
  private readonly pages = new Map<string, Buffer>();
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<WatchClient>();
  private armed = false;
  private server: Server | undefined;

  /** Starts listening on a free port of 127.0.0.1 and resolves to the base URL. */
  async start(): Promise<string> {
    const server = createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 30_000;
    server.requestTimeout = 0;
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    const address = server.address();
    if (typeof address !== "object" || !address) throw new Error("replay server: no address");
    return `http://127.0.0.1:${address.port}`;
  }

  /**
   * Generates and serializes the pods ({@link makePod}) and the frames: frame `i` is pod
   * `i mod pods` after its change number `floor(i / pods) + 1` ({@link modifiedPod}), with
   * resourceVersion `listRV + 1 + i`. Replaces whatever was loaded before.
   */
  load(spec: ReplaySpec): ReplayLoaded {
    if (!(spec.pods > 0 && spec.events >= 0)) throw new Error("replay: pods must be > 0");
    const start = performance.now();
    const pods = Array.from({ length: spec.pods }, (_, i) =>
      makePod(i, { namespaces: spec.namespaces, size: spec.podSize ?? "small" }),
    );
    const listRv = FIRST_RV + spec.pods;
    this.items = pods.map((pod) => Buffer.from(JSON.stringify(pod)));
    this.frames = Array.from({ length: spec.events }, (_, i) => {
      const pod = pods[i % spec.pods] as (typeof pods)[number];
      const object = modifiedPod(pod, Math.floor(i / spec.pods) + 1, String(listRv + 1 + i));
      return Buffer.from(`${JSON.stringify({ type: "MODIFIED", object })}\n`);
    });
    this.listResourceVersion = String(listRv);
    this.pages.clear();
    return {
      pods: spec.pods,
      events: spec.events,
      listResourceVersion: this.listResourceVersion,
      itemBytes: this.items.reduce((n, b) => n + b.length, 0),
      frameBytes: this.frames.reduce((n, b) => n + b.length, 0),
      generateMs: performance.now() - start,
    };
  }

  /** Closes every stream and connection and stops listening. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    const url = new URL(req.url ?? "/", "http://replay");
    if (req.method === "POST" && url.pathname === REPLAY_STREAM_PATH) {
      this.trigger();
      answer(res, 202, Buffer.from("{}"));
      return;
    }
    if (req.method !== "GET" || url.pathname !== REPLAY_PODS_PATH) {
      fail(res, 404, "NotFound", `replay server: no route for ${req.method} ${url.pathname}`);
      return;
    }
    const query = url.searchParams;
    if (query.get("watch") === "true" || query.get("watch") === "1") this.watch(query, res);
    else this.list(query, res);
  }

  private list(query: URLSearchParams, res: ServerResponse): void {
    const limit = Number(query.get("limit") ?? "0");
    const token = query.get("continue");
    const start = token ? decodeContinue(token) : 0;
    if (start === undefined || start > this.items.length) {
      fail(res, 400, "BadRequest", `invalid continue token ${JSON.stringify(token)}`);
      return;
    }
    const end =
      Number.isInteger(limit) && limit > 0
        ? Math.min(start + limit, this.items.length)
        : this.items.length;
    answer(res, 200, this.page(start, end));
  }

  /** The body of the list page holding items [start, end), built once and kept. */
  private page(start: number, end: number): Buffer {
    const key = `${start}:${end}`;
    const cached = this.pages.get(key);
    if (cached) return cached;
    const remaining = this.items.length - end;
    const metadata = {
      resourceVersion: this.listResourceVersion,
      ...(remaining > 0 ? { continue: encodeContinue(end), remainingItemCount: remaining } : {}),
    };
    const parts: Buffer[] = [
      Buffer.from(
        `{"kind":"PodList","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`,
      ),
    ];
    for (let i = start; i < end; i++) {
      if (i > start) parts.push(Buffer.from(","));
      parts.push(this.items[i] as Buffer);
    }
    parts.push(Buffer.from("]}"));
    const body = Buffer.concat(parts);
    this.pages.set(key, body);
    return body;
  }

  private watch(query: URLSearchParams, res: ServerResponse): void {
    const rv = Number(query.get("resourceVersion") ?? "");
    const listRv = Number(this.listResourceVersion);
    if (!Number.isInteger(rv) || rv < listRv) {
      fail(res, 410, "Expired", `replay server: watch from resourceVersion ${rv} is too old`);
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    const client: WatchClient = { res, from: rv - listRv, streaming: false };
    this.watches.add(client);
    res.on("close", () => this.watches.delete(client));
    if (this.armed) {
      this.armed = false;
      void this.stream(client);
    }
  }

  private trigger(): void {
    const waiting = [...this.watches].filter((w) => !w.streaming);
    if (waiting.length === 0) this.armed = true;
    for (const client of waiting) void this.stream(client);
  }

  private async stream(client: WatchClient): Promise<void> {
    client.streaming = true;
    const { res } = client;
    for (let i = client.from; i < this.frames.length; i++) {
      if (res.destroyed) return;
      if (!res.write(this.frames[i] as Buffer)) await drainedOrClosed(res);
    }
  }
}

function fail(res: ServerResponse, code: number, reason: string, message: string): void {
  const status = { kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code };
  answer(res, code, Buffer.from(JSON.stringify(status)));
}
