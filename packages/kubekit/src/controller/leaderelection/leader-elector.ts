/**
 * Leader election among replicas of a controller through a lock object in the API server
 * (client-go's `tools/leaderelection/leaderelection.go`).
 */
import type { Clock, TimerHandle } from "../../core/clock.js";
import { realClock } from "../../core/clock.js";
import type { Logger } from "../../core/logger.js";
import { consoleLogger } from "../../core/logger.js";
import { LeaderElectionError } from "./leader-election-error.js";
import type {
  LeaderElectionRecord,
  ObservedLeaderElectionRecord,
  ResourceLock,
} from "./resource-lock.js";
import { isConflict } from "../../core/status.js";
import { formatMicroTime } from "../../core/wire-time.js";

/**
 * client-go's `JitterFactor`: an acquisition retry waits `retryPeriodMs` plus up to 1.2 times
 * as much again, and `renewDeadlineMs` must exceed 1.2 × `retryPeriodMs`.
 */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

/** What a {@link LeaderElector} calls as leadership comes and goes. */
export interface LeaderCallbacks {
  /**
   * Called when this candidate becomes the leader. `signal` aborts (with a
   * `LeaderElectionError` of reason `LeadershipLost`, or the run signal's reason) the moment
   * this candidate stops believing it leads: stop the leader-only work then. A returned
   * promise is awaited only to release the lock after the work stopped (`releaseOnCancel`);
   * a throw or rejection is logged.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Called once when `run()` ends, whether or not this candidate led (as client-go's
   * `OnStoppedLeading`). A throw is logged.
   */
  onStoppedLeading(): void;
  /**
   * Called when an attempt to acquire or renew (or a release) leaves a holder of the lock
   * other than the one last reported: this candidate included, and `""` when the lock was
   * released and nobody holds it (client-go's `maybeReportTransition`). An unheld lock
   * before any holder was seen is not reported.
   */
  onNewLeader?(identity: string): void;
}

/** Options of a {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** The lock competed for, e.g. a {@link LeaseLock}; its `identity` names this candidate. */
  readonly lock: ResourceLock;
  /**
   * How long the others wait, after they last saw the lock change, before taking it over
   * (default 15000, client-go's and kube-controller-manager's). Written to the lock rounded
   * up to whole seconds.
   */
  readonly leaseDurationMs?: number;
  /**
   * How long the leader keeps leading without a successful renewal (default 10000): it stops
   * `renewDeadlineMs` after it sent its last successful write, which is before anyone else
   * can take over. Must be less than `leaseDurationMs`.
   */
  readonly renewDeadlineMs?: number;
  /**
   * How often to retry acquiring (jittered by up to {@link LEADER_ELECTION_JITTER_FACTOR})
   * and to renew (default 2000).
   */
  readonly retryPeriodMs?: number;
  /**
   * When `run()`'s signal aborts while leading: wait for the promise returned by
   * `onStartedLeading` to settle (at most until the renew deadline), then write a released
   * lock (no holder, lease of 1 s) so a successor takes over at its next retry instead of
   * after a whole lease duration. Default false.
   */
  readonly releaseOnCancel?: boolean;
  /** Time source of every wait and of lease expiry (default: the real clock). */
  readonly clock?: Clock;
  /** Where acquisitions, losses and failed attempts are logged (default: the console). */
  readonly logger?: Logger;
  /** Random source in [0, 1) of the retry jitter (default `Math.random`). */
  readonly random?: () => number;
  /** What to run as leadership comes and goes. */
  readonly callbacks: LeaderCallbacks;
}

/** What one attempt to acquire or renew found. */
type AttemptResult = "acquired" | "held" | "failed";

