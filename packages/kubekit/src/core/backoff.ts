/**
 * Exponential backoff with jitter and a reset after a quiet period, as client-go's
 * reflector uses between ListAndWatch attempts (`wait.Backoff` with `DelayWithReset`).
 * Pure: it computes delays; callers wait them out on their {@link Clock}.
 */
import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";

/** Settings of a {@link BackoffPolicy}; durations in ms. */
export interface BackoffOptions {
  /** The first delay before jitter (default 800, client-go's reflector `defaultBackoffInit`). */
  readonly initialMs?: number;
  /** Multiplier applied to the delay after each step, >= 1 (default 2). */
  readonly factor?: number;
  /**
   * Random extra delay as a fraction of the delay: a step of base `d` waits
   * `d + random() × jitter × d` (default 1.0, so between `d` and `2d`); 0 disables it.
   */
  readonly jitter?: number;
  /** Upper bound of the delay before jitter (default 30 000). */
  readonly capMs?: number;
  /**
   * When more than this many ms pass between the end of one delay and the next call of
   * {@link BackoffPolicy.next} (the retried operation ran that long without failing), the
   * delay starts again from `initialMs` (default 120 000, client-go's 2 minutes).
   */
  readonly resetAfterMs?: number;
  /** Time source of the reset rule (default: the real clock). */
  readonly clock?: Clock;
  /** Random source in [0, 1) for the jitter (default `Math.random`); inject one for determinism. */
  readonly random?: () => number;
}

/** client-go's reflector backoff: 800 ms, factor 2, jitter 1.0, cap 30 s, reset after 2 min. */
export const REFLECTOR_BACKOFF_DEFAULTS = {
  initialMs: 800,
  factor: 2,
  jitter: 1,
  capMs: 30_000,
  resetAfterMs: 120_000,
} as const;

function checkNonNegative(name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`backoff ${name} must be a finite number >= 0, got ${value}`);
  }
}

/**
 * A stateful backoff: each {@link next} returns the delay to wait before the next attempt
 * and grows the following one (`initialMs`, `×factor` per step, capped at `capMs`, then
 * jittered). With the defaults the bases are 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30, … s
 * and the waits lie in [base, 2×base).
 *
 * Caveats: as in client-go the cap bounds the base, not the jittered wait, so a wait can
 * reach `(1 + jitter) × capMs`. The reset rule measures from the end of the previous delay
 * as computed (the moment `next()` was called plus the delay it returned), so it holds
 * when the caller actually waits the delay out. Not safe for concurrent use by unrelated
 * retry loops: give each loop its own policy.
 */
export class BackoffPolicy {
  readonly initialMs: number;
  readonly factor: number;
  readonly jitter: number;
  readonly capMs: number;
  readonly resetAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #baseMs: number;
  #previousEndMs: number | undefined;

  /** @throws {RangeError} for a negative or non-finite duration, a factor < 1, or capMs < initialMs. */
  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? REFLECTOR_BACKOFF_DEFAULTS.initialMs;
    this.factor = options.factor ?? REFLECTOR_BACKOFF_DEFAULTS.factor;
    this.jitter = options.jitter ?? REFLECTOR_BACKOFF_DEFAULTS.jitter;
    this.capMs = options.capMs ?? REFLECTOR_BACKOFF_DEFAULTS.capMs;
    this.resetAfterMs = options.resetAfterMs ?? REFLECTOR_BACKOFF_DEFAULTS.resetAfterMs;
    checkNonNegative("initialMs", this.initialMs);
    checkNonNegative("jitter", this.jitter);
    checkNonNegative("capMs", this.capMs);
    if (!(this.resetAfterMs >= 0)) {
      throw new RangeError(`backoff resetAfterMs must be >= 0, got ${this.resetAfterMs}`);
    }
    if (!(this.factor >= 1) || !Number.isFinite(this.factor)) {
      throw new RangeError(`backoff factor must be a finite number >= 1, got ${this.factor}`);
    }
    if (this.capMs < this.initialMs) {
      throw new RangeError(
        `backoff capMs (${this.capMs}) must not be smaller than initialMs (${this.initialMs})`,
      );
    }
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#baseMs = this.initialMs;
  }

  /**
   * The delay in ms to wait now, and one step of growth for the next call. Starts over from
   * `initialMs` first when more than `resetAfterMs` passed since the previous delay ended.
   */
  next(): number {
    const now = this.#clock.now();
    if (this.#previousEndMs !== undefined && now - this.#previousEndMs > this.resetAfterMs) {
      this.#baseMs = this.initialMs;
    }
    const base = this.#baseMs;
    this.#baseMs = Math.min(base * this.factor, this.capMs);
    const delay = base + this.#random() * this.jitter * base;
    this.#previousEndMs = now + delay;
    return delay;
  }

  /** Forgets the history: the next delay is based on `initialMs` again. */
  reset(): void {
    this.#baseMs = this.initialMs;
    this.#previousEndMs = undefined;
  }
}
