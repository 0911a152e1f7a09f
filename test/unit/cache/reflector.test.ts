import { afterEach, describe, expect, it } from "vitest";
import {
  type ListerWatcher,
  type ListPage,
  type WatchStream,
  type ReflectorOptions,
  INITIAL_EVENTS_END_ANNOTATION,
  Reflector,
  UnsupportedListKindError,
  VeryShortWatchError,
  WatchListIncompleteError,
  type ReflectorStore,
  type LogFields,
  type Logger,
  StatusError,
  newInternalError,
  newResourceExpired,
  newTooLargeResourceVersion,
  newTooManyRequests,
  type Status,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import type {
  ListOptions,
  WatchEvent,
  WatchOptions,
} from "../../../packages/kubekit/src/rest/index.js";
import { TransportError } from "../../../packages/kubekit/src/rest/index.js";

interface Obj {
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
}

const obj = (name: string, rv: string, kind = "Thing"): Obj => ({
  kind,
  metadata: { name, namespace: "ns", resourceVersion: rv },
});
const bookmark = (rv: string, end = false): Obj => ({
  kind: "Thing",
  metadata: {
    resourceVersion: rv,
    ...(end ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } } : {}),
  },
});
const page = (items: Obj[], rv: string | undefined, token?: string): ListPage<Obj> => ({
  items,
  metadata: {
    ...(rv !== undefined ? { resourceVersion: rv } : {}),
    ...(token !== undefined ? { continue: token } : {}),
  },
});

type Item = { event: WatchEvent<Obj> } | { error: unknown } | { end: true };

/** A watch whose events the test pushes. */
class ScriptedWatch implements WatchStream<Obj> {
  readonly #queue: Item[] = [];
  #wake: (() => void) | undefined;
  closed = false;

