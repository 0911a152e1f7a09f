/**
 * Fixtures of the SharedIndexInformer unit tests: an in-memory ListerWatcher with a
 * controllable watch stream (history replay from a resourceVersion, injected errors,
 * deletions the watch never reports), a recording handler and a capturing logger.
 */
import {
  type ListerWatcher,
  type ListPage,
  type WatchStream,
  type ResourceEventHandler,
  DeletedFinalStateUnknown,
  type Logger,
  type LogLevel,
  type Status,
  type SharedIndexInformerOptions,
} from "kubekit";
import type { ListOptions, WatchEvent } from "../../../packages/kubekit/src/rest/index.js";
import type { Obj } from "./fixtures.js";
import { flush, show } from "./fixtures.js";
import { FakeClock } from "kubekit/testing";
import { newInformer } from "../../support/informer-mode.js";

/** An open watch of the {@link FakeListerWatcher}. */
export class FakeWatch implements WatchStream<Obj> {
  readonly options: ListOptions;
  #buffer: WatchEvent<Obj>[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #closed = false;
  readonly #signal: AbortSignal | undefined;

  constructor(options: ListOptions, initial: WatchEvent<Obj>[], signal: AbortSignal | undefined) {
    this.options = options;
    this.#buffer = initial;
    this.#signal = signal;
    signal?.addEventListener("abort", () => this.#notify(), { once: true });
  }

  /** Whether the stream is still delivering (neither ended by the server nor closed). */
  get open(): boolean {
    return !this.#ended && !this.#closed;
  }

  /** Queues an event for the consumer. */
  push(event: WatchEvent<Obj>): void {
    if (!this.open) return;
    this.#buffer.push(event);
    this.#notify();
  }

  /** The server ends the response cleanly (after the queued events). */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  close(): void {
    this.#closed = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<Obj>> {
    for (;;) {
      if (this.#closed) return;
      if (this.#signal?.aborted) throw this.#signal.reason;
      const event = this.#buffer.shift();
      if (event !== undefined) {
        yield event;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

function keyOf(o: Obj): string {
  const m = o.metadata;
  return m.namespace ? `${m.namespace}/${m.name ?? ""}` : (m.name ?? "");
}

function withRv(o: Obj, rv: number): Obj {
  return { ...o, metadata: { ...o.metadata, resourceVersion: String(rv) } };
}

/**
 * An in-memory resource: writes bump a global resourceVersion, are kept as watch history, and
 * are pushed to open watches. `list` returns everything (one page); `watch` replays history
 * newer than the requested resourceVersion, then goes live.
 */
export class FakeListerWatcher implements ListerWatcher<Obj> {
  readonly objects = new Map<string, Obj>();
  readonly lists: ListOptions[] = [];
  readonly watches: FakeWatch[] = [];
  #rv = 100;
  #history: { readonly rv: number; readonly event: WatchEvent<Obj> }[] = [];
  #listGate: Promise<void> | undefined;

  constructor(initial: readonly Obj[] = []) {
    for (const o of initial) this.objects.set(keyOf(o), withRv(o, ++this.#rv));
  }

  /** The current resourceVersion. */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Watches still delivering. */
  openWatches(): FakeWatch[] {
    return this.watches.filter((w) => w.open);
  }

  /** Creates (or replaces) an object: ADDED. Returns the stored object. */
  create(o: Obj): Obj {
    return this.#write("ADDED", o);
  }

  /** Updates an object: MODIFIED. Returns the stored object. */
  update(o: Obj): Obj {
    return this.#write("MODIFIED", o);
  }

  /** Deletes an object: DELETED with its last state at a new resourceVersion. */
  delete(key: string): Obj {
    const old = this.objects.get(key);
    if (old === undefined) throw new Error(`no object ${key}`);
    this.objects.delete(key);
    const stored = withRv(old, ++this.#rv);
    this.#record({ type: "DELETED", object: stored });
    return stored;
  }

  /** Deletes an object without any watch event or history: a deletion the informer misses. */
  deleteSilently(key: string): void {
    this.objects.delete(key);
    this.#rv++;
  }

  /** Sends an ERROR event (default 410 Expired) on every open watch and ends them. */
  failWatches(status: Status = expiredStatus()): void {
    for (const w of this.openWatches()) {
      w.push({ type: "ERROR", object: status });
      w.end();
    }
  }

  /** Resolves once `count` watches have been opened in total. */
  async watchOpened(count = 1): Promise<FakeWatch> {
    await waitUntil(() => this.watches.length >= count, `watch #${count} to open`);
    return this.watches[count - 1] as FakeWatch;
  }

  /** Lists from now on wait until the returned function is called (or their signal aborts). */
  holdLists(): () => void {
    let release: () => void = () => undefined;
    this.#listGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.#listGate = undefined;
      release();
    };
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage<Obj>> {
    const gate = this.#listGate;
    if (gate !== undefined) {
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    if (signal?.aborted) throw signal.reason;
    this.lists.push(options);
    return {
      items: [...this.objects.values()],
      metadata: { resourceVersion: this.resourceVersion },
    };
  }

  watch(options: ListOptions, signal?: AbortSignal): WatchStream<Obj> {
    const from = Number(options.resourceVersion ?? "0");
    const initial = this.#history.filter((h) => h.rv > from).map((h) => h.event);
    const w = new FakeWatch(options, initial, signal);
    this.watches.push(w);
    return w;
  }

  #write(type: "ADDED" | "MODIFIED", o: Obj): Obj {
    const stored = withRv(o, ++this.#rv);
    this.objects.set(keyOf(stored), stored);
    this.#record({ type, object: stored });
    return stored;
  }

  #record(event: WatchEvent<Obj>): void {
    this.#history.push({ rv: this.#rv, event });
    for (const w of this.openWatches()) w.push(event);
  }
}

/** A 410 Expired Status, as a watch ERROR event carries it. */
export function expiredStatus(): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version",
    reason: "Expired",
    code: 410,
  };
}

/** One recorded notification, readable: `add ns/a@3 initial`, `update ns/a@3 -> ns/a@4`, `delete ~ns/a@3`. */
export function describeNotification(
  type: "add" | "update" | "delete",
  a: Obj | DeletedFinalStateUnknown<Obj>,
  b?: Obj | boolean,
): string {
  if (type === "add") return `add ${show(a)}${b === true ? " initial" : ""}`;
  if (type === "update" && typeof b === "object") return `update ${show(a)} -> ${show(b)}`;
  return `delete ${show(a)}`;
}

/**
 * A handler recording its notifications as strings; `gate`, when set, is awaited by every
 * callback (before recording), which makes the handler as slow as the test wants.
 */
export class RecordingHandler implements ResourceEventHandler<Obj> {
  readonly events: string[] = [];
  readonly raw: { type: "add" | "update" | "delete"; args: unknown[] }[] = [];
  gate: Promise<void> | undefined;
  inFlight = 0;
  maxInFlight = 0;

  async onAdd(obj: Obj, isInInitialList: boolean): Promise<void> {
    await this.#enter();
    this.raw.push({ type: "add", args: [obj, isInInitialList] });
    this.events.push(describeNotification("add", obj, isInInitialList));
    this.inFlight--;
  }

  async onUpdate(oldObj: Obj, newObj: Obj): Promise<void> {
    await this.#enter();
    this.raw.push({ type: "update", args: [oldObj, newObj] });
    this.events.push(describeNotification("update", oldObj, newObj));
    this.inFlight--;
  }

  async onDelete(obj: Obj | DeletedFinalStateUnknown<Obj>): Promise<void> {
    await this.#enter();
    this.raw.push({ type: "delete", args: [obj] });
    this.events.push(describeNotification("delete", obj));
    this.inFlight--;
  }

  async #enter(): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.gate !== undefined) await this.gate;
  }
}

/** A logger that keeps what it is given. */
export class CapturingLogger implements Logger {
  readonly entries: { level: LogLevel; message: string; fields?: unknown }[] = [];
  debug(message: string, fields?: unknown): void {
    this.entries.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: unknown): void {
    this.entries.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: unknown): void {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: unknown): void {
    this.entries.push({ level: "error", message, fields });
  }
}

/**
 * Lets the event loop turn (macrotask by macrotask) until `condition` holds; fails after
 * `timeoutMs` of real time. Not a fixed sleep: it returns as soon as the condition holds.
 */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await flush();
  }
}

/** Turns the event loop `turns` times (for asserting that something did NOT happen). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await flush();
}

/** Whether `x` is a tombstone. */
export function isTombstone(x: unknown): x is DeletedFinalStateUnknown<Obj> {
  return x instanceof DeletedFinalStateUnknown;
}

/** Stops every informer {@link setupInformer} started; call it from `afterEach`. */
export async function stopInformers(): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup();
}

const cleanups: (() => Promise<void>)[] = [];

/**
 * An informer over a {@link FakeListerWatcher} holding `initial`, on a FakeClock, with a
 * capturing logger and a watch error handler recording into `errors`. `run()` starts it;
 * `stop()` (or {@link stopInformers}) aborts it and waits until it has stopped.
 */
export function setupInformer(
  initial: readonly Obj[] = [],
  options: Partial<SharedIndexInformerOptions<Obj>> = {},
) {
  const lw = new FakeListerWatcher(initial);
  const clock = new FakeClock();
  const logger = new CapturingLogger();
  const informer = newInformer<Obj>({
    listerWatcher: lw,
    clock,
    logger,
    name: "objs",
    ...options,
  });
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((err) => errors.push(err));
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  const run = (): Promise<void> => {
    done = informer.run(controller.signal);
    return done;
  };
  const stop = async (): Promise<void> => {
    controller.abort();
    await done;
  };
  cleanups.push(stop);
  return { lw, clock, logger, informer, controller, errors, run, stop };
}
