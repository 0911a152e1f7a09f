import { WatchFanOut } from "./watch-fan-out.js";

/**
 * What the registry and the server need of a live watch stream (`watch-stream.ts`
 * implements it): its unsent bytes, and the ways it ends.
 */
export interface RegisteredWatch {
  /** Bytes written but not yet taken by the socket. */
  readonly backlogBytes: number;
  /** Ends the watch as a slow reader (an ERROR event naming why, then the connection closes). */
  dropSlowReader(): void;
  /** Ends the watch cleanly (a normal end of the chunked body). */
  end(): void;
  /** Stops sending anything while keeping the connection open: a half-open watch. */
  stall(): void;
  /** Cuts the connection. */
  destroy(): void;
}

/**
 * The live watch streams of a server (for faults, shutdown) and the budget of what they may
 * hold unsent all together.
 *
 * Each stream is bounded on its own (`maxWatchBacklogBytes`), but many watchers that never
 * read would each stay just under that bound. A stream whose socket stopped taking data
 * reports itself as backlogged; while the backlogs of such streams add up to more than the
 * total budget, the most backlogged one is dropped as a slow reader. kube-apiserver's cacher
 * likewise terminates the watchers it cannot deliver to (`Cacher.dispatchEvent` in
 * `staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go`), so slow readers cannot hold
 * the server's memory.
 */
export class WatchRegistry {
  readonly streams = new Set<RegisteredWatch>();
  /** Delivers storage changes to the streams that follow them, and batches their writes. */
  readonly fanOut = new WatchFanOut();
  readonly #backlogged = new Set<RegisteredWatch>();

  readonly #maxTotalBacklogBytes: number;

  /** `maxTotalBacklogBytes`: the budget of unsent bytes of all backlogged streams together. */
  constructor(maxTotalBacklogBytes: number) {
    this.#maxTotalBacklogBytes = maxTotalBacklogBytes;
  }

  add(stream: RegisteredWatch): void {
    this.streams.add(stream);
  }

  remove(stream: RegisteredWatch): void {
    this.streams.delete(stream);
    this.#backlogged.delete(stream);
  }

  /** A stream's socket stopped taking data: count its backlog and enforce the total budget. */
  reportBacklog(stream: RegisteredWatch): void {
    if (!this.streams.has(stream)) return;
    this.#backlogged.add(stream);
    let total = 0;
    for (const s of this.#backlogged) total += s.backlogBytes;
    while (total > this.#maxTotalBacklogBytes && this.#backlogged.size > 0) {
      let slowest: RegisteredWatch | undefined;
      for (const s of this.#backlogged) {
        if (!slowest || s.backlogBytes > slowest.backlogBytes) slowest = s;
      }
      const dropped = slowest as RegisteredWatch;
      total -= dropped.backlogBytes;
      this.#backlogged.delete(dropped);
      dropped.dropSlowReader();
    }
  }

  /** A backlogged stream's socket drained: it no longer counts against the budget. */
  reportDrained(stream: RegisteredWatch): void {
    this.#backlogged.delete(stream);
  }
}
