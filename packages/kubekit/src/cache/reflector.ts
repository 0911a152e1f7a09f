/**
 * The Reflector (client-go's `tools/cache.Reflector`): lists and watches one resource
 * through a {@link ListerWatcher} and mirrors it into a {@link ReflectorStore}, owning the
 * resourceVersion state machine and never giving up.
 */
import { BackoffPolicy } from "../core/backoff.js";
import type { Clock, TimerHandle } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { isJsonObject } from "../core/json.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import { objectKey } from "../core/object-key.js";
import { annotationOf, resourceVersionOf } from "../core/object-metadata.js";
import {
  isResourceExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
  StatusError,
} from "../core/status.js";
import type { ListOptions, WatchEvent, WatchOptions } from "../rest/index.js";
import { RequestTimeoutError, TransportError, WatchIdleTimeoutError } from "../rest/index.js";
import type { PagedList } from "./list-pager.js";
import { DEFAULT_PAGE_SIZE } from "../client/list-pager.js";
import { listWithPager } from "./list-pager.js";
import type { ListerWatcher, ListPage, WatchStream } from "./lister-watcher.js";
import {
  UnsupportedListKindError,
  VeryShortWatchError,
  WatchListIncompleteError,
} from "./reflector-errors.js";
import type { ReflectorStore } from "./reflector-store.js";
import { errorMessage } from "../core/error-message.js";

/** The annotation of the BOOKMARK that ends a WatchList's initial events (`metav1.InitialEventsAnnotationKey`). */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** client-go's minimum watch duration: watches ask for a random `timeoutSeconds` in [5, 10) minutes. */
export const DEFAULT_MIN_WATCH_TIMEOUT_MS = 300_000;

/** How long a WatchList may take to send its initial-events-end bookmark before the reflector falls back to a list. */
export const DEFAULT_WATCH_LIST_END_TIMEOUT_MS = 30_000;

/** A watch that ends cleanly sooner than this with no events is a {@link VeryShortWatchError}. */
const VERY_SHORT_WATCH_MS = 1_000;

/**
 * The default error logging warns from this consecutive failure of an expected kind
 * (server unreachable, 410, 429, 5xx...) on: with the default backoff, after 12 to 24 s of
 * failing. Earlier ones are a single info line, then debug.
 */
export const FAILURES_BEFORE_WARNING = 5;

/** The apiVersions of `Table`, which a reflector cannot use (client-go's `unsupportedTableGVK`). */
const TABLE_API_VERSIONS: ReadonlySet<string> = new Set(["meta.k8s.io/v1", "meta.k8s.io/v1beta1"]);

/**
 * Called with every error the reflector meets before it retries (after a backoff) or falls
 * back: failed lists, watches ending with an error, a WatchList retried or falling back to a
 * list, a failing `store.replace`/`store.resync`. Replaces the default logging of those
 * errors (see {@link Reflector}). Must not throw (a throw is caught and logged).
 */
export type WatchErrorHandler<T> = (error: unknown, reflector: Reflector<T>) => void;

/** Settings of a {@link Reflector}; durations in ms. */
export interface ReflectorOptions<T> {
  /** Used in log messages and errors (default: `expectedKind`, else `"reflector"`). */
  readonly name?: string;
  /** Where objects come from. */
  readonly listerWatcher: ListerWatcher<T>;
  /** Where they go. */
  readonly store: ReflectorStore<T>;
  /** When set, watch events whose object has another `kind` are dropped and logged. */
  readonly expectedKind?: string;
  /** Period of `store.resync()` calls while watching; 0 or absent disables resync. */
  readonly resyncPeriodMs?: number;
  /** Asked before each periodic resync; `false` skips that one (default: always resync). */
  readonly shouldResync?: () => boolean;
  /** Time source of backoff, resync, WatchList end timeout and short-watch detection (default: real). */
  readonly clock?: Clock;
  /** Where diagnostics go (default: the console logger). */
  readonly logger?: Logger;
  /**
   * Page size of every list (client-go's `WatchListPageSize`). Absent or 0: client-go's rule
   * — 500, except no pagination for lists at a specific resourceVersion (so the server can
   * answer from its watch cache) unless an earlier list at "0" came back paginated.
   */
  readonly pageSize?: number;
  /**
   * Watches ask for `timeoutSeconds` random in [min, 2×min) (default 5 minutes). Unlike
   * client-go, smaller values are honoured (at least 1 s), which tests use.
   */
  readonly minWatchTimeoutMs?: number;
  /**
   * Start each (re)list with a streaming list (WatchList: `sendInitialEvents=true`), retried
   * or falling back to a paginated list on errors as described on {@link Reflector}
   * (default false; client-go enables it since 1.35).
   */
  readonly useWatchList?: boolean;
  /** How long to wait for a WatchList's initial-events-end bookmark before falling back (default 30 s). */
  readonly watchListEndTimeoutMs?: number;
  /**
   * Grace beyond a watch's `timeoutSeconds` before a silent watch counts as half-open and is
   * abandoned (passed to the ListerWatcher; default the REST layer's 30 s).
   */
  readonly idleGraceMs?: number;
  /** Called on every error before a retry or fallback (default: logged as described on {@link Reflector}). */
  readonly watchErrorHandler?: WatchErrorHandler<T>;
  /** The backoff between attempts (default: client-go's 800 ms → 30 s, jitter 1.0, reset after 2 min, on `clock`). */
  readonly backoff?: BackoffPolicy;
  /** Random source in [0, 1) for watch timeouts and the default backoff's jitter (default `Math.random`). */
  readonly random?: () => number;
}