  constructor(
    readonly options: ListOptions,
    readonly signal: AbortSignal | undefined,
    readonly watchOptions: WatchOptions | undefined,
  ) {
    signal?.addEventListener("abort", () => this.#wake?.(), { once: true });
  }

  emit(type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", object: Obj): this {
    return this.#push({ event: { type, object } });
  }

  error(status: Status): this {
    return this.#push({ event: { type: "ERROR", object: status } });
  }

  fail(error: unknown): this {
    return this.#push({ error });
  }

  end(): this {
    return this.#push({ end: true });
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  #push(item: Item): this {
    this.#queue.push(item);
    this.#wake?.();
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<Obj>> {
    for (;;) {
      if (this.signal?.aborted) throw this.signal.reason;
      if (this.closed) return;
      const item = this.#queue.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      if ("error" in item) throw item.error;
      if ("end" in item) return;
      yield item.event;
    }
  }
}

/** A ListerWatcher answering lists from a script and handing out scripted watches. */
class ScriptedListerWatcher implements ListerWatcher<Obj> {
  readonly lists: ListOptions[] = [];
  readonly watches: ScriptedWatch[] = [];
  readonly listResponses: (ListPage<Obj> | Error)[] = [];
  fallbackPage: ListPage<Obj> = page([], "100");

  list(options: ListOptions): Promise<ListPage<Obj>> {
    this.lists.push(options);
    const next = this.listResponses.shift() ?? this.fallbackPage;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }

  watch(options: ListOptions, signal?: AbortSignal, watchOptions?: WatchOptions): ScriptedWatch {
    const w = new ScriptedWatch(options, signal, watchOptions);
    this.watches.push(w);
    return w;
  }

  watchAt(i: number): ScriptedWatch {
    const w = this.watches[i];
    if (w === undefined) throw new Error(`no watch #${i}`);
    return w;
  }
}

type Call = [string, ...string[]];

class RecordingStore implements ReflectorStore<Obj> {
  readonly calls: Call[] = [];
  failOn: Set<string> = new Set();

  #record(op: string, ...args: string[]): void {
    this.calls.push([op, ...args]);
    if (this.failOn.has(op)) throw new Error(`${op} failed`);
  }

  add(o: Obj): void {
    this.#record("add", o.metadata.name ?? "", o.metadata.resourceVersion ?? "");
  }
  update(o: Obj): void {
    this.#record("update", o.metadata.name ?? "", o.metadata.resourceVersion ?? "");
  }
  delete(o: Obj): void {
    this.#record("delete", o.metadata.name ?? "", o.metadata.resourceVersion ?? "");
  }
  replace(list: readonly Obj[], rv: string): void {
    this.#record("replace", list.map((o) => o.metadata.name ?? "").join(","), rv);
  }
  resync(): void {
    this.#record("resync");
  }
  bookmark(rv: string): void {
    this.#record("bookmark", rv);
  }
}

interface LogEntry {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

function recordingLogger(): Logger & {
  lines: [string, string][];
  entries: LogEntry[];
  above: (level: "info" | "warn") => [string, string][];
} {
  const lines: [string, string][] = [];
  const entries: LogEntry[] = [];
  const log =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push([level, message]);
      entries.push({ level, message, fields });
    };
  const order = ["debug", "info", "warn", "error"];
  return {
    lines,
    entries,
    above: (level) => lines.filter(([l]) => order.indexOf(l) >= order.indexOf(level)),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function start(options: Partial<ReflectorOptions<Obj>> = {}, lw = new ScriptedListerWatcher()) {
  const store = new RecordingStore();
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const logger = recordingLogger();
  const reflector = new Reflector<Obj>({
    listerWatcher: lw,
    store,
    clock,
    logger,
    random: () => 0,
    watchErrorHandler: (err) => errors.push(err),
    ...options,
  });
  const controller = new AbortController();
  const done = reflector.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await done;
  };
  stops.push(stop);
  return { lw, store, clock, errors, logger, reflector, controller, done, stop };
}

type Started = ReturnType<typeof start>;

/** Waits for the reflector's backoff sleep and lets it elapse; returns its length. */
async function elapseBackoff(r: Started): Promise<number> {
  await r.clock.waitForTimers(1);
  const delay = (r.clock.nextTimerAt() ?? 0) - r.clock.now();
  r.clock.advance(delay);
  return delay;
}

describe("Reflector (scripted ListerWatcher)", () => {
  it("asks for a watch timeout in [min, 2×min) seconds, at least 1 s", async () => {
    const slow = start({ random: () => 0.999 });
    await until(() => slow.lw.watches.length === 1, "the watch");
    expect(slow.lw.watchAt(0).options.timeoutSeconds).toBe(599);
    const short = start({ minWatchTimeoutMs: 400 });
    await until(() => short.lw.watches.length === 1, "the watch");
    expect(short.lw.watchAt(0).options.timeoutSeconds).toBe(1);
    expect(short.lw.watchAt(0).watchOptions).toEqual({});
    const grace = start({ idleGraceMs: 1_500 });
    await until(() => grace.lw.watches.length === 1, "the watch");
    expect(grace.lw.watchAt(0).watchOptions).toEqual({ idleGraceMs: 1_500 });
  });

  it("lists at RV '' at once when the first list hits a too-large resourceVersion", async () => {
    const lw = new ScriptedListerWatcher();
    lw.listResponses.push(newTooLargeResourceVersion("5", "3", 1), page([obj("a", "2")], "3"));
    const r = start({}, lw);
    await until(() => lw.watches.length === 1, "the watch");
    expect(lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "", limit: 500 },
    ]);
    expect(r.store.calls).toEqual([["replace", "a", "3"]]);
    expect(r.errors).toEqual([]);
  });

  it("keeps paginating relists at a specific RV once a list at RV 0 came back in pages", async () => {
    const lw = new ScriptedListerWatcher();
    lw.listResponses.push(page([obj("a", "1")], "5", "t"), page([obj("b", "2")], "5"));
    const r = start({}, lw);
    await until(() => lw.watches.length === 1, "the watch");
    lw.watchAt(0).error(newResourceExpired("too old resource version: 5 (9)").status);
    await until(() => r.errors.length === 1, "the 410");
    await elapseBackoff(r);
    await until(() => lw.watches.length === 2, "the watch after the relist");
    expect(lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { limit: 500, continue: "t" },
      { resourceVersion: "5", limit: 500 },
    ]);
  });

