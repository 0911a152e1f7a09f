/**
 * A token bucket rate limiter (client-go's flowcontrol token bucket, built on Go's
 * `rate.Limiter`): the bucket holds up to `burst` tokens and refills at `qps` tokens per
 * second; every operation takes one token and waits when none is left. Used by the REST
 * client's client-side throttling and the workqueue's bucket rate limiter.
 */
import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";

/** One reserved token: when it may be used, for cancellation. */
interface Reservation {
  /** Clock time (ms) at which the token may be used. */
  readonly timeToAct: number;
}

/**
 * A token bucket on an injected {@link Clock}. The bucket starts full. Reservations queue
 * up: when the bucket is empty, the n-th waiter is served n/qps seconds after the bucket
 * ran dry, in the order the calls were made.
 *
 * A negative (or infinite) `qps` means "no limit": every call succeeds at once and `burst`
 * is ignored, as client-go treats a negative QPS.
 */
export class TokenBucket {
  /** Tokens added per second; negative or `Infinity` when unlimited. */
  readonly qps: number;
  /** The bucket's capacity (the number of calls allowed at once after an idle period). */
  readonly burst: number;
  readonly #clock: Clock;
  readonly #unlimited: boolean;
  #tokens: number;
  /** Clock time (ms) the token count was last brought up to date. */
  #last: number;
  /** Clock time (ms) at which the latest reservation may act. */
  #lastEvent: number;

  /**
   * @param qps tokens per second; negative or `Infinity` disables limiting.
   * @param burst capacity, an integer >= 1 (ignored when unlimited).
   * @throws {RangeError} when `qps` is 0 or NaN, or `burst` is not an integer >= 1 for a
   *   limited bucket.
   */
  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (Number.isNaN(qps) || qps === 0) {
      throw new RangeError(
        `TokenBucket: qps must be positive, or negative for no limit; got ${qps}`,
      );
    }
    this.#unlimited = qps < 0 || qps === Infinity;
    if (!this.#unlimited && !(Number.isInteger(burst) && burst >= 1)) {
      throw new RangeError(`TokenBucket: burst must be an integer >= 1, got ${burst}`);
    }
    this.qps = qps;
    this.burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
    this.#lastEvent = this.#last;
  }

  /** Whether this bucket limits anything (false for a negative or infinite qps). */
  get limited(): boolean {
    return !this.#unlimited;
  }

  /** Takes a token if one is available now, without waiting; false leaves the bucket unchanged. */
  tryAccept(): boolean {
    if (this.#unlimited) return true;
    const now = this.#clock.now();
    this.#refill(now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    this.#lastEvent = Math.max(this.#lastEvent, now);
    return true;
  }

  /**
   * Takes a token now, possibly ahead of time, and returns how many ms the caller must wait
   * before acting (0 when a token was available). The token stays taken; callers that do
   * not act should prefer {@link wait}, which gives it back on abort.
   */
  reserve(): number {
    if (this.#unlimited) return 0;
    const now = this.#clock.now();
    return this.#reserveAt(now).timeToAct - now;
  }

  /**
   * Takes a token, waiting on the clock until it is usable, and resolves with the ms waited
   * (0 when a token was available at once).
   *
   * When `signal` is already aborted, rejects with `signal.reason` without taking a token;
   * when it aborts during the wait, rejects with `signal.reason` and gives the token back
   * (minus the time later reservations already claimed, as Go's `Reservation.Cancel`).
   */
  async wait(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) throw signal.reason;
    if (this.#unlimited) return 0;
    const now = this.#clock.now();
    const reservation = this.#reserveAt(now);
    const delay = reservation.timeToAct - now;
    if (delay <= 0) return 0;
    try {
      await this.#clock.sleep(delay, signal);
    } catch (err) {
      this.#cancel(reservation);
      throw err;
    }
    return delay;
  }

  /** ms needed to accumulate `tokens` tokens. */
  #durationOf(tokens: number): number {
    return (tokens * 1000) / this.qps;
  }

  #refill(now: number): void {
    if (now < this.#last) {
      // The clock went backwards: restart accounting from here, adding nothing.
      this.#last = now;
      return;
    }
    const elapsed = now - this.#last;
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.qps) / 1000);
    this.#last = now;
  }

  #reserveAt(now: number): Reservation {
    this.#refill(now);
    this.#tokens -= 1;
    const wait = this.#tokens < 0 ? this.#durationOf(-this.#tokens) : 0;
    const timeToAct = now + wait;
    this.#lastEvent = timeToAct;
    return { timeToAct };
  }

  #cancel(reservation: Reservation): void {
    const now = this.#clock.now();
    if (reservation.timeToAct < now) return;
    // Tokens taken by reservations made after this one must stay taken.
    const laterTokens = ((this.#lastEvent - reservation.timeToAct) * this.qps) / 1000;
    const restore = 1 - laterTokens;
    if (restore <= 0) return;
    this.#refill(now);
    this.#tokens = Math.min(this.burst, this.#tokens + restore);
    if (reservation.timeToAct === this.#lastEvent) {
      const previousEvent = reservation.timeToAct - this.#durationOf(1);
      if (previousEvent >= now) this.#lastEvent = previousEvent;
    }
  }
}
