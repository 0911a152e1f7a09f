import {
  type Clock,
  type ObjectWithMetadata,
  type ResourceVersionObservable,
  realClock,
  resourceVersionObserved,
  waitForCacheToObserve,
} from "kubekit";

/** How long a reconcile waits for its caches to observe its own writes by default. */
export const OWN_WRITES_TIMEOUT_MS = 10_000;

/**
 * The writes one reconcile made, per informer that will see them: the newest resourceVersion
 * written to each. {@link observed} waits until every informer's cache has caught up, so the
 * next reconcile reads its own writes from the listers (read-your-writes, the role of
 * client-go's "expectations" in kube-controller-manager's controllers,
 * `pkg/controller/controller_utils.go` ControllerExpectations).
 */
export class OwnWrites {
  readonly #newest = new Map<ResourceVersionObservable, string>();
  readonly #clock: Clock;

  /** @param clock where {@link observed}'s timeout runs (default the real clock). */
  constructor(clock: Clock = realClock) {
    this.#clock = clock;
  }

  /** Records that `obj` (as the server returned it) was written where `informer` watches. */
  record(informer: ResourceVersionObservable, obj: ObjectWithMetadata): void {
    const rv = obj.metadata?.resourceVersion;
    if (rv === undefined || rv === "") return;
    const seen = this.#newest.get(informer);
    if (seen === undefined || !resourceVersionObserved(seen, rv)) this.#newest.set(informer, rv);
  }

  /** Whether nothing was recorded. */
  get empty(): boolean {
    return this.#newest.size === 0;
  }

  /**
   * Resolves `true` once every informer's cache has observed the newest write recorded for
   * it, `false` when `signal` aborts or `timeoutMs` passes on the clock first (the caller
   * then requeues). The timer is cancelled when the wait ends.
   */
  async observed(signal: AbortSignal, timeoutMs = OWN_WRITES_TIMEOUT_MS): Promise<boolean> {
    if (this.#newest.size === 0) return true;
    const timeout = new AbortController();
    const timer = this.#clock.setTimer(timeoutMs, () => timeout.abort());
    const deadline = AbortSignal.any([signal, timeout.signal]);
    try {
      const results = await Promise.all(
        [...this.#newest].map(([informer, rv]) => waitForCacheToObserve(informer, rv, deadline)),
      );
      return results.every(Boolean);
    } finally {
      timer.cancel();
    }
  }
}
