/**
 * Chaos test of the SharedIndexInformer against the embedded API server (issue 4): for
 * several seeds, thousands of writes (creates, merge patches, deletes, recreates of the same
 * names) while the server's faults fire at random — cut watches, stalled (half-open) watches,
 * compacted history, restarts, 429/5xx answers to lists, watches and writes, latency. Then:
 *
 * - the informer's cache equals the server's state exactly (keys, resourceVersions, content);
 * - each handler saw every key's events in resourceVersion order, as a consistent stream
 *   (add only for an absent key, update/delete only for a present one, `oldObj` is what it
 *   was last given, a tombstone holds what it was last given);
 * - the last event each handler saw for a key matches the final state (or is a delete);
 * - every fault kind fired and had an observable effect, so the test fails if faults stop
 *   working; no unhandled rejection.
 *
 * Everything random is drawn from a seeded PRNG per run; a failure names the seed (the test
 * title and the message), and `vitest run -t "seed 0x5eed0001"` runs that seed again with the
 * same plan of writes and the same random draws for faults (interleavings on the real clock —
 * which write a fault hits — differ from run to run).
 */
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { PodList } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ListerWatcher,
  type ListPage,
  type WatchStream,
  listerWatcherFor,
  SharedIndexInformer,
  DeletedFinalStateUnknown,
  type Clock,
  realClock,
  type Logger,
  noopLogger,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isResourceExpired,
  StatusError,
} from "kubekit";
import type { ResourceEventHandler } from "../../../packages/kubekit/src/cache/shared-index-informer.js";
import { deepEqual } from "../../../packages/kubekit/src/core/json.js";
import type {
  ListOptions,
  WatchEvent,
  WatchOptions,
} from "../../../packages/kubekit/src/rest/index.js";
import {
  RESTClient,
  TransportError,
  WatchIdleTimeoutError,
} from "../../../packages/kubekit/src/rest/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { startCluster } from "@kubekit/cluster";
import { SeededRandom } from "../../support/seeded-random.js";

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

/** One chaos run. */
interface ChaosRun {
  readonly seed: number;
  /** The informer's queue. */
  readonly queue: "in-order" | "delta-fifo";
  /** Start each relist with a streaming list (WatchList). */
  readonly useWatchList: boolean;
  /**
   * Informer resync period on the informer's (accelerated) clock, 0 = none: resyncs add
   * same-RV updates to the streams.
   */
  readonly resyncPeriodMs: number;
  /** Planned write operations (more are added while an expected fault effect is missing). */
  readonly writes: number;
  /** Distinct ConfigMap names the writes pick from (so names are deleted and recreated). */
  readonly names: number;
  /** Concurrent writers; each owns a subset of the names and writes them in plan order. */
  readonly concurrency: number;
  /** The server's history: small, so a watch that falls behind gets 410 Expired. */
  readonly historySize: number;
  /**
   * Run the simulated cluster on the server and roll out a Deployment through the chaos: the
   * faults hit its components too, and it must converge (all replicas Ready) afterwards.
   */
  readonly cluster?: boolean;
}

const RUNS: readonly ChaosRun[] = [
  {
    seed: 0x5eed0001,
    queue: "in-order",
    useWatchList: false,
    resyncPeriodMs: 0,
    writes: 1_500,
    names: 40,
    concurrency: 6,
    historySize: 40,
  },
  {
    seed: 0x5eed0002,
    queue: "delta-fifo",
    useWatchList: false,
    resyncPeriodMs: 30_000,
    writes: 1_500,
    names: 30,
    concurrency: 6,
    historySize: 25,
  },
  {
    seed: 0x5eed0003,
    queue: "in-order",
    useWatchList: true,
    resyncPeriodMs: 30_000,
    writes: 1_500,
    names: 50,
    concurrency: 8,
    historySize: 60,
  },
  {
    seed: 0x5eed0004,
    queue: "delta-fifo",
    useWatchList: true,
    resyncPeriodMs: 0,
    writes: 1_500,
    names: 25,
    concurrency: 5,
    historySize: 30,
  },
  {
    seed: 0x5eed0005,
    queue: "in-order",
    useWatchList: false,
    resyncPeriodMs: 0,
    writes: 1_200,
    names: 30,
    concurrency: 5,
    historySize: 200,
    cluster: true,
  },
];

/** The namespace and size of the Deployment rolled out through the chaos of a cluster run. */
const WORKLOAD_NAMESPACE = "workload";
const WORKLOAD_REPLICAS = 4;

const NAMESPACE = "chaos";

/**
 * Watches ask for `timeoutSeconds` = 1 (the reflector's floor), so the client's idle deadline
 * is 1 s + this grace: a stalled watch is detected ~1.15 s after its last byte.
 */
const MIN_WATCH_TIMEOUT_MS = 1_000;
const IDLE_GRACE_MS = 150;
const STALL_DETECTION_MS = MIN_WATCH_TIMEOUT_MS + IDLE_GRACE_MS;

