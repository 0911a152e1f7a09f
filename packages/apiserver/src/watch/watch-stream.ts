import type { ServerResponse } from "node:http";
import {
  formatApiVersion,
  type TimerHandle,
  type JsonObject,
  type Status,
  newInternalError,
} from "kubekit";
import {
  convertsThroughWebhook,
  customResourcesFromStorageAsync,
  readConversionOf,
} from "../store/custom-resource-versions.js";
import { objectJson } from "../encoding/object-encoding.js";
import type { OutputFormat } from "../encoding/output-format.js";
import type { ResourceEntry } from "../registry/registry.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";
import type { WatchRegistry } from "./watch-registry.js";
import { toPartialObjectMetadata, toTable } from "../table/table.js";

/** Annotation on the bookmark that ends a WatchList's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** How long a dropped slow watcher may take to drain its last frame before its socket is destroyed. */
const DROP_DRAIN_MS = 5_000;

/**
 * The most events a watch of a webhook-converted resource holds while they wait for their
 * conversion; beyond it the watcher is dropped as a slow reader (memory stays bounded).
 */
const MAX_PENDING_CONVERSIONS = 1024;

/** One open watch response: filters storage events, encodes and writes them, handles its lifetime. */
export class WatchStream {
  #closed = false;
  #stalled = false;
  #unsubscribe: (() => void) | undefined;
  readonly #timers: TimerHandle[] = [];
  /**
   * Set when objects are served in another form than stored (events.k8s.io/v1 events from
   * core storage, custom resources at another version than the storage version).
   */
  readonly #fromStorage: ((stored: JsonObject) => JsonObject) | undefined;
  /**
   * Set for custom resources converted by a conversion webhook: every frame then waits in
   * this chain, so that events (and the bookmarks after them) are written in storage order.
   */
  #conversions: { tail: Promise<void>; pending: number } | undefined;

  readonly #ctx: ServerContext;
  readonly #entry: ResourceEntry;
  readonly #res: ServerResponse;
  readonly #format: OutputFormat;
  readonly #filter: (obj: JsonObject) => boolean;
  readonly #allowBookmarks: boolean;
  readonly #registry: WatchRegistry;

  constructor(
    ctx: ServerContext,
    entry: ResourceEntry,
    res: ServerResponse,
    format: OutputFormat,
    filter: (obj: JsonObject) => boolean,
    allowBookmarks: boolean,
    registry: WatchRegistry,
  ) {
    this.#ctx = ctx;
    this.#entry = entry;
    this.#res = res;
    this.#format = format;
    this.#filter = filter;
    this.#allowBookmarks = allowBookmarks;
    this.#registry = registry;
    this.#fromStorage = readConversionOf(ctx.registry, entry);
    if (convertsThroughWebhook(entry)) this.#conversions = { tail: Promise.resolve(), pending: 0 };
    res.on("close", () => this.#finish());
    res.on("drain", () => registry.reportDrained(this));
  }

  /** Bytes written but not yet taken by the connection. */
  get backlogBytes(): number {
    return this.#closed ? 0 : this.#res.writableLength;
  }

  /** Sends headers at once, as kube-apiserver does before any event. */
  open(timeoutMs: number): void {
    this.#res.writeHead(200, {
      "Content-Type": "application/json",
      "Transfer-Encoding": "chunked",
      "Cache-Control": "no-cache, private",
    });
    this.#res.flushHeaders();
    this.#timers.push(this.#ctx.clock.setTimer(timeoutMs, () => this.end()));
    if (this.#allowBookmarks) this.#scheduleBookmark();
  }

