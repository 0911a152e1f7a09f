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
import { EventFrames, watchFrame, type ObjectEventType } from "./event-frames.js";
import type { FanOutWatcher } from "./watch-fan-out.js";
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

/**
 * Queued frames past this many bytes are written at once rather than at the end of the
 * event-loop turn (a long run of initial events streams instead of piling up).
 */
const FLUSH_BYTES = 64 * 1024;

const CRLF = Buffer.from("\r\n");

/** What a watch sends: its format, the namespace it is limited to, its selectors, bookmarks. */
export interface WatchStreamOptions {
  readonly format: OutputFormat;
  /** The namespace of a namespaced watch; `""` for every namespace. */
  readonly namespace: string;
  /**
   * The label and field selectors as one predicate on an object; `undefined` when the
   * watch has none (every object of the namespace matches, and no object is inspected).
   */
  readonly selector: ((obj: JsonObject) => boolean) | undefined;
  readonly allowBookmarks: boolean;
}

/**
 * One open watch response: takes the storage changes of its resource (from the
 * {@link WatchRegistry}'s fan-out), applies its selectors, writes the frames (shared with
 * the other watches through {@link EventFrames}) and handles its lifetime.
 */
export class WatchStream implements FanOutWatcher {
  readonly resource: string;
  readonly namespace: string;
  #closed = false;
  #stalled = false;
  #unsubscribe: (() => void) | undefined;
  readonly #timers: TimerHandle[] = [];
  /** Frames queued for the next write, and their size. */
  #queued: Buffer[] = [];
  #queuedBytes = 0;
  /** Set while this watch waits for its socket to drain (see {@link flush}). */
  #onDrain: (() => void) | undefined;
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
  /**
   * The keys of this watch's frames in {@link EventFrames}, by event type (`departed`: the
   * DELETED event of an object leaving the selector): watches with equal keys send equal
   * frames. Unset when frames wait for a conversion webhook (they are not shared).
   */
  readonly #frameKeys: Readonly<Record<ObjectEventType | "departed", string>> | undefined;

  readonly #ctx: ServerContext;
  readonly #entry: ResourceEntry;
  readonly #res: ServerResponse;
  readonly #format: OutputFormat;
  readonly #selector: ((obj: JsonObject) => boolean) | undefined;
  readonly #allowBookmarks: boolean;
  readonly #registry: WatchRegistry;