/**
 * The informer's clock runs this many times faster than real time. The informer has no
 * backoff option, and its reflector backs off 800 ms doubling to 30 s (client-go's) on the
 * informer's clock: on an accelerated clock that is 8 ms to 300 ms (jittered up to 2×), so
 * the informer recovers between faults that fire every few tens of ms. Everything else on that
 * clock scales alike: the very-short-watch threshold (1 s → 10 ms), the WatchList end timeout,
 * resync periods and their 1 s floor. The HTTP side (server, watch timeouts, idle deadlines)
 * stays on the real clock.
 */
const CLOCK_RATE = 100;

/** Server bookmarks keep healthy-but-quiet watches sending bytes. */
const BOOKMARK_INTERVAL_MS = 250;

/** The planned writes of a run are spread over this long. */
const CHAOS_MS = 5_000;
/** How long the writers keep going beyond CHAOS_MS while an expected fault effect is missing. */
const EFFECT_GRACE_MS = 10_000;
/** How long the cache may take to converge once writes and faults stopped. */
const CONVERGENCE_TIMEOUT_MS = 20_000;
/** How long one write may keep failing (e.g. across a restart) before the test gives up. */
const WRITE_DEADLINE_MS = 10_000;

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    [field: string]: unknown;
  };
  data?: Record<string, string>;
}

function keyOf(obj: ConfigMap): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

function rvOf(obj: ConfigMap | undefined): string {
  return obj?.metadata.resourceVersion ?? "";
}

/** An object without apiVersion/kind: list items carry none, watch events do. */
function content(obj: ConfigMap): Omit<ConfigMap, "apiVersion" | "kind"> {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return rest;
}

/** A real-time clock running `rate` times faster: timers of `ms` fire after `ms / rate` real ms. */
function acceleratedClock(rate: number): Clock {
  const origin = Date.now();
  return {
    now: () => origin + (Date.now() - origin) * rate,
    setTimer: (ms, callback) => realClock.setTimer(ms / rate, callback),
    sleep: (ms, signal) => realClock.sleep(ms / rate, signal),
  };
}

