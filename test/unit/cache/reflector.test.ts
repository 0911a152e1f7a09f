import { afterEach, describe, expect, it } from "vitest";
import type { ListerWatcher, ListPage, WatchStream } from "../../../src/cache/lister-watcher.js";
import type { ReflectorOptions } from "../../../src/cache/reflector.js";
import { INITIAL_EVENTS_END_ANNOTATION, Reflector } from "../../../src/cache/reflector.js";
import {
  VeryShortWatchError,
  WatchListIncompleteError,
} from "../../../src/cache/reflector-errors.js";
import type { ReflectorStore } from "../../../src/cache/reflector-store.js";
import { FakeClock } from "../../../src/core/clock.js";
import type { Logger } from "../../../src/core/logger.js";
import {
  newInternalError,
  newResourceExpired,
  newTooLargeResourceVersion,
  newTooManyRequests,
} from "../../../src/core/status.js";
import type { Status } from "../../../src/core/status.js";
import type { ListOptions, WatchEvent, WatchOptions } from "../../../src/rest/index.js";
import { TransportError } from "../../../src/rest/index.js";

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

function recordingLogger(): Logger & { lines: [string, string][] } {
  const lines: [string, string][] = [];
  return {
    lines,
    debug: (m) => lines.push(["debug", m]),
    info: (m) => lines.push(["info", m]),
    warn: (m) => lines.push(["warn", m]),
    error: (m) => lines.push(["error", m]),
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

  it("survives a throwing watch error handler; the default handler logs 410 at debug, others at warn", async () => {
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
    await until(() => r.logger.lines.length === 1, "the handler failure log");
    expect(r.logger.lines[0]).toEqual(["error", "reflector: the watch error handler threw"]);
    await elapseBackoff(r);
    await until(() => lw.watches.length === 1, "recovery");

    const lw2 = new ScriptedListerWatcher();
    lw2.listResponses.push(newInternalError("boom"));
    const d = start({ watchErrorHandler: undefined }, lw2);
    await until(() => d.logger.lines.length === 1, "the warning");
    expect(d.logger.lines[0]).toEqual([
      "warn",
      "reflector: list/watch failed: Internal error occurred: boom",
    ]);
    await elapseBackoff(d);
    await until(() => lw2.watches.length === 1, "the watch");
    lw2.watchAt(0).error(newResourceExpired("too old").status);
    await until(() => d.logger.lines.length === 2, "the debug line");
    expect(d.logger.lines[1]).toEqual(["debug", "reflector: watch closed: too old"]);
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

  it("falls back to a list at RV '' after 410 on the WatchList, and at RV 0 when the stream just ends", async () => {
    const expired = start({ useWatchList: true });
    await until(() => expired.lw.watches.length === 1, "the WatchList");
    expired.lw.watchAt(0).emit("ADDED", obj("a", "3")).error(newResourceExpired("gone").status);
    await until(() => expired.lw.watches.length === 2, "the watch after the fallback");
    expect(expired.lw.lists).toEqual([{ resourceVersion: "", limit: 500 }]);
    expect(expired.store.calls).toEqual([["replace", "", "100"]]);

    const ended = start({ useWatchList: true });
    await until(() => ended.lw.watches.length === 1, "the WatchList");
    ended.lw.watchAt(0).emit("ADDED", obj("a", "3")).end();
    await until(() => ended.lw.watches.length === 2, "the watch after the fallback");
    expect(ended.errors[0]).toBeInstanceOf(WatchListIncompleteError);
    expect((ended.errors[0] as WatchListIncompleteError).reason).toBe("ended");
    expect(ended.lw.lists).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(ended.lw.watchAt(0).closed).toBe(true);
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
