/**
 * Counts occurrences (handler calls, frames) up to a target and records the instant the target
 * was reached, so that the moment is measured where it happens rather than when an awaiting
 * caller resumes.
 */
export class Countdown {
  private n = 0;
  private settled = false;
  private resolveReached!: (at: number) => void;
  private rejectReached!: (err: Error) => void;
  /** Resolves to the `performance.now()` instant of the `target`-th {@link tick}; rejects on {@link fail}. */
  readonly reached: Promise<number>;

  /** @param target how many ticks to wait for; 0 is reached at once. */
  constructor(readonly target: number) {
    this.reached = new Promise<number>((resolve, reject) => {
      this.resolveReached = resolve;
      this.rejectReached = reject;
    });
    // A failure nobody awaits yet must not crash the process; awaiting `reached` still sees it.
    this.reached.catch(() => undefined);
    if (target <= 0) this.settle(() => this.resolveReached(performance.now()));
  }

  /** Ticks so far (may exceed the target). */
  get count(): number {
    return this.n;
  }

  /** Counts one occurrence. */
  tick(): void {
    if (++this.n === this.target) this.settle(() => this.resolveReached(performance.now()));
  }

  /** Rejects {@link reached} with `err` unless the target was reached already. */
  fail(err: Error): void {
    this.settle(() => this.rejectReached(err));
  }

  private settle(action: () => void): void {
    if (this.settled) return;
    this.settled = true;
    action();
  }
}
