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
 * What a cooperative loop asks of its time slices: whether it should {@link yield} now, and
 * the yield itself. {@link EventLoopSlice} is the real one; a test may pass its own to
 * control where a loop pauses.
 */
export interface CooperativeSlice {
  /** Whether the loop should yield before going on. */
  readonly due: boolean;
  /** Lets other work run; the loop goes on once it resolves. */
  yield(): Promise<void>;
}

/**
 * The time a loop has held the event loop, on the injected clock: {@link EventLoopSlice.due}
 * after {@link EVENT_LOOP_SLICE_MS}, {@link EventLoopSlice.yield} to let the event loop run.
 * On a `FakeClock` time stands still, so a loop never yields unless the test moves the clock.
 */
export class EventLoopSlice implements CooperativeSlice {
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

/**
 * Runs `steps` (a generator that pauses with a bare `yield` at points where the work may be
 * interrupted) to completion, yielding to the event loop at a pause whenever `slice` is
 * {@link CooperativeSlice.due}; resolves with the generator's return value.
 *
 * A `signal` aborted while the loop is yielded (or before it starts) abandons the work: the
 * generator is closed (its `finally` blocks run), nothing after that pause runs, and the
 * promise rejects with `signal.reason`. Arms no timer of its own (only `slice`'s yields).
 */
export async function runSliced<R>(
  steps: Generator<void, R, void>,
  slice: CooperativeSlice,
  signal?: AbortSignal,
): Promise<R> {
  try {
    signal?.throwIfAborted();
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done === true) return step.value;
      if (slice.due) {
        await slice.yield();
        signal?.throwIfAborted();
      }
    }
  } finally {
    steps.return(undefined as R);
  }
}

/** Runs `steps` (see {@link runSliced}) to completion without pausing. */
export function runToCompletion<R>(steps: Generator<void, R, void>): R {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
  }
}