  it("does not propagate RVs of the synthetic ADDED events of a watch started at ''", async () => {
    const lw = new ScriptedListerWatcher();
    lw.listResponses.push(page([], undefined));
    const r = start({}, lw);
    await until(() => lw.watches.length === 1, "the watch");
    expect(r.reflector.lastSyncResourceVersion).toBe("");
    expect(lw.watchAt(0).options.resourceVersion).toBe("");
    lw.watchAt(0).emit("ADDED", obj("a", "5")).emit("ADDED", obj("b", "3"));
    await until(() => r.store.calls.length === 3, "the synthetic adds");
    expect(r.reflector.lastSyncResourceVersion).toBe("");
    lw.watchAt(0).emit("MODIFIED", obj("a", "9")).emit("ADDED", obj("c", "10"));
    await until(() => r.store.calls.length === 5, "the live events");
    expect(r.reflector.lastSyncResourceVersion).toBe("10");
    expect(r.store.calls.slice(1)).toEqual([
      ["add", "a", "5"],
      ["add", "b", "3"],
      ["update", "a", "9"],
      ["add", "c", "10"],
    ]);
  });

  it("passes bookmarks to the store and advances the RV; works with stores without bookmark()", async () => {
    const r = start();
    await until(() => r.lw.watches.length === 1, "the watch");
    r.lw.watchAt(0).emit("BOOKMARK", bookmark("150")).emit("DELETED", obj("x", "151"));
    await until(() => r.store.calls.length === 3, "the events");
    expect(r.store.calls).toEqual([
      ["replace", "", "100"],
      ["bookmark", "150"],
      ["delete", "x", "151"],
    ]);
    expect(r.reflector.lastSyncResourceVersion).toBe("151");

    const plain: ReflectorStore<Obj> = {
      add: () => undefined,
      update: () => undefined,
      delete: () => undefined,
      replace: () => undefined,
      resync: () => undefined,
    };
    const lw = new ScriptedListerWatcher();
    const reflector = new Reflector<Obj>({
      listerWatcher: lw,
      store: plain,
      clock: new FakeClock(),
    });
    const controller = new AbortController();
    const done = reflector.run(controller.signal);
    stops.push(async () => {
      controller.abort();
      await done;
    });
    await until(() => lw.watches.length === 1, "the watch");
    lw.watchAt(0).emit("BOOKMARK", bookmark("120"));
    await until(() => reflector.lastSyncResourceVersion === "120", "the bookmark RV");
  });

  it("drops events of another kind when expectedKind is set", async () => {
    const r = start({ expectedKind: "Thing", name: "things" });
    await until(() => r.lw.watches.length === 1, "the watch");
    r.lw
      .watchAt(0)
      .emit("ADDED", obj("s", "101", "Secret"))
      .emit("ADDED", obj("t", "102"));
    await until(() => r.store.calls.length === 2, "the matching event");
    expect(r.store.calls[1]).toEqual(["add", "t", "102"]);
    expect(r.logger.lines).toContainEqual([
      "error",
      "things: expected kind Thing, but a watch event object had kind Secret; dropped",
    ]);
    expect(r.reflector.lastSyncResourceVersion).toBe("102");
  });

  it("logs and skips a store.add that throws, and goes on", async () => {
    const r = start();
    r.store.failOn.add("add");
    await until(() => r.lw.watches.length === 1, "the watch");
    r.lw.watchAt(0).emit("ADDED", obj("a", "101")).emit("MODIFIED", obj("b", "102"));
    await until(() => r.store.calls.length === 3, "both events");
    expect(r.logger.lines.filter(([level]) => level === "error")).toHaveLength(1);
    expect(r.reflector.lastSyncResourceVersion).toBe("102");
    expect(r.errors).toEqual([]);
  });

