/**
 * Time slices for long synchronous loops: a loop that works through a backlog without I/O
 * (an informer handler's buffer, a controller worker's queue) yields to the event loop once
 * it has held it for a slice, so that timers, sockets and health probes keep being served.
 */
import type { Clock } from "./clock.js";

/**
 * How long a loop may hold the event loop before yielding, in ms. Small against the 50 ms a
 * responsive process allows a task, large against the cost of a yield (one `setImmediate`,
 * a few microseconds).
 */
export const EVENT_LOOP_SLICE_MS = 5;

/**
 * The time a loop has held the event loop, on the injected clock: {@link EventLoopSlice.due}
 * after {@link EVENT_LOOP_SLICE_MS}, {@link EventLoopSlice.yield} to let the event loop run.
 * On a `FakeClock` time stands still, so a loop never yields unless the test moves the clock.
 */
export class EventLoopSlice {
  readonly #clock: Clock;
  #startedAt: number;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#startedAt = clock.now();
  }

  /** Whether the slice is used up: the loop should {@link yield} before going on. */
  get due(): boolean {
    return this.#clock.now() - this.#startedAt >= EVENT_LOOP_SLICE_MS;
  }

  /** Starts a new slice (the loop has just been idle, e.g. waiting for work). */
  restart(): void {
    this.#startedAt = this.#clock.now();
  }

  /** Lets the event loop run ({@link yieldToEventLoop}), then starts a new slice. */
  async yield(): Promise<void> {
    await yieldToEventLoop();
    this.restart();
  }
}

/**
 * Resolves from a `setImmediate` callback: the event loop runs first (pending I/O, expired
 * timers). Arms no timer: nothing to cancel on stop.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
