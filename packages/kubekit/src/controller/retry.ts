/**
 * Retrying an operation that failed with a retriable error, typically a 409 Conflict of an
 * optimistic-concurrency write (client-go's `util/retry`: `RetryOnConflict`, `OnError`,
 * `DefaultRetry`, `DefaultBackoff`).
 */
import { BackoffPolicy } from "../core/backoff.js";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { isConflict } from "../core/status.js";

/**
 * How often and how long to retry (apimachinery's `wait.Backoff` without a cap): at most
 * `steps` attempts; between attempts a delay starting at `durationMs`, multiplied by `factor`
 * after each, plus a random `[0, jitter)` fraction of itself.
 */
export interface RetryBackoff {
  /** The number of attempts, an integer >= 1. */
  readonly steps: number;
  /** The delay before the second attempt, before jitter, in ms (>= 0). */
  readonly durationMs: number;
  /** Multiplier of the delay after each attempt (>= 1). */
  readonly factor: number;
  /** Random extra delay as a fraction of the delay (>= 0; 0.1 = up to 10 % more). */
  readonly jitter: number;
}

/**
 * client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart (jitter 0.1). For conflicts with
 * a writer expected to be quick, such as your own controller's other workers.
 */
export const DEFAULT_RETRY: RetryBackoff = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1,
  jitter: 0.1,
});

/**
 * client-go's `retry.DefaultBackoff`: 4 attempts, delays 10, 50, 250 ms (jitter 0.1). For
 * modifying an object that other controllers actively manage.
 */
export const DEFAULT_BACKOFF: RetryBackoff = Object.freeze({
  steps: 4,
  durationMs: 10,
  factor: 5,
  jitter: 0.1,
});

/** Options of {@link retryOnError} and {@link retryOnConflict}. */
export interface RetryOptions {
  /** Aborting it stops the retries: a pending delay rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
  /** Time source of the delays (default: the real clock). */
  readonly clock?: Clock;
  /** Random source in [0, 1) of the jitter (default `Math.random`). */
  readonly random?: () => number;
}

/**
 * Runs `fn` (passing the 0-based attempt number) until it succeeds, throws an error
 * `retriable` rejects, or `backoff.steps` attempts have failed; resolves with `fn`'s result
 * or rejects with its last error (client-go's `retry.OnError`). A delay from `backoff` is
 * waited out on the clock between attempts; aborting `options.signal` rejects with its
 * reason during a delay (an attempt in progress is not interrupted, `fn` should watch the
 * signal itself). `fn` must redo its reads on every attempt: retrying a write with the same
 * stale object fails the same way.
 *
 * @throws {RangeError} (as a rejection) when `backoff.steps` is not an integer >= 1 or
 *   another field is out of range.
 */
export async function retryOnError<R>(
  fn: (attempt: number) => R | Promise<R>,
  retriable: (err: unknown) => boolean,
  backoff: RetryBackoff = DEFAULT_RETRY,
  options: RetryOptions = {},
): Promise<R> {
  const { steps } = backoff;
  if (!Number.isInteger(steps) || steps < 1) {
    throw new RangeError(`backoff steps must be an integer >= 1, got ${steps}`);
  }
  const clock = options.clock ?? realClock;
  const delays = new BackoffPolicy({
    initialMs: backoff.durationMs,
    factor: backoff.factor,
    jitter: backoff.jitter,
    // wait.Backoff without a cap grows without bound; a finite cap is all BackoffPolicy takes.
    capMs: Number.MAX_VALUE,
    resetAfterMs: Number.POSITIVE_INFINITY,
    clock,
    ...(options.random !== undefined ? { random: options.random } : {}),
  });
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt + 1 >= steps || !retriable(err)) throw err;
    }
    await clock.sleep(delays.next(), options.signal);
  }
}

/**
 * {@link retryOnError} retrying only 409 Conflict errors (`isConflict`), with client-go's
 * {@link DEFAULT_RETRY} unless told otherwise (client-go's `retry.RetryOnConflict`). The usual
 * shape: on every attempt, read the latest object (from the API server, or from a cache
 * known to be current), modify it, and write it with its resourceVersion.
 */
export function retryOnConflict<R>(
  fn: (attempt: number) => R | Promise<R>,
  backoff: RetryBackoff = DEFAULT_RETRY,
  options: RetryOptions = {},
): Promise<R> {
  return retryOnError(fn, isConflict, backoff, options);
}
