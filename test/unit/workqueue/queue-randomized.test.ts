import { describe, expect, it } from "vitest";
import { Queue } from "kubekit";
import { SeededRandom } from "../../support/seeded-random.js";

/** Yields to the event loop `turns` times, mixing microtask and macrotask turns. */
async function yieldTurns(random: SeededRandom, turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (random.chance(0.3)) await new Promise((resolve) => setImmediate(resolve));
    else await Promise.resolve();
  }
}

interface Run {
  readonly violations: string[];
  /** Per key: the step of its last add, and of the start of its last processing. */
  readonly lastAdd: Map<string, number>;
  readonly lastStart: Map<string, number>;
  readonly adds: number;
  readonly processed: number;
}

/**
 * 8 workers and a producer adding random keys, all interleaved at random; a global step
 * counter orders adds and processing starts.
 */
async function runRandomized(seed: number): Promise<Run> {
  const random = new SeededRandom(seed);
  const q = new Queue<string>();
  const keys = Array.from({ length: 40 }, (_, i) => `ns/key-${i}`);
  const active = new Set<string>();
  const lastAdd = new Map<string, number>();
  const lastStart = new Map<string, number>();
  const violations: string[] = [];
  let step = 0;
  let processed = 0;
  const ADDS = 5000;

  const worker = async (id: number): Promise<void> => {
    const own = random.derive(id);
    for (;;) {
      const [key, shutdown] = await q.get();
      if (shutdown) return;
      if (active.has(key)) violations.push(`${key} handed to two workers at step ${step}`);
      active.add(key);
      lastStart.set(key, step++);
      processed++;
      await yieldTurns(own, own.int(0, 6));
      active.delete(key);
      q.done(key);
    }
  };
  const workers = Array.from({ length: 8 }, (_, id) => worker(id));

  for (let i = 0; i < ADDS; i++) {
    const key = random.pick(keys);
    lastAdd.set(key, step++);
    q.add(key);
    if (random.chance(0.4)) await yieldTurns(random, random.int(1, 4));
  }
  // Workers still get what is queued (and what is re-queued by a done) after the shutdown,
  // then stop.
  await q.shutDownWithDrain();
  await Promise.all(workers);
  expect(q.len()).toBe(0);
  return { violations, lastAdd, lastStart, adds: ADDS, processed };
}

describe("Queue under 8 concurrent workers and random adds", () => {
  for (const seed of [1, 2, 3]) {
    it(`never runs a key twice at once, loses none, reprocesses every key added after its last start (seed ${seed})`, async () => {
      const run = await runRandomized(seed);
      expect(run.violations).toEqual([]);
      expect(run.lastStart.size).toBe(run.lastAdd.size);
      for (const [key, added] of run.lastAdd) {
        const started = run.lastStart.get(key);
        expect(started, `${key} added at step ${added} was never processed`).toBeDefined();
        expect(started as number, `${key} added at step ${added}`).toBeGreaterThan(added);
      }
      // De-duplication did happen, and work was spread (sanity of the scenario itself).
      expect(run.processed).toBeLessThan(run.adds);
      expect(run.processed).toBeGreaterThan(run.lastAdd.size);
    });
  }
});
