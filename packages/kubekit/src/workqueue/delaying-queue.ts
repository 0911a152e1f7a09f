/**
 * The delaying queue: client-go's `delayingType`
 * (`staging/src/k8s.io/client-go/util/workqueue/delaying_queue.go`), a {@link Queue} whose
 * items can be added after a delay.
 */
import type { TimerHandle } from "../core/clock.js";
import type { CounterMetric } from "./metrics-provider.js";
import type { QueueOptions } from "./queue.js";
import { Queue } from "./queue.js";
import { WaitingHeap } from "./waiting-heap.js";

/**
 * A {@link Queue} with {@link addAfter}: an item is added once its delay has passed on the
 * queue's clock. Waiting items are held in a min-heap by ready time, one entry per item
 * (SameValueZero): adding an item that already waits keeps the EARLIER of the two ready
 * times. A waiting item does not count in {@link len} and is not de-duplicated against the
 * queue itself: once ready it is simply {@link add}ed.
 *
 * One clock timer is armed for the earliest ready time. On the real clock it keeps the
 * process alive while items wait (they are live work); shutting the queue down cancels it
 * and drops the waiting items, so a stopped queue never holds the process.
 */
export class DelayingQueue<T> extends Queue<T> {
  readonly #waiting = new WaitingHeap<T>();
  readonly #retries: CounterMetric | undefined;
  #timer: TimerHandle | undefined;
  /** The ready time the timer is armed for; `Infinity` when it is not armed. */
  #timerAt = Infinity;

  constructor(options: QueueOptions = {}) {
    super(options);
    const { name, metrics } = options;
    this.#retries =
      name !== undefined && name !== "" && metrics !== undefined
        ? metrics.newRetriesMetric(name)
        : undefined;
  }

  /**
   * Adds `item` once `ms` milliseconds have passed; at once (as {@link add}) when `ms` is 0,
   * negative or NaN. Ignored once the queue is shutting down; items still waiting at shutdown
   * are dropped. Counts one retry in the queue's metrics.
   */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown()) return;
    this.#retries?.inc();
    if (!(ms > 0)) {
      this.add(item);
      return;
    }
    this.#waiting.schedule(item, this.clock.now() + ms);
    this.#arm();
  }

  protected override onShutDown(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#waiting.clear();
  }

  /** Makes sure the timer fires at the earliest ready time (re-arming it when that moved earlier). */
  #arm(): void {
    const next = this.#waiting.nextReadyAt();
    if (next >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timerAt = next;
    this.#timer = this.clock.setTimer(next - this.clock.now(), () => this.#fire());
  }

  /** Adds every item whose ready time has come, then re-arms for the next one. */
  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.clock.now();
    while (this.#waiting.size > 0 && this.#waiting.nextReadyAt() <= now) {
      this.add(this.#waiting.pop());
    }
    if (this.#waiting.size > 0) this.#arm();
  }
}
