/** Errors of leader election. */

/**
 * - `InvalidConfig`: the {@link LeaderElector}'s options break client-go's rules (durations
 *   out of order or not positive, empty identity); `field` names the option.
 * - `AlreadyRunning`: `run()` was called while a previous `run()` had not finished.
 * - `LeadershipLost`: the reason of the signal passed to `onStartedLeading` when the leader
 *   could not renew within its renew deadline, or saw another holder in the lock.
 */
export type LeaderElectionErrorReason = "InvalidConfig" | "AlreadyRunning" | "LeadershipLost";

/** A leader election failure; `reason` says which. */
export class LeaderElectionError extends Error {
  /** What went wrong. */
  readonly reason: LeaderElectionErrorReason;
  /** The lock (`namespace/name`) of the elector. */
  readonly lock: string;
  /** For `InvalidConfig`: the option that is wrong (e.g. `renewDeadlineMs`). */
  readonly field: string | undefined;

  constructor(reason: LeaderElectionErrorReason, lock: string, message: string, field?: string) {
    super(`leader election ${lock}: ${message}`);
    this.name = "LeaderElectionError";
    this.reason = reason;
    this.lock = lock;
    this.field = field;
  }
}
