/**
 * The lock a {@link LeaderElector} competes for: an object in the API server holding a
 * {@link LeaderElectionRecord}, written with optimistic concurrency (client-go's
 * `tools/leaderelection/resourcelock/interface.go`).
 */

/**
 * Who holds a leader lock and for how long (client-go's `LeaderElectionRecord`, stored in a
 * Lease's spec). The times are the holder's own clock, informational only: a candidate
 * never compares them with its clock, it measures expiry from when it saw the record change.
 */
export interface LeaderElectionRecord {
  /** The identity of the holder; `""` when the lock is released (unheld). */
  readonly holderIdentity: string;
  /** How long, in whole seconds, others must wait after the last change before taking over. */
  readonly leaseDurationSeconds: number;
  /** When the holder acquired the lock (RFC 3339 with microseconds), if known. */
  readonly acquireTime?: string;
  /** When the holder last renewed the lock (RFC 3339 with microseconds), if known. */
  readonly renewTime?: string;
  /** How many times the lock changed hands. */
  readonly leaderTransitions: number;
}

/** A record as read from (or written to) the lock object, with that object's version. */
export interface ObservedLeaderElectionRecord {
  readonly record: LeaderElectionRecord;
  /**
   * Opaque version of the lock object (its resourceVersion): it changes on every write, so
   * a candidate detects a renewal by comparing versions, never by reading the record's times.
   */
  readonly version: string;
}

/**
 * A leader election lock. Implementations: {@link LeaseLock}. Every method rejects with the
 * client's errors (a `StatusError` for an error answer) and honours `signal`.
 */
export interface ResourceLock {
  /** The identity this candidate writes as the holder; unique among the candidates. */
  readonly identity: string;
  /** A human-readable name of the lock object (`namespace/name`), for logs and errors. */
  describe(): string;
  /** The current record, or `undefined` when the lock object does not exist. */
  get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | undefined>;
  /** Creates the lock object holding `record`; rejects with 409 AlreadyExists if it exists. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedLeaderElectionRecord>;
  /**
   * Replaces the record, on condition that the object is still at the version this lock last
   * read or wrote: a write by anyone else since then rejects with 409 Conflict.
   */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedLeaderElectionRecord>;
  /**
   * Records an Event about the lock object, `<identity> <message>` (client-go's
   * `RecordEvent`): the elector calls it with `became leader` and `stopped leading`. Optional;
   * must not throw (a throw is logged).
   */
  recordEvent?(message: string): void;
}
