import { describe, expect, it, vi } from "vitest";
import {
  type ListerWatcher,
  type ListPage,
  type WatchStream,
  INITIAL_EVENTS_END_ANNOTATION,
  Reflector,
  type ReflectorStore,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import type { ListOptions, WatchEvent } from "../../../packages/kubekit/src/rest/index.js";

interface Obj {
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion: string;
    annotations?: Record<string, string>;
  };
}

const obj = (name: string, rv: string): Obj => ({
  kind: "Thing",
  metadata: { name, namespace: "ns", resourceVersion: rv },
});
const endBookmark = (rv: string): Obj => ({
  kind: "Thing",
  metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } },
});

/** A watch that hands its events out in the batches it was given, through `batches()` only. */
class BatchedWatch implements WatchStream<Obj> {
  readonly #batches: WatchEvent<Obj>[][];
  #wake: (() => void) | undefined;
  closed = false;

  constructor(batches: WatchEvent<Obj>[][], signal: AbortSignal | undefined) {
    this.#batches = batches;
    signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<Obj>> {
    throw new Error("the reflector must use batches()");
  }

  async *batches(): AsyncGenerator<readonly WatchEvent<Obj>[]> {
    for (const batch of this.#batches) yield batch;
    while (!this.closed) await new Promise<void>((resolve) => (this.#wake = resolve));
  }
}

describe("Reflector over a stream with batches()", () => {
  it("applies the events after a WatchList's end bookmark in the same batch, in order", async () => {
    const calls: string[] = [];
    const store: ReflectorStore<Obj> = {
      add: (o) => calls.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
      update: (o) => calls.push(`update ${o.metadata.name}@${o.metadata.resourceVersion}`),
      delete: (o) => calls.push(`delete ${o.metadata.name}@${o.metadata.resourceVersion}`),
      replace: (list, rv) =>
        calls.push(`replace [${list.map((o) => o.metadata.name).join(",")}]@${rv}`),
      resync: () => calls.push("resync"),
    };
    const watches: ListOptions[] = [];
    const lw: ListerWatcher<Obj> = {
      list: (): Promise<ListPage<Obj>> => Promise.reject(new Error("no list expected")),
      watch: (options, signal) => {
        watches.push(options);
        return new BatchedWatch(
          [
            [
              { type: "ADDED", object: obj("a", "3") },
              { type: "ADDED", object: obj("b", "4") },
            ],
            [
              { type: "BOOKMARK", object: endBookmark("5") },
              { type: "MODIFIED", object: obj("a", "6") },
              { type: "DELETED", object: obj("b", "7") },
            ],
            [{ type: "ADDED", object: obj("c", "8") }],
          ],
          signal,
        );
      },
    };
    const reflector = new Reflector<Obj>({
      listerWatcher: lw,
      store,
      useWatchList: true,
      clock: new FakeClock(0),
    });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await vi.waitFor(() => expect(calls).toHaveLength(4));
    expect(calls).toEqual(["replace [a,b]@5", "update a@6", "delete b@7", "add c@8"]);
    expect(reflector.lastSyncResourceVersion).toBe("8");
    expect(watches).toHaveLength(1);
    controller.abort();
    await running;
  });
});