/** An error the reflector met, and when (on its clock). */
export interface ReflectorError {
  readonly error: unknown;
  readonly at: number;
}

/** One open watch and its progress. */
interface OpenWatch<T> {
  readonly stream: WatchStream<T>;
  /** The stream's events in batches (see `WatchStream.batches`). */
  readonly events: AsyncIterator<readonly WatchEvent<T>[]>;
  /** Events received but not applied yet: those after a WatchList's end bookmark. */
  leftover: readonly WatchEvent<T>[];
  readonly startedAt: number;
  /** The `timeoutSeconds` the watch asked for. */
  readonly timeoutSeconds: number | undefined;
  /**
   * The watch started at "" or "0": its first ADDED events are the synthetic initial state,
   * in no RV order, so their RVs are not propagated until a non-ADDED event shows that the
   * initial events are over (client-go's propagateRVFromStart).
   */
  gated: boolean;
  eventCount: number;
}

/** The watch phase of one ListAndWatch: the open stream, and a resync failure ending it. */
interface WatchCycle<T> {
  stream: WatchStream<T> | undefined;
  resyncFailure: { readonly error: unknown } | undefined;
}

function isInitialEventsEnd(obj: unknown): boolean {
  return annotationOf(obj, INITIAL_EVENTS_END_ANNOTATION) === "true";
}

/**
 * Closes a watch for good: the connection, and the iterator (so that generator-based streams
 * and decorators run their cleanup even when suspended between events).
 */
function closeWatch<T>(open: OpenWatch<T>): void {
  open.stream.close();
  void Promise.resolve()
    .then(() => open.events.return?.())
    .catch(() => undefined);
}

const NO_EVENTS: readonly WatchEvent<never>[] = [];

/**
 * The events of `stream` in batches: its own `batches()` when it has one, else each event
 * as a batch of one (`return()` reaching the stream's iterator at once, as before).
 */
function eventBatches<T>(stream: WatchStream<T>): AsyncIterator<readonly WatchEvent<T>[]> {
  if (stream.batches !== undefined) return stream.batches();
  const events = stream[Symbol.asyncIterator]();
  return {
    async next(): Promise<IteratorResult<readonly WatchEvent<T>[]>> {
      const step = await events.next();
      return step.done === true ? { done: true, value: undefined } : { value: [step.value] };
    },
    async return(): Promise<IteratorResult<readonly WatchEvent<T>[]>> {
      await events.return?.();
      return { done: true, value: undefined };
    },
  };
}

/** Ends a watch phase whose resync failed (set from a timer callback, hence not a narrowable field read). */
function throwIfResyncFailed<T>(cycle: WatchCycle<T>): void {
  if (cycle.resyncFailure !== undefined) throw cycle.resyncFailure.error;
}

