/**
 * Per-key exponential back-off between replacements of failed pods, as the DaemonSet
 * controller keeps per DaemonSet and node (`staging/src/k8s.io/client-go/util/flowcontrol/backoff.go`
 * Backoff, created in `pkg/controller/daemon/daemon_controller.go` with 1 s to 15 min), so a
 * pod a node keeps failing is not recreated in a hot loop.
 */
export class FailedPodBackoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #entries = new Map<string, { delayMs: number; lastUpdateMs: number }>();

  /** kube's DaemonSet controller's bounds: 1 s, doubling up to 15 min. */
  constructor(initialMs = 1_000, maxMs = 15 * 60_000) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
  }

  /** An entry untouched for twice the maximum delay is forgotten (`hasExpired`). */
  #live(key: string, nowMs: number): { delayMs: number; lastUpdateMs: number } | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (nowMs - entry.lastUpdateMs > 2 * this.#maxMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * How long `key` must still wait at `nowMs` since its last {@link next} (`IsInBackOffSinceUpdate`
   * with `Get`); 0 when it need not wait.
   */
  remainingMs(key: string, nowMs: number): number {
    const entry = this.#live(key, nowMs);
    if (entry === undefined) return 0;
    return Math.max(0, entry.lastUpdateMs + entry.delayMs - nowMs);
  }

  /** Records a replacement at `nowMs`: the first waits the initial delay, each next one twice the previous, up to the maximum. */
  next(key: string, nowMs: number): void {
    const entry = this.#live(key, nowMs);
    const delayMs =
      entry === undefined ? this.#initialMs : Math.min(2 * entry.delayMs, this.#maxMs);
    this.#entries.set(key, { delayMs, lastUpdateMs: nowMs });
  }
}