function hex(seed: number): string {
  return `0x${seed.toString(16)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; resolves true once it holds, false at the deadline. */
async function pollUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function increment(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function formatCounts(map: ReadonlyMap<string, number>): string {
  return [...map.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}

// ---------------------------------------------------------------------------------------
// Instrumented ListerWatcher: what the informer's requests went through
// ---------------------------------------------------------------------------------------

/** Counts of the informer's list and watch requests and how they ended. */
class RequestStats {
  lists = 0;
  /** Failed list pages, by HTTP code (or error name). */
  readonly listFailures = new Map<string, number>();
  watches = 0;
  /** Watches that asked for initial events (WatchList). */
  watchLists = 0;
  /** Watches whose request was answered with an error status, by code. */
  readonly watchOpenFailures = new Map<string, number>();
  /** Watches the server ended cleanly before their timeout: cut by `closeWatches`. */
  watchCuts = 0;
  /** Watches the server ended cleanly at their timeout. */
  watchTimeouts = 0;
  /** Watches being iterated right now. */
  activeWatches = 0;

  /** Injected failures (429/500/503) the informer's lists met. */
  get injectedListFailures(): number {
    return injectedCount(this.listFailures);
  }

  /** Injected failures (429/500/503) the informer's watch requests met. */
  get injectedWatchFailures(): number {
    return injectedCount(this.watchOpenFailures);
  }
}

function injectedCount(failures: ReadonlyMap<string, number>): number {
  return FAILURE_CODES.reduce((sum, code) => sum + (failures.get(String(code)) ?? 0), 0);
}

function failureLabel(err: unknown): string {
  return err instanceof StatusError
    ? String(err.status.code)
    : err instanceof Error
      ? err.name
      : "?";
}

/** Forwards to a ListerWatcher and records what happened to each request. */
class CountingListerWatcher<T> implements ListerWatcher<T> {
  readonly stats = new RequestStats();

  constructor(private readonly inner: ListerWatcher<T>) {}

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage<T>> {
    this.stats.lists++;
    try {
      return await this.inner.list(options, signal);
    } catch (err) {
      increment(this.stats.listFailures, failureLabel(err));
      throw err;
    }
  }

  watch(options: ListOptions, signal?: AbortSignal, watchOptions?: WatchOptions): WatchStream<T> {
    const inner = this.inner.watch(options, signal, watchOptions);
    const stats = this.stats;
    if (options.sendInitialEvents === true) stats.watchLists++;
    let closedByClient = false;
    return {
      close: () => {
        closedByClient = true;
        inner.close();
      },
      [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => {
        const events = inner[Symbol.asyncIterator]();
        let state: "idle" | "active" | "finished" = "idle";
        let received = 0;
        let startedAt = 0;
        const finish = (): void => {
          if (state === "active") stats.activeWatches--;
          state = "finished";
        };
        return {
          next: async () => {
            if (state === "idle") {
              state = "active";
              startedAt = Date.now();
              stats.watches++;
              stats.activeWatches++;
            }
            try {
              const step = await events.next();
              if (step.done) {
                if (!closedByClient && !(signal?.aborted ?? false)) {
                  // The server times a watch out after timeoutSeconds (>= 1 s): shorter is a cut.
                  if (Date.now() - startedAt < MIN_WATCH_TIMEOUT_MS - 50) stats.watchCuts++;
                  else stats.watchTimeouts++;
                }
                finish();
              } else {
                received++;
              }
              return step;
            } catch (err) {
              if (received === 0 && err instanceof StatusError) {
                increment(stats.watchOpenFailures, failureLabel(err));
              }
              finish();
              throw err;
            }
          },
          return: async () => {
            finish();
            await events.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }
}

// ---------------------------------------------------------------------------------------
// What the informer reported to its watch error handler
// ---------------------------------------------------------------------------------------

type ErrorClass = "idle-timeout" | "expired" | "transport" | "429" | "500" | "503" | "other";

class ErrorTally {
  readonly counts = new Map<ErrorClass, number>();
  /** A few unclassified errors, for the failure message. */
  readonly others: string[] = [];

  record(err: unknown): void {
    const cls = this.classify(err);
    increment(this.counts as Map<string, number>, cls);
    if (cls === "other" && this.others.length < 10) this.others.push(messageOf(err));
  }

  count(cls: ErrorClass): number {
    return this.counts.get(cls) ?? 0;
  }

  private classify(err: unknown): ErrorClass {
    if (err instanceof WatchIdleTimeoutError) return "idle-timeout";
    if (isResourceExpired(err)) return "expired";
    if (err instanceof TransportError) return "transport";
    if (err instanceof StatusError) {
      const code = String(err.status.code);
      if (code === "429" || code === "500" || code === "503") return code;
    }
    return "other";
  }
}

/** A logger that keeps error-level messages (an informer logging an error is worth seeing). */
function recordingLogger(into: string[]): Logger {
  return {
    ...noopLogger,
    error: (message, fields) => {
      const error = fields?.["error"];
      if (into.length < 20)
        into.push(error === undefined ? message : `${message}: ${messageOf(error)}`);
    },
  };
}

// ---------------------------------------------------------------------------------------
// Handlers that record and check every notification
// ---------------------------------------------------------------------------------------

interface Notification {
  readonly type: "add" | "update" | "delete";
  readonly key: string;
  readonly rv: string;
  readonly tombstone: boolean;
}

/**
 * A handler that records every notification and checks, as it arrives, that the stream is
 * consistent: per key, an add only while absent, an update/delete only while present,
 * `oldObj` of an update is exactly the object last delivered, resourceVersions strictly
 * increase (an update with old RV = new RV is a resync/relist re-delivery and is allowed),
 * a tombstone carries the object last delivered (or none). `view` is the state the handler
 * believes in: key → RV of the last add/update, removed on delete.
 */
class RecordingHandler implements ResourceEventHandler<ConfigMap> {
  readonly notifications: Notification[] = [];
  readonly violations: string[] = [];
  readonly view = new Map<string, string>();
  /** Highest RV delivered per key, across the key's lifetimes (RVs are global). */
  readonly #highest = new Map<string, number>();
  syncUpdates = 0;
  tombstones = 0;
  initialAdds = 0;
  /** Handler calls still running (the slow handler's awaited delays). */
  inFlight = 0;
  /** The largest backlog of this handler seen when it was called (set {@link backlogOf}). */
  maxBacklog = 0;
  /** Reads this handler's registration backlog. */
  backlogOf: () => number = () => 0;

  constructor(
    readonly name: string,
    /** Draws the delay of a slow call (undefined → answer synchronously). */
    private readonly delayMs: () => number | undefined = () => undefined,
  ) {}

  onAdd(obj: ConfigMap, isInInitialList: boolean): void | Promise<void> {
    const key = keyOf(obj);
    const rv = rvOf(obj);
    this.notifications.push({ type: "add", key, rv, tombstone: false });
    if (isInInitialList) this.initialAdds++;
    if (this.view.has(key)) {
      this.violate(`add of ${key}@${rv} while it is present (@${this.view.get(key)})`);
    }
    this.checkIncreasing(key, rv, "add");
    this.view.set(key, rv);
    return this.pause();
  }

  onUpdate(oldObj: ConfigMap, newObj: ConfigMap): void | Promise<void> {
    const key = keyOf(newObj);
    const rv = rvOf(newObj);
    const oldRv = rvOf(oldObj);
    this.notifications.push({ type: "update", key, rv, tombstone: false });
    if (keyOf(oldObj) !== key) this.violate(`update of ${key} with oldObj ${keyOf(oldObj)}`);
    const current = this.view.get(key);
    if (current === undefined) {
      this.violate(`update of ${key} ${oldRv}→${rv} while it is absent`);
    } else if (oldRv !== current) {
      this.violate(`update of ${key} ${oldRv}→${rv}: oldObj is not the last delivered @${current}`);
    }
    if (rv === oldRv) this.syncUpdates++;
    else this.checkIncreasing(key, rv, "update");
    this.view.set(key, rv);
    return this.pause();
  }

  onDelete(obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void | Promise<void> {
    const tombstone = obj instanceof DeletedFinalStateUnknown;
    const key = tombstone ? obj.key : keyOf(obj);
    const last = tombstone ? obj.obj : obj;
    const rv = rvOf(last);
    this.notifications.push({ type: "delete", key, rv, tombstone });
    const current = this.view.get(key);
    if (current === undefined) {
      this.violate(`${tombstone ? "tombstone" : "delete"} of ${key}@${rv} while it is absent`);
    }
    if (tombstone) {
      this.tombstones++;
      if (last !== undefined && current !== undefined && rv !== current) {
        this.violate(`tombstone of ${key} holds @${rv}, the last delivered is @${current}`);
      }
    } else {
      this.checkIncreasing(key, rv, "delete");
    }
    this.view.delete(key);
    return this.pause();
  }

  private checkIncreasing(key: string, rv: string, what: string): void {
    const n = Number(rv);
    const highest = this.#highest.get(key) ?? 0;
    if (!Number.isInteger(n) || n <= highest) {
      this.violate(`${what} of ${key}@${rv} does not follow @${highest} (RV order)`);
    }
    if (n > highest) this.#highest.set(key, n);
  }

  private violate(message: string): void {
    if (this.violations.length < 20) {
      this.violations.push(`${this.name} #${this.notifications.length}: ${message}`);
    }
  }

  private pause(): void | Promise<void> {
    this.maxBacklog = Math.max(this.maxBacklog, this.backlogOf());
    const ms = this.delayMs();
    if (ms === undefined) return undefined;
    this.inFlight++;
    return sleep(ms).finally(() => {
      this.inFlight--;
    });
  }
}

