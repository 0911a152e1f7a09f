import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { STREAM_TRIGGER_PATH } from "./host-protocol.js";

/**
 * The baseline of the server benchmark: a bare node:http server on 127.0.0.1 doing the least
 * work a server can do for each scenario, so that kubekit's figures can be read as ratios
 * against it (the transport floor).
 *
 * - POST/PUT/PATCH: reads the request body and answers it back (201 for POST, 200 otherwise).
 * - GET of a registered URL: answers bytes loaded beforehand (pre-serialized lists).
 * - GET of the streamed URL: writes bytes held in memory in chunks (a body too large for
 *   one Buffer), chunked, waiting for `drain` under backpressure — the floor of writing a
 *   list's bytes to a socket.
 * - GET of the frames URL: holds a chunked stream open; a POST to {@link STREAM_TRIGGER_PATH}
 *   writes the loaded frames to every held stream, one `write` per frame, waiting for
 *   `drain` under backpressure.
 *
 * It also keeps a parsed list in memory on request, to measure the heap of plain objects.
 */
export class BareServer {
  private readonly bodies = new Map<string, Buffer>();
  private readonly sockets = new Set<Socket>();
  private readonly streams = new Set<ServerResponse>();
  private frames: { url: string; frames: Buffer[] } | undefined;
  private large: { url: string; chunks: Buffer[] } | undefined;
  /** Items of {@link holdList}, kept reachable only so that the heap includes them. */
  private held: Map<string, unknown> | undefined;
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
    if (typeof address !== "object" || !address) throw new Error("bare server: no address");
    return `http://127.0.0.1:${address.port}`;
  }

  /** Registers the bytes answered to GET of each URL; returns how many URLs are served. */
  async serveBodies(routes: ReadonlyArray<{ url: string; file: string }>): Promise<number> {
    for (const { url, file } of routes) this.bodies.set(url, await readFile(file));
    return this.bodies.size;
  }

  /**
   * Reads `file` into memory in chunks of {@link STREAM_CHUNK_BYTES}, answered to GET `url`
   * in that order; returns the number of bytes.
   */
  async serveStream(url: string, file: string): Promise<number> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: STREAM_CHUNK_BYTES })) {
      chunks.push(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    this.large = { url, chunks };
    return bytes;
  }

  /** Loads newline-terminated frames streamed on GET `url`; returns the number of frames. */
  async serveFrames(url: string, file: string): Promise<number> {
    const data = await readFile(file);
    const frames: Buffer[] = [];
    let start = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      frames.push(data.subarray(start, nl + 1));
      start = nl + 1;
    }
    this.frames = { url, frames };
    return frames.length;
  }

  /** Parses the JSON list in `file` and keeps its items by namespace/name; returns the item count. */
  async holdList(file: string): Promise<number> {
    const list = JSON.parse(await readFile(file, "utf8")) as { items?: unknown[] };
    const held = new Map<string, unknown>();
    for (const item of list.items ?? []) {
      const meta = (item as { metadata?: { namespace?: string; name?: string } }).metadata;
      held.set(`${meta?.namespace ?? ""}/${meta?.name ?? ""}`, item);
    }
    this.held = held;
    return held.size;
  }

  /** Closes every stream and connection and stops listening. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.held = undefined;
    this.large = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? "/";
    if (req.method === "POST" && url === STREAM_TRIGGER_PATH) {
      req.resume();
      const streams = [...this.streams];
      for (const stream of streams) void this.stream(stream);
      answer(res, 202, Buffer.from(JSON.stringify({ streams: streams.length })));
      return;
    }
    if (req.method === "POST" || req.method === "PUT" || req.method === "PATCH") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => answer(res, req.method === "POST" ? 201 : 200, Buffer.concat(chunks)));
      return;
    }
    req.resume();
    if (req.method === "GET" && this.frames && url === this.frames.url) {
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
      res.flushHeaders();
      this.streams.add(res);
      res.on("close", () => this.streams.delete(res));
      return;
    }
    if (req.method === "GET" && this.large && url === this.large.url) {
      void writeChunks(res, this.large.chunks);
      return;
    }
    const body = req.method === "GET" ? this.bodies.get(url) : undefined;
    if (body) answer(res, 200, body);
    else
      answer(
        res,
        404,
        Buffer.from(
          `{"kind":"Status","code":404,"message":"bare server: no route for ${req.method} ${url}"}`,
        ),
      );
  }

  private async stream(res: ServerResponse): Promise<void> {
    for (const frame of this.frames?.frames ?? []) {
      if (res.destroyed) return;
      if (!res.write(frame)) await drainedOrClosed(res);
    }
  }
}

/** The size of the chunks {@link BareServer.serveStream} holds and writes (16 MiB). */
const STREAM_CHUNK_BYTES = 16 * 1024 * 1024;

/** Answers `chunks` as one chunked JSON response, each written when the socket takes more. */
async function writeChunks(res: ServerResponse, chunks: readonly Buffer[]): Promise<void> {
  res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  res.end();
}

/** Answers `body` as a complete JSON response with status `code`. */
export function answer(res: ServerResponse, code: number, body: Buffer): void {
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": body.length });
  res.end(body);
}

/** Resolves once `res` can take more writes (`drain`) or has closed. */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