/**
 * Competes for a lock with the other candidates and runs `onStartedLeading` while it holds
 * it. Guarantees, with every candidate's clock running at the same rate (offsets do not
 * matter; rates may differ by up to the ratio `leaseDurationMs / renewDeadlineMs`, as
 * client-go's package documentation explains):
 *
 * - A candidate takes a held lock over only when it has seen no change of the lock for the
 *   lease duration the holder wrote, measured on its own clock from when it saw the change;
 *   the record's timestamps (another machine's clock) are never compared with its own.
 * - Every write is conditional on the version last read (a 409 Conflict means someone else
 *   wrote first, and the attempt failed).
 * - The leader stops believing it leads, and aborts the signal given to
 *   `onStartedLeading`, `renewDeadlineMs` after it sent its last successful write (or at
 *   once when it sees another holder), which is strictly before any other candidate can
 *   take over. A write's sending time is what counts, so a slow or stalled API server
 *   shortens leadership instead of extending it.
 * - `leaderTransitions` in the record counts every change of holder.
 * - When `run()` ends, every timer and request it started has been cancelled.
 *
 * Where it is stricter than client-go (`renew` in
 * `staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go`): there the renew
 * deadline starts with each renewal round, a retry period after the last success, so
 * settings such as 10 s / 9 s / 5 s let a leader outlive its lease; here it counts from the
 * last successful write, so `leaseDurationMs > renewDeadlineMs` is all safety needs. The
 * lease duration is written rounded up to whole seconds (client-go truncates).
 *
 * Caveats: identities must be unique among running candidates (a candidate named in the
 * lock takes it back at once, as in client-go); like client-go, `run()` returns once
 * leadership is lost: call it again (or exit the process) to compete again. Deleting the
 * lock object while a leader holds it voids the guarantee (see {@link LeaseLock}).
 *
 * @example
 * Leader-only work outside a {@link Manager}: one replica of a Deployment deletes the failed
 * Pods of a namespace every minute, and stops the moment it no longer leads.
 *
 * ```ts
 * import { hostname } from "node:os";
 * import { setTimeout as sleep } from "node:timers/promises";
 * import { Clientset, KubeConfig, LeaderElector, LeaseLock, signalHandler } from "kubekit";
 *
 * const clientset = new Clientset((await KubeConfig.load()).restConfig());
 * const pods = clientset.coreV1.pods("batch");
 * const elector = new LeaderElector({
 *   lock: new LeaseLock(clientset, "batch", "failed-pod-cleaner", `${hostname()}_${process.pid}`),
 *   releaseOnCancel: true, // a successor takes over at once after a graceful stop
 *   callbacks: {
 *     onStartedLeading: async (signal) => {
 *       try {
 *         while (!signal.aborted) {
 *           const failed = await pods.list({ fieldSelector: "status.phase=Failed", signal });
 *           for (const pod of failed.items) {
 *             await pods.delete(pod.metadata?.name ?? "", { signal });
 *           }
 *           await sleep(60_000, undefined, { signal });
 *         }
 *       } catch (err) {
 *         if (!signal.aborted) throw err; // logged by the elector; aborts are the way out
 *       }
 *     },
 *     onStoppedLeading: () => console.log("stopped leading"),
 *     onNewLeader: (identity) => console.log(`leader: ${identity}`),
 *   },
 * });
 *
 * // Returns once leadership is lost, or after a graceful stop on SIGTERM or SIGINT.
 * await elector.run(signalHandler());
 * ```
 */
export class LeaderElector {
  readonly #lock: ResourceLock;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #releaseOnCancel: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #callbacks: LeaderCallbacks;
  #running = false;
  /** The lock's record as last seen, and when (local clock) its version was first seen. */
  #observed: ObservedLeaderElectionRecord | undefined;
  #observedAt = 0;
  /** The holder last reported to `onNewLeader` (`""`: none, client-go's initial value). */
  #reportedLeader = "";
  /** Set while leading; aborted the moment leadership ends. */
  #leading: AbortController | undefined;

  /**
   * @throws {LeaderElectionError} of reason `InvalidConfig` when a duration is not a
   *   positive number, `leaseDurationMs <= renewDeadlineMs`, `renewDeadlineMs <= 1.2 ×
   *   retryPeriodMs`, or the lock's identity is empty.
   */
  constructor(options: LeaderElectorOptions) {
    this.#lock = options.lock;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.#releaseOnCancel = options.releaseOnCancel ?? false;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.#random = options.random ?? Math.random;
    this.#callbacks = options.callbacks;
    this.#validate();
  }

  /** Whether this candidate currently believes it is the leader. */
  isLeader(): boolean {
    return this.#leading !== undefined && !this.#leading.signal.aborted;
  }

  /**
   * The leader's health (client-go's `LeaderElector.Check`): throws when this candidate
   * believes it leads but has not seen its lock change (a successful renewal) for longer than
   * the lease duration plus `maxTolerableExpiredLeaseMs` — a leader that is stuck and should
   * be restarted. A standby, or a candidate not running, is healthy.
   *
   * @throws {LeaderElectionError} of reason `LeadershipLost`, naming the lock.
   */
  check(maxTolerableExpiredLeaseMs: number): void {
    if (!this.isLeader()) return;
    const since = this.#clock.now() - this.#observedAt;
    if (since > this.#leaseDurationMs + maxTolerableExpiredLeaseMs) {
      throw new LeaderElectionError(
        "LeadershipLost",
        this.#lock.describe(),
        `failed election to renew leadership on lease ${this.#lock.describe()}: last renewal ${since} ms ago`,
      );
    }
  }

