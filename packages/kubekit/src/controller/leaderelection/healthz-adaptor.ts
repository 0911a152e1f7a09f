/**
 * A health check over a leader elector (client-go's `tools/leaderelection/healthzadaptor.go`).
 */
import type { LeaderElector } from "./leader-elector.js";

/**
 * A `/healthz` check that fails when this replica leads but has not renewed its lock for
 * longer than the lease duration plus `toleranceMs` (client-go's `HealthzAdaptor`, made by
 * `NewLeaderHealthzAdaptor`): a leader stuck this way (a blocked event loop, a wedged
 * client) should be restarted, since another replica may already have taken over. Passes
 * before {@link setLeaderElector}, on standbys, and once the elector stopped.
 *
 * The {@link Manager} adds one (named `leaderElection`, tolerance
 * `leaderElection.healthzToleranceMs`) to its `/healthz` when leader election is on; make
 * one yourself for a {@link LeaderElector} you run and probe.
 */
export class LeaderHealthzAdaptor {
  /** The check's name, client-go's: `leaderElection`. */
  readonly name = "leaderElection";
  /** How long past the lease duration a leader may go without renewing. */
  readonly toleranceMs: number;
  #elector: Pick<LeaderElector, "check"> | undefined;

  /** @throws {RangeError} when `toleranceMs` is negative or not a number. */
  constructor(toleranceMs: number) {
    if (!(toleranceMs >= 0)) {
      throw new RangeError(`LeaderHealthzAdaptor: toleranceMs must be >= 0, got ${toleranceMs}`);
    }
    this.toleranceMs = toleranceMs;
  }

  /** The elector to check (client-go's `SetLeaderElection`). */
  setLeaderElector(elector: Pick<LeaderElector, "check">): void {
    this.#elector = elector;
  }

  /**
   * The check: returns when healthy.
   *
   * @throws {LeaderElectionError} (`LeadershipLost`) when the leader has not renewed in time.
   */
  readonly check = (): void => {
    this.#elector?.check(this.toleranceMs);
  };
}
