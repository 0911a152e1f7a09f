/** Waiting for informers to sync (client-go's `WaitForCacheSync`). */
import { realClock } from "../core/clock.js";

/** How often sources without `waitForSync` are polled (client-go's `syncedPollPeriod`). */
export const SYNCED_POLL_PERIOD_MS = 100;

/**
 * Something whose sync can be awaited: an informer, a handler registration, or any object
 * with `hasSynced()`. With `waitForSync` (informers and registrations have it) the wait is
 * event-driven; without it, `hasSynced()` is polled every 100 ms (`SYNCED_POLL_PERIOD_MS`).
 */
export interface CacheSyncSource {
  hasSynced(): boolean;
  /** Resolves `true` once synced, `false` when `signal` aborts or it will never sync. */
  waitForSync?(signal: AbortSignal): Promise<boolean>;
}

async function pollSynced(source: CacheSyncSource, signal: AbortSignal): Promise<boolean> {
  while (!source.hasSynced()) {
    try {
      await realClock.sleep(SYNCED_POLL_PERIOD_MS, signal);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Resolves `true` once every source has synced (at once if they all have, even when `signal`
 * is already aborted), `false` when `signal` aborts first or a source reports that it will
 * never sync (e.g. its informer stopped). No source: `true`. Never rejects.
 */
export async function waitForCacheSync(
  signal: AbortSignal,
  ...informers: CacheSyncSource[]
): Promise<boolean> {
  if (informers.every((source) => source.hasSynced())) return true;
  if (signal.aborted) return false;
  const giveUp = new AbortController();
  const onAbort = (): void => giveUp.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const results = await Promise.all(
      informers.map(async (source) => {
        const synced =
          source.waitForSync !== undefined
            ? await source.waitForSync(giveUp.signal).catch(() => false)
            : await pollSynced(source, giveUp.signal);
        if (!synced) giveUp.abort();
        return synced;
      }),
    );
    return results.every(Boolean);
  } finally {
    signal.removeEventListener("abort", onAbort);
    giveUp.abort();
  }
}
