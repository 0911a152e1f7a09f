/**
 * A small seeded pseudo-random generator for reproducible randomized tests (chaos and
 * property tests): the same seed always yields the same sequence.
 */

/**
 * mulberry32: a 32-bit state PRNG with good statistical quality for test purposes (not
 * cryptographic). Every method draws from the same sequence, so a test that makes the same
 * calls in the same order sees the same values.
 */
export class SeededRandom {
  #state: number;

  /** `seed` is reduced to an unsigned 32-bit integer. */
  constructor(readonly seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max). @throws {RangeError} when the range is empty. */
  int(min: number, max: number): number {
    if (!(max > min)) throw new RangeError(`empty range [${min}, ${max})`);
    return min + Math.floor(this.next() * (max - min));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. @throws {RangeError} for an empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty array");
    return items[this.int(0, items.length)] as T;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** An independent generator derived from this one's seed and `salt` (does not advance this one). */
  derive(salt: number): SeededRandom {
    return new SeededRandom(Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) ^ salt);
  }
}