  it("reports a throwing store.replace and relists after the backoff", async () => {
    const r = start();
    r.store.failOn.add("replace");
    await until(() => r.errors.length === 1, "the replace failure");
    expect(String(r.errors[0])).toContain("replace failed");
    expect(r.reflector.hasSynced).toBe(false);
    expect(r.lw.watches).toHaveLength(0);
    r.store.failOn.clear();
    expect(await elapseBackoff(r)).toBe(800);
    await until(() => r.lw.watches.length === 1, "the watch");
    expect(r.reflector.hasSynced).toBe(true);
    expect(r.lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "0", limit: 500 },
    ]);
  });

  it("resyncs every resyncPeriodMs while watching, when shouldResync allows", async () => {
    let allow = true;
    const r = start({ resyncPeriodMs: 1_000, shouldResync: () => allow });
    await until(() => r.lw.watches.length === 1, "the watch");
    await r.clock.waitForTimers(1);
    r.clock.advance(1_000);
    expect(r.store.calls.filter(([op]) => op === "resync")).toHaveLength(1);
    allow = false;
    r.clock.advance(1_000);
    expect(r.store.calls.filter(([op]) => op === "resync")).toHaveLength(1);
    allow = true;
    r.clock.advance(1_000);
    expect(r.store.calls.filter(([op]) => op === "resync")).toHaveLength(2);
    expect(r.clock.pendingTimers()).toBe(1);
  });

  it("ends the watch, reports, and relists when store.resync throws", async () => {
    const r = start({ resyncPeriodMs: 1_000 });
    await until(() => r.lw.watches.length === 1, "the watch");
    r.store.failOn.add("resync");
    await r.clock.waitForTimers(1);
    r.clock.advance(1_000);
    await until(() => r.errors.length === 1, "the resync failure");
    expect(String(r.errors[0])).toContain("resync failed");
    expect(r.lw.watchAt(0).closed).toBe(true);
    r.store.failOn.clear();
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 2, "the watch after the relist");
    expect(r.lw.lists).toHaveLength(2);
  });

  it("backs off and re-watches without relisting after a refused connection or a 429", async () => {
    const r = start();
    await until(() => r.lw.watches.length === 1, "the watch");
    r.lw.watchAt(0).emit("ADDED", obj("a", "105"));
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
    });
    r.lw.watchAt(0).fail(new TransportError("GET", "http://x/api/v1/things", refused));
    await until(() => r.errors.length === 1, "the refused connection");
    expect(await elapseBackoff(r)).toBe(800);
    await until(() => r.lw.watches.length === 2, "the second watch");
    expect(r.lw.watchAt(1).options.resourceVersion).toBe("105");
    r.lw.watchAt(1).fail(newTooManyRequests("slow down", 1));
    await until(() => r.errors.length === 2, "the 429");
    expect(await elapseBackoff(r)).toBe(1_600);
    await until(() => r.lw.watches.length === 3, "the third watch");
    expect(r.lw.watchAt(2).options.resourceVersion).toBe("105");
    expect(r.lw.lists).toHaveLength(1);
    expect(r.reflector.lastError?.error).toBe(r.errors[1]);
  });

  it("relists after a broken connection or an internal error on the watch", async () => {
    const r = start();
    await until(() => r.lw.watches.length === 1, "the watch");
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    r.lw.watchAt(0).fail(new TransportError("GET", "http://x/api/v1/things", reset));
    await until(() => r.errors.length === 1, "the broken connection");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 2, "the watch after the relist");
    r.lw.watchAt(1).error(newInternalError("etcd is sad").status);
    await until(() => r.errors.length === 2, "the internal error");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 3, "the watch after the second relist");
    expect(r.lw.lists).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "100" },
      { resourceVersion: "100" },
    ]);
  });

  it("treats a watch ending within a second without events as very short (relist), a longer one as normal", async () => {
    const r = start();
    await until(() => r.lw.watches.length === 1, "the watch");
    r.clock.advance(999);
    r.lw.watchAt(0).end();
    await until(() => r.errors.length === 1, "the very short watch");
    expect(r.errors[0]).toBeInstanceOf(VeryShortWatchError);
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 2, "the watch after the relist");
    expect(r.lw.lists).toHaveLength(2);
    r.clock.advance(1_000);
    r.lw.watchAt(1).end();
    await until(() => r.lw.watches.length === 3, "the re-watch");
    expect(r.lw.lists).toHaveLength(2);
    expect(r.errors).toHaveLength(1);
  });

  it("survives a throwing watch error handler, which replaces the default logging", async () => {
    const lw = new ScriptedListerWatcher();
    lw.listResponses.push(newInternalError("first"));
    const r = start(
      {
        watchErrorHandler: () => {
          throw new Error("handler bug");
        },
      },
      lw,
    );
    await until(() => r.logger.above("info").length === 1, "the handler failure log");
    expect(r.logger.above("info")).toEqual([["error", "reflector: the watch error handler threw"]]);
    await elapseBackoff(r);
    await until(() => lw.watches.length === 1, "recovery");
  });

  it("fails a Table list loudly and retries it; drops Table watch events with an error", async () => {
    const lw = new ScriptedListerWatcher();
    const table = { ...page([], "100"), apiVersion: "meta.k8s.io/v1", kind: "Table" };
    lw.listResponses.push(table);
    const r = start({ name: "/v1/things" }, lw);
    await until(() => r.errors.length === 1, "the unsupported list");
    expect(r.errors[0]).toBeInstanceOf(UnsupportedListKindError);
    expect(String(r.errors[0])).toContain("unsupported list gvk");
    expect(r.store.calls).toEqual([]);
    expect(r.reflector.hasSynced).toBe(false);
    expect(await elapseBackoff(r)).toBe(800);
    await until(() => lw.watches.length === 1, "the watch after a proper list");
    const row = {
      apiVersion: "meta.k8s.io/v1",
      kind: "Table",
      metadata: { resourceVersion: "130" },
    };
    lw.watchAt(0)
      .emit("ADDED", row as unknown as Obj)
      .emit("ADDED", obj("a", "131"));
    await until(() => r.store.calls.length === 2, "the object after the Table");
    expect(r.store.calls[1]).toEqual(["add", "a", "131"]);
    expect(r.logger.lines.filter(([level]) => level === "error")).toEqual([
      [
        "error",
        "/v1/things: dropped a watch event carrying a meta.k8s.io/v1 Table: a reflector needs the objects themselves (does the ListerWatcher's Accept header ask for a Table?)",
      ],
    ]);
  });

  it("fails a list of another kind than the expected one", async () => {
    const lw = new ScriptedListerWatcher();
    lw.listResponses.push({ ...page([], "100"), apiVersion: "v1", kind: "SecretList" });
    lw.fallbackPage = { ...page([], "101"), apiVersion: "v1", kind: "ThingList" };
    const r = start({ expectedKind: "Thing" }, lw);
    await until(() => r.errors.length === 1, "the unsupported list");
    expect((r.errors[0] as UnsupportedListKindError).kind).toBe("SecretList");
    await elapseBackoff(r);
    await until(() => lw.watches.length === 1, "the watch");
    expect(r.store.calls).toEqual([["replace", "", "101"]]);
  });

  it("stops when the signal aborts, leaving no timers; refuses a concurrent run", async () => {
    const r = start();
    await until(() => r.lw.watches.length === 1, "the watch");
    await expect(r.reflector.run(new AbortController().signal)).rejects.toThrow(
      "already in progress",
    );
    expect(r.reflector.running).toBe(true);
    await r.stop();
    expect(r.reflector.running).toBe(false);
    expect(r.clock.pendingTimers()).toBe(0);

    const failing = new ScriptedListerWatcher();
    failing.listResponses.push(newInternalError("down"));
    const b = start({}, failing);
    await b.clock.waitForTimers(1);
    await b.stop();
    expect(b.clock.pendingTimers()).toBe(0);

    const aborted = new AbortController();
    aborted.abort();
    const lw = new ScriptedListerWatcher();
    await new Reflector<Obj>({ listerWatcher: lw, store: new RecordingStore() }).run(
      aborted.signal,
    );
    expect(lw.lists).toEqual([]);
  });

  it("rejects invalid options", () => {
    const base = { listerWatcher: new ScriptedListerWatcher(), store: new RecordingStore() };
    expect(() => new Reflector<Obj>({ ...base, resyncPeriodMs: -1 })).toThrow(RangeError);
    expect(() => new Reflector<Obj>({ ...base, minWatchTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => new Reflector<Obj>({ ...base, watchListEndTimeoutMs: Infinity })).toThrow(
      RangeError,
    );
    expect(() => new Reflector<Obj>({ ...base, pageSize: 2.5 })).toThrow(RangeError);
    expect(() => new Reflector<Obj>({ ...base, idleGraceMs: -3 })).toThrow(RangeError);
    expect(new Reflector<Obj>({ ...base, expectedKind: "Pod" }).name).toBe("Pod");
  });
});

