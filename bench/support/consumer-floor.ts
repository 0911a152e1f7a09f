/**
 * The floor of the informer benchmark: the least any informer must do with the same bytes —
 * read the list (the same pages kubekit's reflector requests, or the whole list in one
 * request) and JSON.parse it, then read the watch stream and JSON.parse each frame. Parsed
 * objects are kept in a Map by namespace/name (the list's items, then each event's object
 * in place of the old one), since a cache holding them is what an informer is for and what
 * its heap is compared with; there is no other work (no copies, no queue, no handlers).
 */
import { Agent, request } from "undici";
import type { ConsumerTask, InformerConsumer } from "./consumer-protocol.js";
import { Countdown } from "./countdown.js";
import { pageUrl } from "./list-reader.js";
import { REPLAY_PODS_PATH } from "./replay-server.js";

const NEWLINE = 10;

interface Meta {
  readonly metadata?: {
    readonly namespace?: string;
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly continue?: string;
  };
}

function keyOf(obj: Meta): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

class FloorConsumer implements InformerConsumer {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });
  private readonly controller = new AbortController();
  private readonly cache = new Map<string, unknown>();
  private readonly modified: Countdown;
  private resourceVersion = "";
  private bytes = 0;

  constructor(private readonly task: ConsumerTask) {
    this.modified = new Countdown(task.events);
  }

  async sync(): Promise<number> {
    const path = `${this.task.url}${REPLAY_PODS_PATH}`;
    const limit = this.task.pageLimit;
    const first =
      limit > 0 ? `${path}?limit=${limit}&resourceVersion=0` : `${path}?resourceVersion=0`;
    let token: string | undefined;
    do {
      const url = token === undefined ? first : pageUrl(path, limit, token);
      const list = JSON.parse(await this.get(url)) as Meta & { items: Meta[] };
      for (const item of list.items) this.cache.set(keyOf(item), item);
      if (token === undefined) this.resourceVersion = list.metadata?.resourceVersion ?? "";
      token = list.metadata?.continue || undefined;
    } while (token !== undefined);
    const at = performance.now();
    if (this.cache.size !== this.task.pods) {
      throw new Error(`floor: listed ${this.cache.size} pods, expected ${this.task.pods}`);
    }
    if (this.task.events > 0)
      void this.watch().catch((err: unknown) => this.modified.fail(toError(err)));
    return at;
  }

  streamed(): Promise<number> {
    return this.modified.reached;
  }

  cached(): number {
    return this.cache.size;
  }

  listBytes(): number {
    return this.bytes;
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.agent.destroy();
  }

  private async get(url: string): Promise<string> {
    const res = await request(url, {
      dispatcher: this.agent,
      headers: { accept: "application/json" },
      signal: this.controller.signal,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    this.bytes += bytes.length;
    const body = bytes.toString("utf8");
    if (res.statusCode !== 200) {
      throw new Error(`floor: GET ${url}: status ${res.statusCode}: ${body.slice(0, 300)}`);
    }
    return body;
  }

  private onFrame(event: { object: Meta }): void {
    this.cache.set(keyOf(event.object), event.object);
    this.modified.tick();
  }

  private async watch(): Promise<void> {
    const url = `${this.task.url}${REPLAY_PODS_PATH}?allowWatchBookmarks=true&resourceVersion=${this.resourceVersion}&timeoutSeconds=600&watch=true`;
    const res = await request(url, {
      dispatcher: this.agent,
      headers: { accept: "application/json" },
      bodyTimeout: 0,
      signal: this.controller.signal,
    });
    if (res.statusCode !== 200) {
      throw new Error(`floor: watch: status ${res.statusCode}: ${await res.body.text()}`);
    }
    // The bytes of a frame split across chunks; only they are ever copied.
    let partial: Buffer[] = [];
    for await (const raw of res.body) {
      const chunk = raw as Buffer;
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const text =
          partial.length === 0
            ? chunk.toString("utf8", start, nl)
            : Buffer.concat([...partial, chunk.subarray(0, nl)]).toString("utf8");
        partial = [];
        this.onFrame(JSON.parse(text) as { object: Meta });
        start = nl + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    }
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The floor consumer of `task` (see the module comment). */
export function createConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  return Promise.resolve(new FloorConsumer(task));
}