  /** Writes one event of type ADDED/MODIFIED/DELETED for an object. */
  sendObject(type: "ADDED" | "MODIFIED" | "DELETED", obj: JsonObject): void {
    if (this.#closed || this.#stalled) return;
    this.#write(type, obj);
  }

  /** Writes a BOOKMARK at revision `rv`, optionally annotated (the WatchList end marker). */
  sendBookmark(rv: number, annotations?: Record<string, string>): void {
    if (this.#closed || this.#stalled) return;
    // A metadata watch's bookmarks are PartialObjectMetadata, like its events.
    const metadataOnly = this.#format.kind === "metadata";
    const object: JsonObject = {
      kind: metadataOnly ? "PartialObjectMetadata" : this.#entry.info.kind,
      apiVersion: metadataOnly ? "meta.k8s.io/v1" : formatApiVersion(this.#entry.info),
      metadata: { resourceVersion: String(rv), ...(annotations ? { annotations } : {}) },
    };
    const frame = `{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`;
    if (this.#conversions) this.#afterConversions(() => Promise.resolve(frame));
    else this.#writeFrame(frame);
  }

  /**
   * Applies a storage change, translating selector transitions into ADDED / DELETED (as the
   * watch cache's `staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go` does).
   */
  onStorageEvent(event: StorageEvent): void {
    if (this.#closed || this.#stalled || event.resource !== this.#entry.storageId) return;
    const oldMatch = event.previous !== undefined && this.#filter(event.previous);
    if (event.type === "DELETED") {
      if (oldMatch) this.#write("DELETED", event.object);
      return;
    }
    const newMatch = this.#filter(event.object);
    if (newMatch) this.#write(oldMatch ? "MODIFIED" : "ADDED", event.object);
    else if (oldMatch) {
      const prev = event.previous as JsonObject;
      this.#write("DELETED", {
        ...prev,
        metadata: { ...(prev["metadata"] as JsonObject), resourceVersion: String(event.rv) },
      });
    }
  }

  /** Subscribes to live changes. */
  follow(): void {
    this.#unsubscribe = this.#ctx.storage.subscribe((e) => this.onStorageEvent(e));
  }

  /** Writes an ERROR event with a Status and ends the stream. */
  fail(status: Status): void {
    if (this.#closed) return;
    this.#writeFrame(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.end();
  }

  /** Ends the stream cleanly (a normal end of the chunked body). */
  end(): void {
    if (this.#closed) return;
    this.#res.end();
    this.#finish();
  }

  /** Stops sending anything while keeping the connection open: a half-open watch. */
  stall(): void {
    this.#stalled = true;
    for (const t of this.#timers) t.cancel();
  }

  /** Destroys the connection (server stop or restart). */
  destroy(): void {
    this.#res.destroy();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) t.cancel();
    this.#unsubscribe?.();
    this.#registry.remove(this);
  }

  #scheduleBookmark(): void {
    this.#timers.push(
      this.#ctx.clock.setTimer(this.#ctx.behaviour.bookmarkIntervalMs, () => {
        this.sendBookmark(this.#ctx.storage.currentRevision);
        if (!this.#closed) this.#scheduleBookmark();
      }),
    );
  }

  #write(type: string, obj: JsonObject): void {
    if (this.#conversions) {
      this.#afterConversions(async () => {
        const [converted] = await customResourcesFromStorageAsync(this.#ctx, this.#entry, [obj]);
        return `{"type":"${type}","object":${this.#encode(converted ?? obj)}}\n`;
      });
      return;
    }
    let objectText: string;
    try {
      objectText = this.#encode(this.#fromStorage ? this.#fromStorage(obj) : obj);
    } catch (err) {
      // Runs inside a storage commit: an object this watch cannot encode ends this watch,
      // never the write that is being committed.
      this.fail(newInternalError((err as Error).message).status);
      return;
    }
    this.#writeFrame(`{"type":"${type}","object":${objectText}}\n`);
  }

  /**
   * Writes the frame `produce` makes once every earlier frame is written. A failed conversion
   * ends the watch with an InternalError ERROR event, as kube's etcd watcher sends a decode
   * failure (`transformErrorToEvent` in `staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go`).
   */
  #afterConversions(produce: () => Promise<string>): void {
    const conversions = this.#conversions as { tail: Promise<void>; pending: number };
    if (conversions.pending >= MAX_PENDING_CONVERSIONS) {
      this.dropSlowReader();
      return;
    }
    conversions.pending++;
    conversions.tail = conversions.tail.then(async () => {
      try {
        if (this.#closed || this.#stalled) return;
        const frame = await produce();
        if (!this.#stalled) this.#writeFrame(frame);
      } catch (err) {
        this.fail(newInternalError((err as Error).message).status);
      } finally {
        conversions.pending--;
      }
    });
  }

  #encode(obj: JsonObject): string {
    switch (this.#format.kind) {
      case "table":
        return JSON.stringify(
          toTable([obj], this.#entry.info, {
            includeObject: this.#format.includeObject,
            now: this.#ctx.clock.now(),
          }),
        );
      case "metadata":
        return JSON.stringify(toPartialObjectMetadata(obj));
      default:
        return objectJson(obj);
    }
  }

  #writeFrame(frame: string): void {
    if (this.#closed) return;
    const flowing = this.#res.write(frame);
    if (this.#res.writableLength > this.#ctx.behaviour.maxWatchBacklogBytes) this.dropSlowReader();
    else if (!flowing) this.#registry.reportBacklog(this);
  }

  /**
   * Drops a watcher that cannot keep up (its own backlog, or the total budget of
   * {@link WatchRegistry}): kube-apiserver closes such watchers; here with an ERROR event
   * naming why, which the connection gets a few seconds to take before it is destroyed.
   */
  dropSlowReader(): void {
    if (this.#closed) return;
    const status: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "watch closed: the client is not reading events fast enough",
      reason: "Timeout",
      code: 504,
    };
    this.#res.end(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    const socket = this.#res.socket;
    const timer = setTimeout(() => socket?.destroy(), DROP_DRAIN_MS);
    timer.unref();
    this.#res.on("close", () => clearTimeout(timer));
    this.#finish();
  }
}