describe("Reflector WatchList (scripted ListerWatcher)", () => {
  it("buffers initial events (deletes included), ignores other bookmarks, replaces at the end bookmark", async () => {
    const r = start({ useWatchList: true });
    await until(() => r.lw.watches.length === 1, "the WatchList");
    expect(r.lw.watchAt(0).options).toEqual({
      resourceVersion: "",
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    r.lw
      .watchAt(0)
      .emit("ADDED", obj("a", "3"))
      .emit("ADDED", obj("b", "4"))
      .emit("BOOKMARK", bookmark("6"))
      .emit("DELETED", obj("a", "7"))
      .emit("ADDED", obj("c", "5"))
      .emit("BOOKMARK", bookmark("8", true))
      .emit("MODIFIED", obj("c", "9"));
    await until(() => r.store.calls.length === 2, "the replace and the live event");
    expect(r.store.calls).toEqual([
      ["replace", "b,c", "8"],
      ["update", "c", "9"],
    ]);
    expect(r.reflector.lastSyncResourceVersion).toBe("9");
    expect(r.lw.lists).toEqual([]);
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it("falls back to a list at RV '' after 410 on a WatchList at RV '', and at RV 0 after an error answer", async () => {
    const expired = start({ useWatchList: true });
    await until(() => expired.lw.watches.length === 1, "the WatchList");
    expired.lw.watchAt(0).emit("ADDED", obj("a", "3")).error(newResourceExpired("gone").status);
    await until(() => expired.lw.watches.length === 2, "the watch after the fallback");
    expect(expired.lw.lists).toEqual([{ resourceVersion: "", limit: 500 }]);
    expect(expired.store.calls).toEqual([["replace", "", "100"]]);

    const rejected = start({ useWatchList: true });
    await until(() => rejected.lw.watches.length === 1, "the WatchList");
    rejected.lw.watchAt(0).fail(newInternalError("no WatchList here"));
    await until(() => rejected.lw.watches.length === 2, "the watch after the fallback");
    expect(rejected.lw.lists).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(rejected.lw.watchAt(0).closed).toBe(true);
  });

  it("retries the WatchList after the backoff, not a list, when it gets a 429 or its stream ends before the end bookmark", async () => {
    const r = start({ useWatchList: true });
    await until(() => r.lw.watches.length === 1, "the WatchList");
    r.lw.watchAt(0).fail(newTooManyRequests("slow down", 1));
    await until(() => r.errors.length === 1, "the 429");
    expect(await elapseBackoff(r)).toBe(800);
    await until(() => r.lw.watches.length === 2, "the second WatchList");
    r.clock.advance(2_000);
    r.lw.watchAt(1).emit("ADDED", obj("a", "3")).end();
    await until(() => r.errors.length === 2, "the incomplete stream");
    expect(r.errors[1]).toBeInstanceOf(WatchListIncompleteError);
    expect((r.errors[1] as WatchListIncompleteError).reason).toBe("ended");
    expect(r.lw.watchAt(1).closed).toBe(true);
    expect(await elapseBackoff(r)).toBe(1_600);
    await until(() => r.lw.watches.length === 3, "the third WatchList");
    expect(r.lw.watchAt(2).options).toMatchObject({ sendInitialEvents: true, resourceVersion: "" });
    r.lw.watchAt(2).emit("ADDED", obj("b", "4")).emit("BOOKMARK", bookmark("5", true));
    await until(() => r.store.calls.length === 1, "the replace");
    expect(r.store.calls).toEqual([["replace", "b", "5"]]);
    expect(r.lw.lists).toEqual([]);
  });

  it("cancels the WatchList's backoff and end timeout when stopped", async () => {
    const r = start({ useWatchList: true });
    await until(() => r.lw.watches.length === 1, "the WatchList");
    expect(r.clock.pendingTimers()).toBe(1);
    r.lw.watchAt(0).fail(newTooManyRequests("slow down", 1));
    await until(() => r.errors.length === 1, "the 429");
    await r.clock.waitForTimers(1);
    await r.stop();
    expect(r.clock.pendingTimers()).toBe(0);
    expect(r.reflector.running).toBe(false);
  });

  it("retries a WatchList at a specific RV at once at RV '' after 410; a very short one falls back to a list", async () => {
    const r = start({ useWatchList: true });
    await until(() => r.lw.watches.length === 1, "the WatchList");
    r.lw.watchAt(0).emit("BOOKMARK", bookmark("50", true));
    await until(() => r.lw.watches.length === 1 && r.store.calls.length === 1, "the sync");
    r.lw.watchAt(0).error(newResourceExpired("too old").status);
    await until(() => r.errors.length === 1, "the 410 on the watch");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 2, "the second WatchList");
    expect(r.lw.watchAt(1).options.resourceVersion).toBe("50");
    r.lw.watchAt(1).error(newResourceExpired("too old").status);
    await until(() => r.lw.watches.length === 3, "the WatchList at RV ''");
    expect(r.lw.watchAt(2).options.resourceVersion).toBe("");
    expect(r.clock.pendingTimers()).toBe(1); // the end-bookmark timeout only: no backoff
    r.lw.watchAt(2).end();
    await until(() => r.lw.watches.length === 4, "the watch after the fallback");
    expect(r.errors[2]).toBeInstanceOf(VeryShortWatchError);
    expect(r.lw.lists).toEqual([{ resourceVersion: "", limit: 500 }]);
  });

  it("transforms each initial event as it arrives, and every later object once", async () => {
    const transformed: string[] = [];
    const lw = new ScriptedListerWatcher();
    const store = Object.assign(new RecordingStore(), {
      transform: (o: Obj): Obj => {
        transformed.push(`${o.metadata.name ?? ""}@${o.metadata.resourceVersion ?? ""}`);
        return { ...o, metadata: { ...o.metadata, annotations: { t: "1" } } };
      },
    });
    const kept: Obj[] = [];
    const replace = store.replace.bind(store);
    store.replace = (list, rv) => {
      kept.push(...list);
      replace(list, rv);
    };
    const controller = new AbortController();
    const reflector = new Reflector<Obj>({
      listerWatcher: lw,
      store,
      clock: new FakeClock(),
      useWatchList: true,
    });
    const done = reflector.run(controller.signal);
    stops.push(async () => {
      controller.abort();
      await done;
    });
    await until(() => lw.watches.length === 1, "the WatchList");
    lw.watchAt(0).emit("ADDED", obj("a", "3")).emit("ADDED", obj("b", "4"));
    await until(() => transformed.length === 2, "the initial events transformed");
    expect(store.calls).toEqual([]);
    lw.watchAt(0).emit("BOOKMARK", bookmark("5", true)).emit("MODIFIED", obj("a", "6"));
    await until(() => store.calls.length === 2, "the replace and the update");
    expect(transformed).toEqual(["a@3", "b@4", "a@6"]);
    expect(kept.map((o) => o.metadata.annotations)).toEqual([{ t: "1" }, { t: "1" }]);
  });

  it("times out without the end bookmark, and uses WatchList again from the last RV on relist", async () => {
    const r = start({ useWatchList: true, watchListEndTimeoutMs: 5_000 });
    await until(() => r.lw.watches.length === 1, "the WatchList");
    r.lw.watchAt(0).emit("ADDED", obj("a", "3"));
    await r.clock.waitForTimers(1);
    r.clock.advance(5_000);
    await until(() => r.lw.watches.length === 2, "the watch after the fallback");
    expect(r.errors[0]).toBeInstanceOf(WatchListIncompleteError);
    expect((r.errors[0] as WatchListIncompleteError).reason).toBe("timeout");
    expect(r.lw.watchAt(0).closed).toBe(true);
    expect(r.store.calls).toEqual([["replace", "", "100"]]);

    r.lw.watchAt(1).error(newResourceExpired("too old").status);
    await until(() => r.errors.length === 2, "the 410");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 3, "the second WatchList");
    expect(r.lw.watchAt(2).options).toMatchObject({
      resourceVersion: "100",
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
    });
    r.lw.watchAt(2).emit("BOOKMARK", bookmark("120", true));
    await until(() => r.store.calls.length === 2, "the second replace");
    expect(r.store.calls[1]).toEqual(["replace", "", "120"]);
    expect(r.lw.lists).toHaveLength(1);
  });
});

describe("Reflector default logging (no watch error handler)", () => {
  const refused = (): TransportError =>
    new TransportError(
      "GET",
      "http://x/api/v1/things",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    );

  it("logs one info line per reconnect, naming the resource and what happens next; stacks only at debug", async () => {
    const r = start({ name: "/v1/things", watchErrorHandler: undefined });
    await until(() => r.lw.watches.length === 1, "the watch");
    r.lw.watchAt(0).emit("ADDED", obj("a", "105"));
    r.clock.advance(42_000);
    r.lw.watchAt(0).end();
    await until(() => r.lw.watches.length === 2, "the re-watch");
    r.lw.watchAt(1).fail(refused());
    await until(() => r.logger.above("info").length === 2, "the refused line");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 3, "the watch after the backoff");
    r.lw.watchAt(2).emit("MODIFIED", obj("a", "106"));
    r.lw.watchAt(2).error(newResourceExpired("too old resource version: 106 (300)").status);
    await until(() => r.logger.above("info").length === 3, "the 410 line");
    await elapseBackoff(r);
    await until(() => r.lw.watches.length === 4, "the watch after the relist");
    r.clock.advance(600_000);
    r.lw.watchAt(3).emit("BOOKMARK", bookmark("400")).end();
    await until(() => r.lw.watches.length === 5, "the watch after the timeout");
    expect(r.logger.above("info")).toEqual([
      ["info", "watch of /v1/things closed by the server after 42.0 s; re-watching from 105"],
      [
        "info",
        "watch of /v1/things failed: GET http://x/api/v1/things: connect ECONNREFUSED 127.0.0.1:1; re-watching from 105 in 0.8 s",
      ],
      [
        "info",
        "watch of /v1/things expired (410): too old resource version: 106 (300); relisting from 106 in 1.6 s",
      ],
    ]);
    expect(r.logger.lines).toContainEqual([
      "debug",
      "watch of /v1/things reached its timeout; re-watching from 400",
    ]);
    for (const entry of r.logger.entries) {
      const error = entry.fields?.["error"];
      if (error instanceof Error) expect(entry.level).toBe("debug");
    }
    expect(r.logger.entries.filter((e) => e.fields?.["error"] instanceof Error)).toHaveLength(2);
  });

  it("stays at one info line while a server is briefly down, warns with the backoff when failures repeat, and reports recovery", async () => {
    const lw = new ScriptedListerWatcher();
    for (let i = 0; i < 6; i++) lw.listResponses.push(refused());
    const r = start({ name: "/v1/things", watchErrorHandler: undefined }, lw);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) delays.push(await elapseBackoff(r));
    expect(r.logger.above("info")).toEqual([
      [
        "info",
        "list of /v1/things failed: GET http://x/api/v1/things: connect ECONNREFUSED 127.0.0.1:1; listing in 0.8 s",
      ],
    ]);
    delays.push(await elapseBackoff(r));
    delays.push(await elapseBackoff(r));
    await until(() => lw.watches.length === 1, "the watch after recovery");
    expect(delays).toEqual([800, 1_600, 3_200, 6_400, 12_800, 25_600]);
    expect(r.logger.above("info").slice(1)).toEqual([
      [
        "warn",
        "list of /v1/things failed: GET http://x/api/v1/things: connect ECONNREFUSED 127.0.0.1:1 (5 failures in a row); listing in 12.8 s",
      ],
      [
        "warn",
        "list of /v1/things failed: GET http://x/api/v1/things: connect ECONNREFUSED 127.0.0.1:1 (6 failures in a row); listing in 25.6 s",
      ],
      ["info", "list and watch of /v1/things recovered after 6 failures"],
    ]);
  });

  it("warns at once about errors that need a human, and logs store failures and unusable lists as errors", async () => {
    const lw = new ScriptedListerWatcher();
    const forbidden = new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'things is forbidden: User "bob" cannot list resource "things"',
      reason: "Forbidden",
      code: 403,
    });
    lw.listResponses.push(forbidden, {
      ...page([], "1"),
      apiVersion: "meta.k8s.io/v1",
      kind: "Table",
    });
    const r = start({ name: "/v1/things", watchErrorHandler: undefined }, lw);
    await until(() => r.logger.above("warn").length === 1, "the 403 warning");
    await elapseBackoff(r);
    await until(() => r.logger.above("warn").length === 2, "the Table error");
    r.store.failOn.add("replace");
    await elapseBackoff(r);
    await until(() => r.logger.above("warn").length === 3, "the store error");
    expect(r.logger.above("warn")).toEqual([
      [
        "warn",
        'list of /v1/things failed: things is forbidden: User "bob" cannot list resource "things"; listing in 0.8 s',
      ],
      [
        "error",
        "list of /v1/things failed: /v1/things: unsupported list gvk: the list answer is a meta.k8s.io/v1 Table, expected a list of objects (does the ListerWatcher's Accept header ask for a Table?); listing in 1.6 s",
      ],
      ["error", "store replace of /v1/things failed: replace failed; listing in 3.2 s"],
    ]);
  });
});