// ---------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------

interface WriteOp {
  readonly name: string;
  readonly kind: "set" | "delete";
  /** For "set": a merge patch of `data` (null removes a key); on create the nulls are dropped. */
  readonly data: Readonly<Record<string, string | null>>;
}

function nameOf(index: number): string {
  return `cm-${String(index).padStart(3, "0")}`;
}

function randomOp(rng: SeededRandom, name: string, serial: number): WriteOp {
  if (rng.chance(0.22)) return { name, kind: "delete", data: {} };
  const data: Record<string, string | null> = { v: String(serial) };
  const field = `f${rng.int(0, 4)}`;
  data[field] = rng.chance(0.25) ? null : "x".repeat(rng.int(1, 200));
  return { name, kind: "set", data };
}

/**
 * Applies write operations with its own retries: an error (429, 5xx, a broken connection, or
 * NotFound/AlreadyExists after a lost race with its own earlier attempt) makes it forget what
 * it believed about the object, re-read it, and try again — a write answered with 5xx may or
 * may not have happened.
 */
class Writer {
  /** Errors met, by HTTP code or error name. */
  readonly failures = new Map<string, number>();
  applied = 0;
  readonly #exists = new Map<string, boolean>();

  constructor(
    private readonly client: RESTClient,
    private readonly namespace: string,
  ) {}