  constructor(
    ctx: ServerContext,
    entry: ResourceEntry,
    res: ServerResponse,
    options: WatchStreamOptions,
    registry: WatchRegistry,
  ) {
    this.#ctx = ctx;
    this.#entry = entry;
    this.#res = res;
    this.resource = entry.storageId;
    this.namespace = options.namespace;
    this.#format = options.format;
    this.#selector = options.selector;
    this.#allowBookmarks = options.allowBookmarks;
    this.#registry = registry;
    this.#fromStorage = readConversionOf(ctx.registry, entry);
    if (convertsThroughWebhook(entry)) this.#conversions = { tail: Promise.resolve(), pending: 0 };
    else this.#frameKeys = frameKeysOf(entry, options.format, this.#fromStorage !== undefined);
    res.on("close", () => this.#finish());
    res.on("drain", () => registry.reportDrained(this));
  }

  /** Bytes written but not yet taken by the connection. */
  get backlogBytes(): number {
    return this.#closed ? 0 : this.#res.writableLength + this.#queuedBytes;
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

  /**
   * Writes the ADDED event of a stored object given as its stored JSON (initial events)
   * when it matches the selectors: the stored bytes themselves when the object is served as
   * stored, in JSON, else the object parsed, converted and encoded.
   */
  sendStored(json: Buffer): void {
    if (this.#closed || this.#stalled) return;
    const storage = this.#ctx.storage;
    let obj: JsonObject | undefined;
    if (this.#selector) {
      obj = storage.parse(json, false);
      if (!this.#selector(obj)) return;
    }
    if (this.#servesStoredJson()) this.#writeFrame(watchFrame("ADDED", json));
    else this.#write("ADDED", obj ?? storage.parse(json, false));
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
    const frame = watchFrame("BOOKMARK", JSON.stringify(object));
    if (this.#conversions) this.#afterConversions(() => Promise.resolve(frame));
    else this.#writeFrame(frame);
  }

  /**
   * Applies a storage change, translating selector transitions into ADDED / DELETED (as the
   * watch cache's `staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go` does).
   * `frames` shares the encoded frames of the change among the watches that receive it.
   */
  onStorageEvent(event: StorageEvent, frames: EventFrames = new EventFrames(event)): void {
    if (this.#closed || this.#stalled || event.resource !== this.resource) return;
    if (this.namespace !== "" && !event.key.startsWith(`${this.namespace}/`)) return;
    const selector = this.#selector;
    if (!selector) {
      this.#writeEvent(event.type, frames, false);
      return;
    }
    const oldMatch = event.previous !== undefined && selector(event.previous);
    if (event.type === "DELETED") {
      if (oldMatch) this.#writeEvent("DELETED", frames, false);
      return;
    }
    const newMatch = selector(event.object);
    if (newMatch) this.#writeEvent(oldMatch ? "MODIFIED" : "ADDED", frames, false);
    else if (oldMatch) this.#writeEvent("DELETED", frames, true);
  }

  /** Subscribes to live changes. */
  follow(): void {
    this.#unsubscribe = this.#registry.fanOut.follow(this.#ctx.storage, this);
  }

  /** Writes an ERROR event with a Status and ends the stream. */
  fail(status: Status): void {
    if (this.#closed) return;
    this.#writeFrame(watchFrame("ERROR", JSON.stringify(status)));
    this.end();
  }

  /** Ends the stream cleanly (a normal end of the chunked body), after the frames queued so far. */
  end(): void {
    if (this.#closed) return;
    this.flush();
    this.#res.end();
    this.#finish();
  }

  /**
   * Stops sending anything while keeping the connection open: a half-open watch. Frames
   * already queued are written first.
   */
  stall(): void {
    this.flush();
    this.#stalled = true;
    for (const t of this.#timers) t.cancel();
  }

  /** Destroys the connection (server stop or restart). */
  destroy(): void {
    this.#res.destroy();
    this.#finish();
  }

  /**
   * Writes the queued frames to the connection in one write, then enforces the backlog
   * bounds: beyond `maxWatchBacklogBytes` this watch is dropped as a slow reader; a socket
   * that stopped taking data is reported to the registry's total budget.
   */
  flush(): void {
    if (this.#closed || this.#queued.length === 0) return;
    const queued = this.#queued;
    const data =
      queued.length === 1 ? (queued[0] as Buffer) : Buffer.concat(queued, this.#queuedBytes);
    this.#queued = [];
    this.#queuedBytes = 0;
    const flowing = this.#writeChunk(data);
    if (this.#res.writableLength > this.#ctx.behaviour.maxWatchBacklogBytes) this.dropSlowReader();
    else if (!flowing) this.#reportBacklog();
  }

  /**
   * Writes `data` as one chunk of the chunked body; returns whether the connection takes
   * more. While the response holds nothing of its own unsent (its headers are on the
   * socket, as {@link open} flushed them) the chunk goes straight to the socket, corked into
   * one write: the same bytes `res.write` would send, without its per-write bookkeeping,
   * which costs more than the frame when a change fans out to many watches. Otherwise
   * (no socket yet, e.g. behind a pipelined response) `res.write` sends it.
   */
  #writeChunk(data: Buffer): boolean {
    const res = this.#res;
    const socket = res.socket;
    if (!socket || !res.chunkedEncoding || res.writableLength !== socket.writableLength)
      return res.write(data);
    socket.cork();
    socket.write(`${data.length.toString(16)}\r\n`, "latin1");
    socket.write(data);
    const flowing = socket.write(CRLF);
    socket.uncork();
    return flowing;
  }

  /**
   * Counts this watch against the registry's total budget until its socket drains (the
   * response's own `drain` does not fire for chunks written to the socket directly).
   */
  #reportBacklog(): void {
    this.#registry.reportBacklog(this);
    const socket = this.#res.socket;
    if (!socket || this.#onDrain) return;
    this.#onDrain = () => {
      this.#onDrain = undefined;
      this.#registry.reportDrained(this);
    };
    socket.once("drain", this.#onDrain);
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#onDrain) this.#res.socket?.off("drain", this.#onDrain);
    this.#onDrain = undefined;
    this.#queued = [];
    this.#queuedBytes = 0;
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

  /**
   * Writes a change's event of `type` (with the previous state when the object `departed`
   * the selector): the frame shared through `frames` when it can be, else converted first.
   */
  #writeEvent(type: ObjectEventType, frames: EventFrames, departed: boolean): void {
    const keys = this.#frameKeys;
    if (!keys) {
      this.#write(type, departed ? frames.departed : frames.event.object);
      return;
    }
    let frame: Buffer;
    try {
      frame = frames.frame(departed ? keys.departed : keys[type], () =>
        this.#encodeFrame(type, frames, departed),
      );
    } catch (err) {
      // Runs inside a storage commit: an object this watch cannot encode ends this watch,
      // never the write that is being committed.
      this.fail(newInternalError((err as Error).message).status);
      return;
    }
    this.#writeFrame(frame);
  }

  /**
   * A change's frame as this watch serves it: around the stored bytes themselves when the
   * object is served as stored, in JSON (no parse, no encode); else encoded from the object.
   */
  #encodeFrame(type: ObjectEventType, frames: EventFrames, departed: boolean): Buffer {
    if (!departed && this.#servesStoredJson()) return watchFrame(type, frames.event.objectJson);
    return watchFrame(type, this.#encodeServed(departed ? frames.departed : frames.event.object));
  }

  /** Whether this watch sends objects exactly as stored: JSON, no conversion (no webhook either). */
  #servesStoredJson(): boolean {
    return (
      !this.#fromStorage &&
      !this.#conversions &&
      this.#format.kind !== "table" &&
      this.#format.kind !== "metadata"
    );
  }

  #write(type: ObjectEventType, obj: JsonObject): void {
    if (this.#conversions) {
      this.#afterConversions(async () => {
        const [converted] = await customResourcesFromStorageAsync(this.#ctx, this.#entry, [obj]);
        return watchFrame(type, this.#encode(converted ?? obj));
      });
      return;
    }
    let objectText: string;
    try {
      objectText = this.#encodeServed(obj);
    } catch (err) {
      this.fail(newInternalError((err as Error).message).status);
      return;
    }
    this.#writeFrame(watchFrame(type, objectText));
  }

  /** A stored object's text as this watch serves it: at the served version, in its format. */
  #encodeServed(stored: JsonObject): string {
    return this.#encode(this.#fromStorage ? this.#fromStorage(stored) : stored);
  }

  /**
   * Writes the frame `produce` makes once every earlier frame is written. A failed conversion
   * ends the watch with an InternalError ERROR event, as kube's etcd watcher sends a decode
   * failure (`transformErrorToEvent` in `staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go`).
   */
  #afterConversions(produce: () => Promise<Buffer>): void {
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

  /**
   * Queues a frame for the connection; the fan-out writes it at the end of this event-loop
   * turn, together with the frames queued after it ({@link flush}). A backlog beyond
   * `maxWatchBacklogBytes` drops the watch at once.
   */
  #writeFrame(frame: Buffer): void {
    if (this.#closed) return;
    this.#queued.push(frame);
    this.#queuedBytes += frame.length;
    if (this.#res.writableLength + this.#queuedBytes > this.#ctx.behaviour.maxWatchBacklogBytes) {
      this.dropSlowReader();
    } else if (this.#queuedBytes >= FLUSH_BYTES) this.flush();
    else if (this.#queued.length === 1) this.#registry.fanOut.scheduleFlush(this);
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
    // Frames still queued are dropped with the watch: the reader is behind them already.
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#res.end(watchFrame("ERROR", JSON.stringify(status)));
    const socket = this.#res.socket;
    const timer = setTimeout(() => socket?.destroy(), DROP_DRAIN_MS);
    timer.unref();
    this.#res.on("close", () => clearTimeout(timer));
    this.#finish();
  }
}

/**
 * The keys under which a watch of `entry` in `format` finds its frames in
 * {@link EventFrames}: JSON and PartialObjectMetadata frames of objects served as stored
 * are equal for every watch of the storage resource; converted objects and Tables (whose
 * columns are the served resource's) are keyed by the served resource too.
 */
function frameKeysOf(
  entry: ResourceEntry,
  format: OutputFormat,
  converted: boolean,
): Record<ObjectEventType | "departed", string> {
  const served = `${entry.info.group}/${entry.info.version}/${entry.info.plural}`;
  const rendering =
    format.kind === "table"
      ? `table/${format.version}/${format.includeObject} ${served}`
      : format.kind === "metadata"
        ? `metadata/${format.version}`
        : "json";
  const encoding = converted && format.kind !== "table" ? `${rendering} ${served}` : rendering;
  return {
    ADDED: `ADDED ${encoding}`,
    MODIFIED: `MODIFIED ${encoding}`,
    DELETED: `DELETED ${encoding}`,
    departed: `DELETED-departed ${encoding}`,
  };
}
