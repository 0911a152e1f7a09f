import { collectGarbage } from "../../test/support/garbage-collection.js";
import type { HeapStats } from "./host-protocol.js";

/** Full garbage collections in this process (shared with the tests). */
export { collectGarbage };

/**
 * Resolves or rejects like `promise`, but rejects with an error naming `what` when it has
 * not settled within `ms` or when `signal` aborts first. The underlying work is not
 * cancelled: callers close what they started (their `finally` blocks run either way).
 */
export async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    if (signal) {
      onAbort = () => reject(new Error(`${what} aborted: ${String(signal.reason)}`));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** The median of a non-empty list of samples (the mean of the two middle ones for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error("median of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Runs `measure` `warmups + runs` times in sequence and returns the results of the last
 * `runs` (warm-up results are discarded).
 */
export async function repeat<T>(
  warmups: number,
  runs: number,
  measure: (iteration: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < warmups + runs; i++) {
    const result = await measure(i);
    if (i >= warmups) out.push(result);
  }
  return out;
}

/**
 * The heap of this process after full garbage collections ({@link collectGarbage}), from
 * `process.memoryUsage()`.
 */
export function collectedHeap(): HeapStats {
  collectGarbage();
  const { heapUsed, heapTotal, external, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed, heapTotal, external, arrayBuffers, rss };
}