  async apply(op: WriteOp): Promise<void> {
    const deadline = Date.now() + WRITE_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.attempt(op);
        this.applied++;
        return;
      } catch (err) {
        this.#exists.delete(op.name);
        const label = this.classify(err);
        increment(this.failures, label);
        if (label === "unexpected" || Date.now() > deadline) {
          throw new Error(
            `write ${op.kind} ${op.name}, attempt ${attempt + 1}: ${messageOf(err)}`,
            {
              cause: err,
            },
          );
        }
        await sleep(Math.min(2 + attempt * 3, 30));
      }
    }
  }

  async attempt(op: WriteOp): Promise<void> {
    let exists = this.#exists.get(op.name);
    if (exists === undefined) exists = await this.read(op.name);
    if (op.kind === "delete") {
      if (exists) {
        await this.client
          .delete()
          .version("v1")
          .namespace(this.namespace)
          .resource("configmaps")
          .name(op.name)
          .do();
      }
      this.#exists.set(op.name, false);
      return;
    }
    if (exists) {
      await this.client
        .patch("application/merge-patch+json")
        .version("v1")
        .namespace(this.namespace)
        .resource("configmaps")
        .name(op.name)
        .body({ data: op.data })
        .do();
    } else {
      const data: Record<string, string> = {};
      for (const [k, v] of Object.entries(op.data)) if (v !== null) data[k] = v;
      await this.client
        .post()
        .version("v1")
        .namespace(this.namespace)
        .resource("configmaps")
        .body({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: op.name }, data })
        .do();
    }
    this.#exists.set(op.name, true);
  }

  /** Lists the namespace's ConfigMaps, retrying failures. */
  async list(): Promise<{ items: ConfigMap[]; resourceVersion: string }> {
    const deadline = Date.now() + WRITE_DEADLINE_MS;
    for (;;) {
      try {
        const res = await this.client
          .get()
          .version("v1")
          .namespace(this.namespace)
          .resource("configmaps")
          .do<{ items: ConfigMap[]; metadata: { resourceVersion: string } }>();
        return { items: res.body.items, resourceVersion: res.body.metadata.resourceVersion };
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await sleep(10);
      }
    }
  }

  private async read(name: string): Promise<boolean> {
    try {
      await this.client
        .get()
        .version("v1")
        .namespace(this.namespace)
        .resource("configmaps")
        .name(name)
        .do();
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private classify(err: unknown): string {
    if (err instanceof TransportError) return "transport";
    if (isNotFound(err)) return "notfound";
    if (isAlreadyExists(err)) return "alreadyexists";
    if (isConflict(err)) return "conflict";
    if (err instanceof StatusError) {
      const code = err.status.code ?? 0;
      if (code === 429 || code >= 500) return String(code);
    }
    return "unexpected";
  }
}

// ---------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------

const FAULT_KINDS = [
  "closeWatches",
  "stallWatches",
  "compactHistory",
  "failList",
  "failWatch",
  "failWrite",
  "restart",
  "latency",
] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

const FAILURE_CODES = [429, 500, 503] as const;

/** The random draws of one fault step (drawn together, so every step consumes the same amount). */
interface FaultDraw {
  readonly preferMissing: boolean;
  readonly pick: number;
  readonly code: (typeof FAILURE_CODES)[number];
  readonly count: number;
  readonly retryAfter: boolean;
  readonly latencyMs: number;
  readonly pauseMs: number;
  readonly quietAfterStall: boolean;
}

/**
 * Fires the server's faults at random intervals until stopped. The first round fires every
 * kind once (in a seeded order); later, a kind whose effect has not been observed yet is
 * preferred. List/watch failures are injected only when the previous ones were consumed (they
 * wait for the informer's next request; piling them up would keep it failing for seconds).
 * After a stall it sometimes stays quiet long enough for the informer to detect the half-open
 * watch by itself (otherwise a later cut or restart ends the stalled watch).
 */
class FaultLoop {
  /** Faults fired that could take effect, by kind. */
  readonly fired = new Map<FaultKind, number>();
  #injectedListFailures = 0;
  #injectedWatchFailures = 0;
  #stopped = false;

  constructor(
    private readonly server: ApiServer,
    private readonly rng: SeededRandom,
    private readonly stats: RequestStats,
    /** Kinds whose effect has not been observed yet. */
    private readonly missing: () => readonly FaultKind[],
  ) {}

  stop(): void {
    this.#stopped = true;
  }

  async run(): Promise<void> {
    const firstRound = this.rng.shuffle(FAULT_KINDS);
    for (let i = 0; !this.#stopped; i++) {
      const draw: FaultDraw = {
        preferMissing: this.rng.chance(0.5),
        pick: this.rng.next(),
        code: this.rng.pick(FAILURE_CODES),
        count: this.rng.int(1, 4),
        retryAfter: this.rng.chance(0.5),
        latencyMs: this.rng.int(1, 15),
        pauseMs: this.rng.int(15, 120),
        quietAfterStall: this.rng.chance(0.25),
      };
      const missing = this.missing();
      const pool = draw.preferMissing && missing.length > 0 ? missing : FAULT_KINDS;
      const kind = firstRound[i] ?? (pool[Math.floor(draw.pick * pool.length)] as FaultKind);
      await this.fire(kind, draw);
      const quiet = kind === "stallWatches" && (missing.includes(kind) || draw.quietAfterStall);
      await sleep(quiet ? STALL_DETECTION_MS + 250 : draw.pauseMs);
      if (kind === "latency") this.server.faults.setLatency(0);
    }
  }

  private async fire(kind: FaultKind, draw: FaultDraw): Promise<void> {
    const faults = this.server.faults;
    const count = (): void => increment(this.fired as Map<string, number>, kind);
    const failure = {
      code: draw.code,
      // Only the test's own requests: with the simulated cluster on, its components' requests
      // (all namespaces) must not consume the failures the informer is expected to observe.
      namespace: NAMESPACE,
      // A 429 always carries Retry-After (1 s by default): make it 0, the clients retry themselves.
      ...(draw.code === 429 || draw.retryAfter ? { retryAfterSeconds: 0 } : {}),
    };
    switch (kind) {
      case "closeWatches":
        // A cut or stall counts only when the informer has a watch open.
        if (this.stats.activeWatches > 0) count();
        faults.closeWatches();
        return;
      case "stallWatches":
        if (this.stats.activeWatches > 0) count();
        faults.stallWatches();
        return;
      case "compactHistory":
        count();
        faults.compactHistory();
        return;
      case "failList":
        if (this.#injectedListFailures > this.stats.injectedListFailures) return;
        count();
        this.#injectedListFailures = this.stats.injectedListFailures + draw.count;
        faults.failNext(draw.count, { ...failure, verbs: ["list"] });
        return;
      case "failWatch":
        if (this.#injectedWatchFailures > this.stats.injectedWatchFailures) return;
        count();
        this.#injectedWatchFailures = this.stats.injectedWatchFailures + draw.count;
        faults.failNext(draw.count, { ...failure, verbs: ["watch"] });
        return;
      case "failWrite":
        count();
        faults.failNext(draw.count, { ...failure, verbs: ["create", "patch", "delete"] });
        return;
      case "restart":
        count();
        await faults.restart();
        return;
      case "latency":
        count();
        faults.setLatency(draw.latencyMs);
        return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------

/** A Deployment in its own namespace, rolled out by the simulated cluster during the chaos. */
async function createWorkload(client: RESTClient): Promise<void> {
  await client
    .post()
    .version("v1")
    .resource("namespaces")
    .body({ metadata: { name: WORKLOAD_NAMESPACE } })
    .do();
  await client
    .post()
    .group("apps")
    .version("v1")
    .namespace(WORKLOAD_NAMESPACE)
    .resource("deployments")
    .body({
      metadata: { name: "web" },
      spec: {
        replicas: WORKLOAD_REPLICAS,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx" }] },
        },
      },
    })
    .do();
}

/** What the Deployment reports and what its pods are. */
interface WorkloadState {
  readonly observedCurrentGeneration: boolean;
  readonly availableReplicas: number;
  readonly updatedReplicas: number;
  /** Pods not being deleted. */
  readonly livePods: number;
  /** Live pods Running with Ready=True. */
  readonly readyPods: number;
}

async function workloadState(client: RESTClient): Promise<WorkloadState> {
  const deployment = (
    await client
      .get()
      .group("apps")
      .version("v1")
      .namespace(WORKLOAD_NAMESPACE)
      .resource("deployments")
      .name("web")
      .do<Deployment>()
  ).body;
  const pods = (
    await client.get().version("v1").namespace(WORKLOAD_NAMESPACE).resource("pods").do<PodList>()
  ).body;
  const live = pods.items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const ready = live.filter(
    (p) =>
      p.status?.phase === "Running" &&
      p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
  );
  const status = deployment.status ?? {};
  return {
    observedCurrentGeneration: status.observedGeneration === deployment.metadata?.generation,
    availableReplicas: status.availableReplicas ?? 0,
    updatedReplicas: status.updatedReplicas ?? 0,
    livePods: live.length,
    readyPods: ready.length,
  };
}

function clientFor(server: ApiServer): RESTClient {
  const config = server.kubeConfig().restConfig();
  // No client-side throttling, no REST-level retries: the informer and the writer retry.
  return new RESTClient({ ...config, qps: -1 }, { maxRetries: 0, logger: noopLogger });
}

/** Differences between the informer's cache and the server's objects (empty when equal). */
function cacheDiff(cached: readonly ConfigMap[], stored: readonly ConfigMap[]): string[] {
  const diff: string[] = [];
  const byKey = new Map(cached.map((o) => [keyOf(o), o]));
  for (const obj of stored) {
    const mine = byKey.get(keyOf(obj));
    byKey.delete(keyOf(obj));
    if (mine === undefined) diff.push(`missing ${keyOf(obj)}@${rvOf(obj)}`);
    else if (rvOf(mine) !== rvOf(obj))
      diff.push(`${keyOf(obj)} @${rvOf(mine)}, server @${rvOf(obj)}`);
    else if (!deepEqual(content(mine), content(obj))) diff.push(`${keyOf(obj)} content differs`);
  }
  for (const [key, obj] of byKey) diff.push(`extra ${key}@${rvOf(obj)}`);
  return diff;
}

/** Differences between a handler's view (key → RV) and the final state. */
function viewDiff(view: ReadonlyMap<string, string>, stored: readonly ConfigMap[]): string[] {
  const diff: string[] = [];
  const remaining = new Map(view);
  for (const obj of stored) {
    const seen = remaining.get(keyOf(obj));
    remaining.delete(keyOf(obj));
    if (seen === undefined) diff.push(`last event of ${keyOf(obj)} is not an add/update`);
    else if (seen !== rvOf(obj)) {
      diff.push(`last event of ${keyOf(obj)} @${seen}, final @${rvOf(obj)}`);
    }
  }
  for (const [key, rv] of remaining) diff.push(`${key}: last event @${rv} but it no longer exists`);
  return diff;
}

const unhandledRejections: unknown[] = [];
const onUnhandledRejection = (reason: unknown): void => {
  unhandledRejections.push(reason);
};

beforeAll(() => {
  process.on("unhandledRejection", onUnhandledRejection);
});

afterAll(() => {
  process.off("unhandledRejection", onUnhandledRejection);
});

async function chaos(run: ChaosRun): Promise<void> {
  const label = `seed ${hex(run.seed)}`;
  const rng = new SeededRandom(run.seed);
  const server = await ApiServer.start({
    historySize: run.historySize,
    bookmarkIntervalMs: BOOKMARK_INTERVAL_MS,
  });
  if (run.cluster) await startCluster({ server });
  const writerClient = clientFor(server);
  const informerClient = clientFor(server);
  const stopInformer = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const writer = new Writer(writerClient, NAMESPACE);
    await writerClient
      .post()
      .version("v1")
      .resource("namespaces")
      .body({ metadata: { name: NAMESPACE } })
      .do();

    const lw = new CountingListerWatcher<ConfigMap>(
      listerWatcherFor<ConfigMap>(informerClient, {
        group: "",
        version: "v1",
        resource: "configmaps",
        namespace: NAMESPACE,
      }),
    );
    const errors = new ErrorTally();
    const errorLogs: string[] = [];
    const informer = new SharedIndexInformer<ConfigMap>({
      listerWatcher: lw,
      name: `configmaps-${hex(run.seed)}`,
      queue: run.queue,
      resyncPeriodMs: run.resyncPeriodMs,
      clock: acceleratedClock(CLOCK_RATE),
      logger: recordingLogger(errorLogs),
      reflector: {
        useWatchList: run.useWatchList,
        minWatchTimeoutMs: MIN_WATCH_TIMEOUT_MS,
        idleGraceMs: IDLE_GRACE_MS,
        // 1 s of real time: a stalled WatchList falls back to a list about when idle detection would.
        watchListEndTimeoutMs: 1_000 * CLOCK_RATE,
      },
    });
    informer.setWatchErrorHandler((err) => errors.record(err));
    const slowRng = rng.derive(1);
    const handlers = [
      new RecordingHandler("fast"),
      new RecordingHandler("slow", () => (slowRng.chance(0.15) ? slowRng.int(1, 8) : undefined)),
    ];
    // The slow handler resyncs half as often: same-RV updates reach only the handlers due.
    const registrations = handlers.map((h, i) =>
      informer.addEventHandler(h, { resyncPeriodMs: run.resyncPeriodMs * (i + 1) }),
    );
    handlers.forEach((h, i) => {
      h.backlogOf = () => registrations[i]?.backlog ?? 0;
    });
    running = informer.run(stopInformer.signal);

    // Which fault kinds have shown an effect.
    const effects: Record<FaultKind, () => boolean> = {
      closeWatches: () => lw.stats.watchCuts > 0,
      stallWatches: () => errors.count("idle-timeout") > 0,
      compactHistory: () => errors.count("expired") > 0,
      failList: () => lw.stats.listFailures.size > 0,
      failWatch: () => lw.stats.watchOpenFailures.size > 0,
      failWrite: () => injectedCount(writer.failures) > 0,
      restart: () => errors.count("transport") > 0,
      latency: () => true,
    };
    const missing = (): FaultKind[] =>
      FAULT_KINDS.filter((k) => (faultLoop.fired.get(k) ?? 0) === 0 || !effects[k]());
    const faultLoop = new FaultLoop(server, rng.derive(2), lw.stats, missing);

    // The plan: every op drawn up front; writer w owns the names with index % concurrency = w.
    const plan: WriteOp[] = [];
    for (let i = 0; i < run.writes; i++) {
      plan.push(randomOp(rng, nameOf(rng.int(0, run.names)), i));
    }
    // Each writer spreads its ops evenly over CHAOS_MS, so that faults hit a stream of writes.
    const chaosStart = Date.now();
    const effectDeadline = chaosStart + CHAOS_MS + EFFECT_GRACE_MS;
    let serial = run.writes;
    let writesFailed = false;
    const writeLoop = async (w: number): Promise<void> => {
      const owned = (name: string): boolean => Number(name.slice(3)) % run.concurrency === w;
      const mine = plan.filter((op) => owned(op.name));
      const gapMs = CHAOS_MS / Math.max(1, mine.length);
      let due = chaosStart;
      const paced = async (op: WriteOp): Promise<void> => {
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        due += gapMs;
        await writer.apply(op);
      };
      for (const op of mine) {
        if (writesFailed) return;
        await paced(op);
      }
      const extra = rng.derive(100 + w);
      const names = Array.from({ length: run.names }, (_, i) => nameOf(i)).filter(owned);
      while (
        !writesFailed &&
        names.length > 0 &&
        missing().length > 0 &&
        Date.now() < effectDeadline
      ) {
        await paced(randomOp(extra, extra.pick(names), serial++));
      }
    };
    const writers = Array.from({ length: run.concurrency }, (_, w) =>
      writeLoop(w).catch((err: unknown) => {
        writesFailed = true;
        throw err;
      }),
    );
    if (run.cluster) await createWorkload(writerClient);
    const faulting = faultLoop.run();
    const written = await Promise.allSettled(writers);
    faultLoop.stop();
    await faulting;
    server.faults.clear();
    for (const result of written) {
      if (result.status === "rejected") {
        throw new Error(`${label}: ${messageOf(result.reason)}`, { cause: result.reason });
      }
    }

    // Converge: the cache must equal the server's state exactly.
    const final = await writer.list();
    await pollUntil(
      () => cacheDiff(informer.indexer.list(), final.items).length === 0,
      CONVERGENCE_TIMEOUT_MS,
    );
    const summary = [
      `${label} (${run.queue}${run.useWatchList ? ", WatchList" : ""})`,
      `writes=${writer.applied} final objects=${final.items.length} rv=${final.resourceVersion}`,
      `faults: ${formatCounts(faultLoop.fired)}`,
      `informer errors: ${formatCounts(errors.counts)}${errors.others.length > 0 ? ` (other: ${errors.others.join("; ")})` : ""}`,
      `requests: lists=${lw.stats.lists} watchLists=${lw.stats.watchLists} (failed ${formatCounts(lw.stats.listFailures)}) watches=${lw.stats.watches} (failed ${formatCounts(lw.stats.watchOpenFailures)}, cut ${lw.stats.watchCuts}, timed out ${lw.stats.watchTimeouts})`,
      `writer errors: ${formatCounts(writer.failures)}`,
      ...handlers.map(
        (h) =>
          `${h.name}: ${h.notifications.length} notifications, ${h.tombstones} tombstones, ${h.syncUpdates} same-RV updates, max backlog ${h.maxBacklog}`,
      ),
    ].join("\n  ");
    expect(
      cacheDiff(informer.indexer.list(), final.items),
      `${summary}\ncache did not converge within ${CONVERGENCE_TIMEOUT_MS} ms`,
    ).toEqual([]);

    // Every handler has received and finished everything, then stop the informer.
    const drained = await pollUntil(
      () => registrations.every((r) => r.backlog === 0) && handlers.every((h) => h.inFlight === 0),
      CONVERGENCE_TIMEOUT_MS,
    );
    expect(drained, `${summary}\nhandlers did not drain`).toBe(true);
    expect(informer.hasSynced(), summary).toBe(true);
    for (const r of registrations) expect(r.hasSynced(), summary).toBe(true);
    if (run.cluster) {
      const rolledOut: WorkloadState = {
        observedCurrentGeneration: true,
        availableReplicas: WORKLOAD_REPLICAS,
        updatedReplicas: WORKLOAD_REPLICAS,
        livePods: WORKLOAD_REPLICAS,
        readyPods: WORKLOAD_REPLICAS,
      };
      let workload = await workloadState(writerClient);
      const deadline = Date.now() + CONVERGENCE_TIMEOUT_MS;
      while (!deepEqual(workload, rolledOut) && Date.now() < deadline) {
        await sleep(50);
        workload = await workloadState(writerClient);
      }
      expect(workload, `${summary}\nthe simulated cluster did not converge`).toEqual(rolledOut);
    }
    stopInformer.abort();
    const stopped = await Promise.race([running.then(() => true), sleep(10_000).then(() => false)]);
    expect(stopped, `${summary}\ninformer.run() did not resolve after abort`).toBe(true);
    expect(informer.isStopped, summary).toBe(true);

    // Each handler: a consistent, RV-ordered stream whose end state is the final state.
    for (const h of handlers) {
      expect(h.violations, `${summary}\n${h.name}: inconsistent notification stream`).toEqual([]);
      expect(viewDiff(h.view, final.items), `${summary}\n${h.name}: final state`).toEqual([]);
    }

    // The paths the faults are meant to reach were reached: deletions detected by a relist
    // (tombstones) and, when enabled, streaming lists.
    for (const h of handlers)
      expect(h.tombstones, `${summary}\n${h.name}: tombstones`).toBeGreaterThan(0);
    expect(handlers[1]?.maxBacklog, `${summary}\nthe slow handler never lagged`).toBeGreaterThan(0);
    if (run.useWatchList) expect(lw.stats.watchLists, `${summary}\nWatchLists`).toBeGreaterThan(0);

    // Every fault kind fired and had its effect.
    expect(missing(), `${summary}\nfault kinds without an observed effect`).toEqual([]);
    expect(errorLogs, `${summary}\ninformer logged errors`).toEqual([]);
    expect(unhandledRejections.map(messageOf), `${summary}\nunhandled rejections`).toEqual([]);
    console.info(summary);
  } finally {
    stopInformer.abort();
    await running?.catch(() => undefined);
    await server.stop();
    await writerClient.transport.close();
    await informerClient.transport.close();
  }
}

describe("SharedIndexInformer under chaos (issue 4)", () => {
  for (const run of RUNS) {
    it(`seed ${hex(run.seed)}: ${run.queue}${run.useWatchList ? ", WatchList" : ""}, ${run.writes}+ writes`, async () => {
      await chaos(run);
    }, 45_000);
  }
});