  /** The holder of the lock as last observed, or `undefined` when unheld or not yet read. */
  leader(): string | undefined {
    const holder = this.#observed?.record.holderIdentity;
    return holder === "" ? undefined : holder;
  }

  /**
   * Competes for the lock until this candidate has led and lost leadership, or `signal`
   * aborts; then calls `onStoppedLeading` and resolves (it never rejects for lock or
   * callback errors, which are logged and retried). While leading it renews every
   * `retryPeriodMs`.
   *
   * @throws {LeaderElectionError} (as a rejection) of reason `AlreadyRunning` when a
   *   previous `run()` has not finished.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) {
      throw new LeaderElectionError("AlreadyRunning", this.#lock.describe(), "already running");
    }
    this.#running = true;
    this.#observed = undefined;
    this.#reportedLeader = "";
    try {
      const sentAt = await this.#acquire(signal);
      if (sentAt !== undefined) await this.#lead(signal, sentAt);
      else if (this.#releaseOnCancel) await this.#releaseIfHeld();
    } finally {
      this.#leading = undefined;
      this.#running = false;
      this.#callback("onStoppedLeading", () => this.#callbacks.onStoppedLeading());
    }
  }

  #validate(): void {
    const fail = (field: string, message: string): never => {
      throw new LeaderElectionError("InvalidConfig", this.#lock.describe(), message, field);
    };
    const durations = {
      leaseDurationMs: this.#leaseDurationMs,
      renewDeadlineMs: this.#renewDeadlineMs,
      retryPeriodMs: this.#retryPeriodMs,
    };
    for (const [field, value] of Object.entries(durations)) {
      if (!(Number.isFinite(value) && value > 0)) fail(field, `${field} must be > 0, got ${value}`);
    }
    if (this.#leaseDurationMs <= this.#renewDeadlineMs) {
      fail(
        "leaseDurationMs",
        `leaseDurationMs (${this.#leaseDurationMs}) must be greater than renewDeadlineMs (${this.#renewDeadlineMs})`,
      );
    }
    if (this.#renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * this.#retryPeriodMs) {
      fail(
        "renewDeadlineMs",
        `renewDeadlineMs (${this.#renewDeadlineMs}) must be greater than retryPeriodMs (${this.#retryPeriodMs}) × ${LEADER_ELECTION_JITTER_FACTOR}`,
      );
    }
    if (this.#lock.identity === "") fail("identity", "the lock's identity must not be empty");
  }

  /**
   * Tries at once, then every jittered retry period, until an attempt acquires the lock;
   * resolves with that attempt's sending time, or `undefined` once `signal` aborted. Each
   * attempt is cut off after `renewDeadlineMs`: a later success could not be led on anyway.
   */
  async #acquire(signal: AbortSignal): Promise<number | undefined> {
    this.#logger.info("attempting to acquire leader lease", { lock: this.#lock.describe() });
    while (!signal.aborted) {
      const sentAt = this.#clock.now();
      const attempt = new AbortController();
      const cutOff = this.#clock.setTimer(this.#renewDeadlineMs, () => attempt.abort());
      const onAbort = (): void => attempt.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      let result: AttemptResult;
      try {
        result = await this.#attempt(attempt.signal, false);
      } finally {
        cutOff.cancel();
        signal.removeEventListener("abort", onAbort);
      }
      if (result === "acquired" && !attempt.signal.aborted) {
        this.#recordEvent("became leader");
        this.#logger.info("successfully acquired lease", { lock: this.#lock.describe() });
        return sentAt;
      }
      const jitter = 1 + this.#random() * LEADER_ELECTION_JITTER_FACTOR;
      try {
        await this.#clock.sleep(this.#retryPeriodMs * jitter, signal);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * Leads from an acquisition sent at `sentAt`: starts the work, renews every retry period
   * and steps down at the renew deadline of the last successful write, when another holder
   * is seen, or when `signal` aborts (then releases the lock if configured).
   */
  async #lead(signal: AbortSignal, sentAt: number): Promise<void> {
    const leading = new AbortController();
    this.#leading = leading;
    // Aborted at the renew deadline; it also bounds the drain and the release after a cancel.
    const deadline = new AbortController();
    const lose = (why: string): void => {
      if (leading.signal.aborted) return;
      this.#logger.info("stopped leading", { lock: this.#lock.describe(), why });
      leading.abort(new LeaderElectionError("LeadershipLost", this.#lock.describe(), why));
    };
    let stepDown: TimerHandle | undefined;
    const armStepDown = (writeSentAt: number): void => {
      stepDown?.cancel();
      stepDown = this.#clock.setTimer(
        writeSentAt + this.#renewDeadlineMs - this.#clock.now(),
        () => {
          deadline.abort();
          lose(`no successful renewal within renewDeadlineMs (${this.#renewDeadlineMs})`);
        },
      );
    };
    armStepDown(sentAt);
    let cancelled = false;
    const onCancel = (): void => {
      if (leading.signal.aborted) return;
      cancelled = true;
      leading.abort(signal.reason);
    };
    signal.addEventListener("abort", onCancel, { once: true });
    if (signal.aborted) onCancel();
    try {
      const work = this.#startWork(leading.signal);
      while (!leading.signal.aborted) {
        try {
          await this.#clock.sleep(this.#retryPeriodMs, leading.signal);
        } catch {
          break;
        }
        const renewSentAt = this.#clock.now();
        const result = await this.#attempt(leading.signal, true);
        if (leading.signal.aborted) break;
        if (result === "acquired") armStepDown(renewSentAt);
        else if (result === "held") lose(`the lock is held by ${this.leader() ?? "nobody"}`);
      }
      if (this.#releaseOnCancel && cancelled) {
        await this.#drainAndRelease(work, deadline.signal);
      }
    } finally {
      stepDown?.cancel();
      signal.removeEventListener("abort", onCancel);
      this.#recordEvent("stopped leading");
    }
  }

  /** Calls `onStartedLeading`; resolves when the work it returned settles (never rejects). */
  #startWork(signal: AbortSignal): Promise<void> {
    try {
      const work = this.#callbacks.onStartedLeading(signal);
      if (work === undefined) return Promise.resolve();
      return Promise.resolve(work).catch((err: unknown) => {
        this.#logger.error("onStartedLeading failed", { lock: this.#lock.describe(), err });
      });
    } catch (err) {
      this.#logger.error("onStartedLeading failed", { lock: this.#lock.describe(), err });
      return Promise.resolve();
    }
  }

  /** After a cancel: waits for the work, then writes a released record, both before `deadline`. */
  async #drainAndRelease(work: Promise<void>, deadline: AbortSignal): Promise<void> {
    let onDeadline: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      onDeadline = resolve;
      deadline.addEventListener("abort", onDeadline, { once: true });
      if (deadline.aborted) resolve();
      void work.then(resolve);
    });
    if (onDeadline !== undefined) deadline.removeEventListener("abort", onDeadline);
    if (deadline.aborted || this.#observed?.record.holderIdentity !== this.#lock.identity) {
      this.#logger.warn(
        "lease not released: the renew deadline passed, or another holder wrote it",
        {
          lock: this.#lock.describe(),
        },
      );
      return;
    }
    await this.#release(deadline);
  }

  /**
   * After a cancel while acquiring: an acquiring write whose answer was lost (or arrived as
   * the cancel did) may have made this candidate the holder without it knowing. Releases the
   * lock if this identity holds it, bounded by `renewDeadlineMs`, so a successor need not
   * wait out a lease nobody uses.
   */
  async #releaseIfHeld(): Promise<void> {
    const deadline = new AbortController();
    const timer = this.#clock.setTimer(this.#renewDeadlineMs, () => deadline.abort());
    try {
      await this.#release(deadline.signal);
    } finally {
      timer.cancel();
    }
  }

  /**
   * Writes an expired, unheld record (releaseOnCancel), reading the lock first and again
   * after each 409 Conflict until `deadline`: a renewal that was in flight when the cancel
   * came may have been applied without its answer arriving, so the version last seen is
   * stale (client-go's `tryRelease` in `tools/leaderelection/leaderelection.go` reads the
   * lock and retries on conflict the same way). Nothing is written when the lock is gone or
   * held by someone else. Best effort: other failures are logged.
   */
  async #release(deadline: AbortSignal): Promise<void> {
    const lock = this.#lock.describe();
    while (!deadline.aborted) {
      let current: ObservedLeaderElectionRecord | undefined;
      try {
        current = await this.#lock.get(deadline);
        if (current?.record.holderIdentity !== this.#lock.identity) return;
        const now = formatMicroTime(this.#clock.now());
        const released = await this.#lock.update(
          {
            holderIdentity: "",
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaderTransitions: current.record.leaderTransitions,
          },
          deadline,
        );
        this.#observe(released);
        this.#reportTransition();
        this.#logger.info("released leader lease", { lock });
        return;
      } catch (err) {
        if (isConflict(err) && !deadline.aborted) {
          this.#logger.debug("conflict when releasing the leader lease, retrying", { lock });
          continue;
        }
        this.#logger.warn("failed to release leader lease", { lock, err });
        return;
      }
    }
    this.#logger.warn("lease not released: the renew deadline passed", { lock });
  }

  /** One attempt (`#tryAcquireOrRenew`), then the report of a new holder if any. */
  async #attempt(signal: AbortSignal, leading: boolean): Promise<AttemptResult> {
    const result = await this.#tryAcquireOrRenew(signal, leading);
    this.#reportTransition();
    return result;
  }

  /**
   * One attempt: the leader first writes over the version it last wrote; otherwise read the
   * lock, create it when missing, and take it when unheld, expired (local clock), or held
   * by this identity. A leader that sees another holder gets `held`.
   */
  async #tryAcquireOrRenew(signal: AbortSignal, leading: boolean): Promise<AttemptResult> {
    const identity = this.#lock.identity;
    const last = this.#observed?.record;
    if (leading && last?.holderIdentity === identity) {
      try {
        this.#observe(await this.#lock.update(this.#recordFrom(last), signal));
        return "acquired";
      } catch (err) {
        if (signal.aborted) return "failed";
        this.#logger.warn("failed to renew lease, reading it", {
          lock: this.#lock.describe(),
          err,
        });
      }
    }
    let current: ObservedLeaderElectionRecord | undefined;
    try {
      current = await this.#lock.get(signal);
      if (current === undefined) {
        this.#observe(await this.#lock.create(this.#recordFrom(undefined), signal));
        return "acquired";
      }
    } catch (err) {
      this.#attemptFailed("error retrieving or creating the lock", err, signal);
      return "failed";
    }
    this.#observe(current);
    const holder = current.record.holderIdentity;
    if (holder !== identity && (leading || (holder !== "" && !this.#expired(current.record)))) {
      return "held";
    }
    try {
      this.#observe(await this.#lock.update(this.#recordFrom(current.record), signal));
      return "acquired";
    } catch (err) {
      this.#attemptFailed("failed to update the lock", err, signal);
      return "failed";
    }
  }

  #attemptFailed(message: string, err: unknown, signal: AbortSignal): void {
    if (!signal.aborted) this.#logger.warn(message, { lock: this.#lock.describe(), err });
  }

  /** The record this candidate writes over `previous` (the lock's current one, if any). */
  #recordFrom(previous: LeaderElectionRecord | undefined): LeaderElectionRecord {
    const now = formatMicroTime(this.#clock.now());
    const renewing = previous?.holderIdentity === this.#lock.identity;
    return {
      holderIdentity: this.#lock.identity,
      leaseDurationSeconds: Math.ceil(this.#leaseDurationMs / 1000),
      acquireTime: renewing ? (previous.acquireTime ?? now) : now,
      renewTime: now,
      leaderTransitions:
        previous === undefined ? 0 : previous.leaderTransitions + (renewing ? 0 : 1),
    };
  }

  /**
   * Whether a record held by someone else has expired: unchanged, on the local clock, for
   * the lease duration its holder wrote (this candidate's own when the record has none).
   */
  #expired(record: LeaderElectionRecord): boolean {
    const durationMs =
      record.leaseDurationSeconds > 0 ? record.leaseDurationSeconds * 1000 : this.#leaseDurationMs;
    return this.#clock.now() >= this.#observedAt + durationMs;
  }

  /** Records what was read or written; a new version restarts the expiry countdown. */
  #observe(observed: ObservedLeaderElectionRecord): void {
    if (observed.version !== this.#observed?.version) this.#observedAt = this.#clock.now();
    this.#observed = observed;
  }

  /** Reports the holder last observed to `onNewLeader` when it is not the one last reported. */
  #reportTransition(): void {
    const holder = this.#observed?.record.holderIdentity ?? "";
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    const onNewLeader = this.#callbacks.onNewLeader;
    if (onNewLeader !== undefined) this.#callback("onNewLeader", () => onNewLeader(holder));
  }

  /** Records a leader election Event on the lock (client-go's `Lock.RecordEvent`); never throws. */
  #recordEvent(message: string): void {
    try {
      this.#lock.recordEvent?.(message);
    } catch (error) {
      this.#logger.error("recording a leader election event failed", {
        lock: this.#lock.describe(),
        error,
      });
    }
  }

  #callback(name: string, call: () => void): void {
    try {
      call();
    } catch (err) {
      this.#logger.error(`${name} failed`, { lock: this.#lock.describe(), err });
    }
  }
}