function stringOf(obj: unknown, field: string): string | undefined {
  const value = isJsonObject(obj) ? obj[field] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** A `meta.k8s.io` Table (a list or a watch event object of one), which no reflector can use. */
function isTable(obj: unknown): boolean {
  const apiVersion = stringOf(obj, "apiVersion");
  return (
    stringOf(obj, "kind") === "Table" &&
    apiVersion !== undefined &&
    TABLE_API_VERSIONS.has(apiVersion)
  );
}

/** A delay for a log line: `0.8 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Errors that a healthy system meets in passing and that the reflector recovers from by
 * itself: the server unreachable or restarting (transport errors, timeouts, 5xx), 410 and
 * too-large resourceVersions, 429, half-open and very short watches, an incomplete WatchList.
 * The default logging keeps quiet about these until they repeat.
 */
function isExpectedDisruption(err: unknown): boolean {
  return (
    err instanceof TransportError ||
    err instanceof RequestTimeoutError ||
    err instanceof WatchIdleTimeoutError ||
    err instanceof VeryShortWatchError ||
    err instanceof WatchListIncompleteError ||
    isResourceExpired(err) ||
    isTooLargeResourceVersion(err) ||
    isTooManyRequests(err) ||
    (err instanceof StatusError && err.code >= 500)
  );
}

/**
 * Errors of a watch (or WatchList) after which the reflector backs off and re-watches from
 * the last resourceVersion without relisting: 429, a refused connection (the server is
 * down; the RV is still good), and an idle (half-open) watch.
 */
function isRetriableWatchError(err: unknown): boolean {
  return (
    isTooManyRequests(err) ||
    (err instanceof TransportError && err.code === "ECONNREFUSED") ||
    err instanceof WatchIdleTimeoutError
  );
}

/**
 * Lists and watches one resource into a store, forever, with client-go's semantics:
 *
 * - **resourceVersion**: the first list asks for RV "0" (any, from the watch cache); later
 *   lists ask "not older than" the last synced RV; RV "" (a consistent read) only after a
 *   list at that RV failed with 410 Expired/Gone or too-large-resourceVersion. Every watch
 *   event and bookmark advances the last synced RV, except the synthetic ADDED events of a
 *   watch started at ""/"0" until a non-ADDED event arrives.
 * - **list**: through a pager (500 per page, none at a specific RV), then
 *   `store.replace(items, listRV)`. An answer that is not a list of objects — a `meta.k8s.io`
 *   `Table`, or a list of another kind than `${expectedKind}List` — fails the list with an
 *   {@link UnsupportedListKindError} (client-go's "unsupported list gvk"), retried after the
 *   backoff.
 * - **watch**: `allowWatchBookmarks=true`, `timeoutSeconds` random in [5, 10) minutes, from
 *   the last RV. ADDED/MODIFIED/DELETED → `store.add/update/delete`; BOOKMARK →
 *   `store.bookmark`. A clean end re-watches from the last RV without relisting (unless it
 *   was a {@link VeryShortWatchError}). 410 (ERROR event or answer) → relist "not older
 *   than" the last RV after a backoff (not a quorum read). 429, a refused connection, or no
 *   bytes within the idle deadline (half-open connection) → backoff and re-watch without
 *   relisting. Anything else (broken connection, 500, decode error…) → backoff and relist.
 *   Event objects that are a `meta.k8s.io` `Table`, or (with `expectedKind`) of another
 *   kind, are dropped and logged as errors.
 * - **WatchList** (`useWatchList`): a watch with `sendInitialEvents=true`,
 *   `resourceVersionMatch=NotOlderThan`; initial events are collected (transformed as they
 *   arrive, see `ReflectorStore.transform`) until the bookmark annotated
 *   `k8s.io/initial-events-end: "true"`, then `store.replace(collected, bookmarkRV)` and the
 *   same stream goes on as a normal watch. As in client-go, a 429, a refused connection, an
 *   idle stream, or a stream that ends before the end bookmark retries the WatchList after
 *   the backoff (not a list, which would load an overloaded server more), and 410 /
 *   too-large-resourceVersion retries it at once at RV "". Other errors fall back to a
 *   normal list: an error answer (e.g. a server without WatchList), a stream that ends
 *   within a second with no event (client-go's very short watch), and no end bookmark
 *   within `watchListEndTimeoutMs` (which client-go lacks).
 * - **resync**: while watching, every `resyncPeriodMs`, `store.resync()` when
 *   `shouldResync()` allows; a throwing resync ends the watch (relist after backoff).
 * - **errors**: reported to the watch error handler and kept in {@link lastError}; retried
 *   after the backoff (800 ms doubling to 30 s, jittered, reset after 2 quiet minutes).
 *   `store.add/update/delete/bookmark` throwing is logged and the event skipped (as
 *   client-go); `store.replace` throwing fails the list.
 * - **logging**: quiet for healthy recoveries, loud for what needs a human. A watch closed
 *   by the server before its timeout is one info line naming the resource and what happens
 *   next (`watch of /v1/pods closed by the server after 42.0 s; re-watching from 4211`); one
 *   that reached its timeout, at debug. Without a watch error handler, errors are logged as
 *   one line stating what happens next (`…; relisting from 4211 in 0.8 s`): an expected
 *   disruption (server unreachable or restarting, 410, 429, 5xx, half-open watch) at info
 *   the first time in a row, then at debug, then from the {@link FAILURES_BEFORE_WARNING}th
 *   consecutive failure on at warn with the count and the backoff; any other error (403,
 *   404, undecodable answer…) at warn each time; a failing store or an unusable list answer
 *   at error. After a warning, recovery is an info line. Error objects (with their stacks)
 *   go to debug lines only.
 *
 * Objects are handed to the store as decoded, without copies.
 */
export class Reflector<T> {
  readonly name: string;
  readonly #lw: ListerWatcher<T>;
  readonly #store: ReflectorStore<T>;
  readonly #expectedKind: string | undefined;
  readonly #resyncPeriodMs: number;
  readonly #shouldResync: (() => boolean) | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #pageSize: number;
  readonly #minWatchTimeoutMs: number;
  readonly #useWatchList: boolean;
  readonly #watchListEndTimeoutMs: number;
  readonly #watchOptions: WatchOptions;
  readonly #errorHandler: WatchErrorHandler<T> | undefined;
  readonly #backoff: BackoffPolicy;
  readonly #random: () => number;

  #lastSyncResourceVersion = "";
  /** The last RV is known to be unavailable (a list at it got 410 / too large): list at "". */
  #resourceVersionUnavailable = false;
  /** A list at "0" came back in pages: the server has no watch cache, keep paginating. */
  #paginatedResult = false;
  #lastSyncTime: number | undefined;
  #lastError: ReflectorError | undefined;
  #hasSynced = false;
  #running = false;
  /** What the reflector is doing, for log lines: which step an error belongs to. */
  #phase: "list" | "WatchList" | "watch" | "resync" | "store replace" = "list";
  /** Failures since the last success (a list, a watch event, a watch that ran its course). */
  #failures = 0;
  /** Whether the default logging warned during the current run of failures. */
  #warned = false;

  /** @throws {RangeError} for a negative or non-finite period, timeout or page size. */
  constructor(options: ReflectorOptions<T>) {
    this.#lw = options.listerWatcher;
    this.#store = options.store;
    this.#expectedKind = options.expectedKind;
    this.name = options.name ?? options.expectedKind ?? "reflector";
    this.#resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.#shouldResync = options.shouldResync;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.#pageSize = options.pageSize ?? 0;
    this.#minWatchTimeoutMs = options.minWatchTimeoutMs ?? DEFAULT_MIN_WATCH_TIMEOUT_MS;
    this.#useWatchList = options.useWatchList ?? false;
    this.#watchListEndTimeoutMs =
      options.watchListEndTimeoutMs ?? DEFAULT_WATCH_LIST_END_TIMEOUT_MS;
    this.#watchOptions =
      options.idleGraceMs !== undefined ? { idleGraceMs: options.idleGraceMs } : {};
    this.#errorHandler = options.watchErrorHandler;
    this.#random = options.random ?? Math.random;
    this.#backoff =
      options.backoff ?? new BackoffPolicy({ clock: this.#clock, random: this.#random });
    for (const [label, value] of [
      ["resyncPeriodMs", this.#resyncPeriodMs],
      ["idleGraceMs", options.idleGraceMs ?? 0],
    ] as const) {
      if (!(value >= 0) || !Number.isFinite(value)) {
        throw new RangeError(`${label} must be a finite number >= 0, got ${value}`);
      }
    }
    for (const [label, value] of [
      ["minWatchTimeoutMs", this.#minWatchTimeoutMs],
      ["watchListEndTimeoutMs", this.#watchListEndTimeoutMs],
    ] as const) {
      if (!(value > 0) || !Number.isFinite(value)) {
        throw new RangeError(`${label} must be a finite number > 0, got ${value}`);
      }
    }
    if (!Number.isInteger(this.#pageSize) || this.#pageSize < 0) {
      throw new RangeError(`pageSize must be an integer >= 0, got ${this.#pageSize}`);
    }
  }

  /**
   * The resourceVersion the store is synced to: that of the last list, WatchList end
   * bookmark, watch event or bookmark; `""` before the first list.
   */
  get lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  /** When (clock ms) {@link lastSyncResourceVersion} last changed; undefined before the first list. */
  get lastSyncTime(): number | undefined {
    return this.#lastSyncTime;
  }

  /** The last error reported (kept after recovery; compare `at` with {@link lastSyncTime}). */
  get lastError(): ReflectorError | undefined {
    return this.#lastError;
  }

  /** Whether a complete list (or WatchList initial state) has been replaced into the store at least once. */
  get hasSynced(): boolean {
    return this.#hasSynced;
  }

  /** Whether {@link run} is in progress. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Lists, watches, and on any failure reports it and starts over after a backoff, until
   * `signal` aborts; then closes the open request, cancels its timers and resolves. Never
   * rejects for a failure of the server, the ListerWatcher or the store. State (last RV,
   * synced) carries over to a later `run`.
   *
   * @throws {Error} (as a rejection) when called while another `run` is in progress.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`${this.name}: run() is already in progress`);
    this.#running = true;
    try {
      while (!signal.aborted) {
        let delay: number;
        try {
          await this.#listAndWatch(signal);
          if (signal.aborted) break;
          delay = this.#backoff.next();
        } catch (err) {
          if (signal.aborted) break;
          delay = this.#backoff.next();
          this.#report(err, `${this.#relistPlan()} in ${seconds(delay)}`);
        }
        try {
          await this.#clock.sleep(delay, signal);
        } catch {
          break;
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /** One list (or WatchList) followed by watches until an error that needs a relist. */
  async #listAndWatch(signal: AbortSignal): Promise<void> {
    let handoff: OpenWatch<T> | undefined;
    if (this.#useWatchList) {
      try {
        handoff = await this.#watchList(signal);
      } catch (err) {
        if (signal.aborted) throw err;
        this.#report(err, "falling back to a list", "info");
      }
    }
    if (handoff === undefined) await this.#list(signal);
    await this.#watch(handoff, signal);
  }

  /** The RV of the next list: "" after an unavailable RV, "0" the very first time, else the last RV. */
  #relistResourceVersion(): string {
    if (this.#resourceVersionUnavailable) return "";
    if (this.#lastSyncResourceVersion === "") return "0";
    return this.#lastSyncResourceVersion;
  }

  /** What the next (re)list will be, for log lines: `relisting from 4211`. */
  #relistPlan(): string {
    const verb = this.#hasSynced ? "relisting" : "listing";
    const how = this.#useWatchList ? `${verb} (WatchList)` : verb;
    const rv = this.#relistResourceVersion();
    if (rv === "") return `${how} at the latest resourceVersion`;
    return rv === "0" ? how : `${how} from ${rv}`;
  }

  async #list(signal: AbortSignal): Promise<void> {
    this.#phase = "list";
    const rv = this.#relistResourceVersion();
    let pageSize = DEFAULT_PAGE_SIZE;
    if (this.#pageSize > 0) pageSize = this.#pageSize;
    else if (!this.#paginatedResult && rv !== "" && rv !== "0") pageSize = 0;
    const lister = {
      list: async (options: ListOptions, listSignal?: AbortSignal): Promise<ListPage<T>> =>
        this.#checkedPage(await this.#lw.list(options, listSignal)),
    };
    let result: PagedList<T>;
    try {
      result = await listWithPager(lister, { resourceVersion: rv }, { pageSize, signal });
    } catch (err) {
      if (signal.aborted || !(isResourceExpired(err) || isTooLargeResourceVersion(err))) throw err;
      this.#logger.debug(
        `list of ${this.name} at resourceVersion ${JSON.stringify(rv)} failed; listing the latest state`,
        { error: errorMessage(err) },
      );
      this.#resourceVersionUnavailable = true;
      result = await listWithPager(
        lister,
        { resourceVersion: this.#relistResourceVersion() },
        { pageSize, signal },
      );
    }
    if (rv === "0" && result.paginated) this.#paginatedResult = true;
    this.#resourceVersionUnavailable = false;
    this.#replace(result.items, result.resourceVersion);
  }

  /**
   * A list page as the store will get it: its kind checked (client-go's "unsupported list
   * gvk") and its items transformed as they arrive.
   *
   * @throws {UnsupportedListKindError} for a Table, or a list of another kind than expected.
   */
  #checkedPage(page: ListPage<T>): ListPage<T> {
    const kind = page.kind;
    if (kind !== undefined) {
      const expected =
        this.#expectedKind !== undefined ? `a ${this.#expectedKind}List` : "a list of objects";
      const table = isTable(page);
      if (table || (this.#expectedKind !== undefined && kind !== `${this.#expectedKind}List`)) {
        throw new UnsupportedListKindError(this.name, page.apiVersion, kind, expected);
      }
    }
    const transform = this.#store.transform;
    return transform === undefined ? page : { ...page, items: page.items.map(transform) };
  }

  /** The object as the store takes it (see `ReflectorStore.transform`). */
  #prepare(obj: T): T {
    const transform = this.#store.transform;
    return transform === undefined ? obj : transform(obj);
  }

  #replace(items: readonly T[], resourceVersion: string): void {
    const phase = this.#phase;
    this.#phase = "store replace";
    this.#store.replace(items, resourceVersion);
    this.#phase = phase;
    this.#setLastSyncResourceVersion(resourceVersion);
    this.#hasSynced = true;
    this.#succeeded();
  }

  #setLastSyncResourceVersion(rv: string): void {
    this.#lastSyncResourceVersion = rv;
    this.#lastSyncTime = this.#clock.now();
  }

  #watchTimeoutSeconds(): number {
    return Math.max(1, Math.floor((this.#minWatchTimeoutMs / 1000) * (1 + this.#random())));
  }

  #open(options: ListOptions, signal: AbortSignal): OpenWatch<T> {
    const startedAt = this.#clock.now();
    const stream = this.#lw.watch(options, signal, this.#watchOptions);
    const rv = options.resourceVersion ?? "";
    return {
      stream,
      events: eventBatches(stream),
      leftover: NO_EVENTS,
      startedAt,
      timeoutSeconds: options.timeoutSeconds,
      gated: rv === "" || rv === "0",
      eventCount: 0,
    };
  }

  /**
   * A streaming list, retried as client-go retries it (see the class description); returns
   * the stream positioned after the end bookmark, to go on watching.
   *
   * @throws what makes the reflector fall back to a list.
   */
  async #watchList(signal: AbortSignal): Promise<OpenWatch<T>> {
    for (;;) {
      const rv = this.#resourceVersionUnavailable ? "" : this.#lastSyncResourceVersion;
      try {
        return await this.#watchListOnce(rv, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (isResourceExpired(err) || isTooLargeResourceVersion(err)) {
          this.#resourceVersionUnavailable = true;
          if (rv === "") throw err;
          this.#report(err, "retrying the WatchList at the latest resourceVersion");
          continue;
        }
        const ended = err instanceof WatchListIncompleteError && err.reason === "ended";
        if (!ended && !isRetriableWatchError(err)) throw err;
        const delay = this.#backoff.next();
        const from = rv === "" ? "at the latest resourceVersion" : `from ${rv}`;
        this.#report(err, `retrying the WatchList ${from} in ${seconds(delay)}`);
        await this.#clock.sleep(delay, signal);
      }
    }
  }

  /**
   * One WatchList attempt: collects the initial events (transformed as they arrive) until the
   * end bookmark, replaces the store, and returns the stream.
   */
  async #watchListOnce(resourceVersion: string, signal: AbortSignal): Promise<OpenWatch<T>> {
    this.#phase = "WatchList";
    const open = this.#open(
      {
        resourceVersion,
        resourceVersionMatch: "NotOlderThan",
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: this.#watchTimeoutSeconds(),
      },
      signal,
    );
    let timedOut = false;
    const timer = this.#clock.setTimer(this.#watchListEndTimeoutMs, () => {
      timedOut = true;
      open.stream.close();
    });
    const collected = new Map<string, T>();
    let received = 0;
    try {
      for (;;) {
        const step = await open.events.next();
        if (step.done === true) {
          const lasted = this.#clock.now() - open.startedAt;
          if (!timedOut && received === 0 && lasted < VERY_SHORT_WATCH_MS) {
            throw new VeryShortWatchError(this.name, lasted);
          }
          throw new WatchListIncompleteError(
            this.name,
            timedOut ? "timeout" : "ended",
            received,
            this.#watchListEndTimeoutMs,
          );
        }
        const batch = step.value;
        for (let i = 0; i < batch.length; i++) {
          const event = batch[i] as WatchEvent<T>;
          if (event.type === "ERROR") throw new StatusError(event.object);
          received++;
          const obj = event.object;
          if (!this.#isUsable(obj)) continue;
          if (event.type === "BOOKMARK") {
            if (!isInitialEventsEnd(obj)) continue;
            const rv = resourceVersionOf(obj) ?? "";
            this.#replace([...collected.values()], rv);
            this.#resourceVersionUnavailable = false;
            open.gated = false;
            open.eventCount = received;
            open.leftover = batch.slice(i + 1);
            return open;
          }
          let key: string;
          try {
            key = objectKey(obj as { metadata?: { name?: string; namespace?: string } });
          } catch (err) {
            this.#logger.error(`${this.name}: dropping a WatchList event without a key`, {
              error: errorMessage(err),
            });
            continue;
          }
          if (event.type === "DELETED") collected.delete(key);
          else collected.set(key, this.#prepare(obj));
        }
      }
    } catch (err) {
      closeWatch(open);
      throw err;
    } finally {
      timer.cancel();
    }
  }

  /**
   * Watches from the last RV, re-watching after clean ends and retriable errors; throws
   * (for a relist) on any other error.
   */
  async #watch(handoff: OpenWatch<T> | undefined, signal: AbortSignal): Promise<void> {
    const cycle: WatchCycle<T> = { stream: undefined, resyncFailure: undefined };
    const resync = this.#startResync(cycle);
    let next = handoff;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        throwIfResyncFailed(cycle);
        this.#phase = "watch";
        const open =
          next ??
          this.#open(
            {
              resourceVersion: this.#lastSyncResourceVersion,
              allowWatchBookmarks: true,
              timeoutSeconds: this.#watchTimeoutSeconds(),
            },
            signal,
          );
        next = undefined;
        cycle.stream = open.stream;
        let failure: { readonly error: unknown } | undefined;
        try {
          await this.#consume(open);
        } catch (err) {
          failure = { error: err };
        } finally {
          cycle.stream = undefined;
          closeWatch(open);
        }
        if (signal.aborted) throw signal.reason;
        throwIfResyncFailed(cycle);
        const lasted = this.#clock.now() - open.startedAt;
        if (this.#rewatchRule(open, lasted, failure) === "after-backoff") {
          const delay = this.#backoff.next();
          this.#report(
            failure?.error,
            `re-watching from ${this.#lastSyncResourceVersion} in ${seconds(delay)}`,
          );
          await this.#clock.sleep(delay, signal);
          continue;
        }
        this.#succeeded();
        this.#logWatchEnd(open, lasted);
      }
    } finally {
      resync?.cancel();
    }
  }

  /**
   * The re-watch rule (the watch's counterpart of `#relistResourceVersion`): how the
   * reflector goes on after a watch that lasted `lasted` ms ended, cleanly or with `failure`.
   * Every re-watch starts from the last resourceVersion.
   * - A clean end re-watches at once (`"now"`), unless the watch delivered nothing and lasted
   *   less than {@link VERY_SHORT_WATCH_MS}: that throws a {@link VeryShortWatchError} ("very
   *   short watch" in client-go), so the reflector relists.
   * - A retriable error (429, a refused connection, a half-open watch: see
   *   `isRetriableWatchError`) re-watches after a backoff (`"after-backoff"`), as client-go's
   *   `isWatchErrorRetriable` decides (`staging/src/k8s.io/client-go/tools/cache/reflector.go`).
   * - Any other error is thrown: the reflector backs off and relists.
   */
  #rewatchRule(
    open: OpenWatch<T>,
    lasted: number,
    failure: { readonly error: unknown } | undefined,
  ): "now" | "after-backoff" {
    if (failure !== undefined) {
      if (isRetriableWatchError(failure.error)) return "after-backoff";
      throw failure.error;
    }
    if (open.eventCount === 0 && lasted < VERY_SHORT_WATCH_MS) {
      throw new VeryShortWatchError(this.name, lasted);
    }
    return "now";
  }

  /** A clean end: routine when the watch ran its requested timeout, news otherwise. */
  #logWatchEnd(open: OpenWatch<T>, lasted: number): void {
    const next = `re-watching from ${this.#lastSyncResourceVersion}`;
    const timeoutMs = (open.timeoutSeconds ?? 0) * 1000;
    if (timeoutMs > 0 && lasted >= timeoutMs) {
      this.#logger.debug(`watch of ${this.name} reached its timeout; ${next}`);
    } else {
      this.#logger.info(
        `watch of ${this.name} closed by the server after ${seconds(lasted)}; ${next}`,
      );
    }
  }

  /** Applies the watch's events to the store, a batch at a time, until the watch ends. */
  async #consume(open: OpenWatch<T>): Promise<void> {
    let batch = open.leftover;
    open.leftover = NO_EVENTS;
    for (;;) {
      for (let i = 0; i < batch.length; i++) this.#apply(open, batch[i] as WatchEvent<T>);
      const step = await open.events.next();
      if (step.done === true) return;
      batch = step.value;
    }
  }

  /** Applies one watch event to the store. @throws {StatusError} for an ERROR event. */
  #apply(open: OpenWatch<T>, event: WatchEvent<T>): void {
    if (event.type === "ERROR") throw new StatusError(event.object);
    const obj = event.object;
    if (!this.#isUsable(obj)) return;
    const rv = resourceVersionOf(obj);
    this.#deliver(event.type, obj, rv);
    if (event.type !== "ADDED") open.gated = false;
    if (!open.gated && rv !== undefined) this.#setLastSyncResourceVersion(rv);
    if (open.eventCount++ === 0) this.#succeeded();
  }

  #deliver(
    type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK",
    obj: T,
    rv: string | undefined,
  ): void {
    try {
      switch (type) {
        case "ADDED":
          this.#store.add(this.#prepare(obj));
          break;
        case "MODIFIED":
          this.#store.update(this.#prepare(obj));
          break;
        case "DELETED":
          this.#store.delete(this.#prepare(obj));
          break;
        case "BOOKMARK":
          if (rv !== undefined) this.#store.bookmark?.(rv);
          break;
      }
    } catch (err) {
      this.#logger.error(`${this.name}: unable to apply a ${type} watch event to the store`, {
        error: errorMessage(err),
        resourceVersion: rv,
      });
    }
  }

  /**
   * Whether a watch event object can go to the store: not a `meta.k8s.io` Table (client-go's
   * "Unsupported watch event object gvk"), and of the expected kind when one is set. Dropped
   * objects are logged as errors.
   */
  #isUsable(obj: unknown): boolean {
    if (isTable(obj)) {
      this.#logger.error(
        `${this.name}: dropped a watch event carrying a ${String(stringOf(obj, "apiVersion"))} Table: a reflector needs the objects themselves (does the ListerWatcher's Accept header ask for a Table?)`,
      );
      return false;
    }
    if (this.#expectedKind === undefined) return true;
    const kind = stringOf(obj, "kind");
    if (kind === this.#expectedKind) return true;
    this.#logger.error(
      `${this.name}: expected kind ${this.#expectedKind}, but a watch event object had kind ${String(kind)}; dropped`,
    );
    return false;
  }

  /** Arms the periodic resync of one watch phase; a throwing resync closes the open watch. */
  #startResync(cycle: WatchCycle<T>): TimerHandle | undefined {
    if (this.#resyncPeriodMs <= 0) return undefined;
    let handle: TimerHandle | undefined;
    let cancelled = false;
    const arm = (): void => {
      handle = this.#clock.setTimer(this.#resyncPeriodMs, () => {
        try {
          if (this.#shouldResync === undefined || this.#shouldResync()) this.#store.resync();
        } catch (err) {
          this.#phase = "resync";
          cycle.resyncFailure = { error: err };
          cycle.stream?.close();
          return;
        }
        if (!cancelled) arm();
      });
    };
    arm();
    return {
      cancel: () => {
        cancelled = true;
        handle?.cancel();
      },
    };
  }

  /** Something worked: ends a run of failures (announcing the recovery if it was warned about). */
  #succeeded(): void {
    if (this.#failures === 0) return;
    if (this.#warned) {
      this.#logger.info(
        `list and watch of ${this.name} recovered after ${this.#failures} failures`,
      );
    }
    this.#failures = 0;
    this.#warned = false;
  }

  /**
   * Records a failure and hands it to the watch error handler, or logs it (see the class
   * description); `next` says what the reflector does about it, `level` overrides the
   * default level of an expected disruption's first occurrence.
   */
  #report(err: unknown, next: string, level: "info" | undefined = undefined): void {
    this.#lastError = { error: err, at: this.#clock.now() };
    this.#failures++;
    this.#logger.debug(`${this.#phase} of ${this.name} failed; ${next}`, { error: err });
    try {
      if (this.#errorHandler !== undefined) this.#errorHandler(err, this);
      else this.#logFailure(err, next, level);
    } catch (handlerError) {
      this.#logger.error(`${this.name}: the watch error handler threw`, {
        error: errorMessage(handlerError),
      });
    }
  }

  /** The default handling of a failure: one line at the level its kind and repetition call for. */
  #logFailure(err: unknown, next: string, level: "info" | undefined): void {
    const what = `${this.#phase} of ${this.name}`;
    const cause = isResourceExpired(err)
      ? `expired (410): ${errorMessage(err)}`
      : `failed: ${errorMessage(err)}`;
    const storeFailed = this.#phase === "resync" || this.#phase === "store replace";
    if (err instanceof UnsupportedListKindError || storeFailed) {
      this.#warned = true;
      this.#logger.error(`${what} ${cause}; ${next}`);
      return;
    }
    if (level !== undefined || isExpectedDisruption(err)) {
      if (this.#failures >= FAILURES_BEFORE_WARNING) {
        this.#warned = true;
        this.#logger.warn(`${what} ${cause} (${this.#failures} failures in a row); ${next}`);
      } else if (this.#failures === 1 || level !== undefined) {
        this.#logger.info(`${what} ${cause}; ${next}`);
      }
      return;
    }
    this.#warned = true;
    this.#logger.warn(`${what} ${cause}; ${next}`);
  }
}
