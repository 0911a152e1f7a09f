/**
 * The coordination.k8s.io/v1 Lease as a leader election lock (client-go's
 * `tools/leaderelection/resourcelock/leaselock.go`).
 */
import type { Lease, LeaseSpec } from "kubernetes-types/coordination/v1.js";
import type { Clientset } from "../../client/clientset.js";
import type { CoordinationV1LeasesClient } from "../../client/generated/typed-clientset.js";
import { isNotFound } from "../../core/status.js";
import type { EventRecorder } from "../events/event-recorder.js";
import { LeaderElectionError } from "./leader-election-error.js";
import type {
  LeaderElectionRecord,
  ObservedLeaderElectionRecord,
  ResourceLock,
} from "./resource-lock.js";

function recordOf(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? "",
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    ...(spec?.acquireTime !== undefined ? { acquireTime: spec.acquireTime } : {}),
    ...(spec?.renewTime !== undefined ? { renewTime: spec.renewTime } : {}),
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
}

/** The spec fields of `record`, over `spec`'s other fields (strategy, preferredHolder). */
function specOf(record: LeaderElectionRecord, spec: LeaseSpec = {}): LeaseSpec {
  const next: LeaseSpec = {
    ...spec,
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== undefined) next.acquireTime = record.acquireTime;
  else delete next.acquireTime;
  if (record.renewTime !== undefined) next.renewTime = record.renewTime;
  else delete next.renewTime;
  return next;
}

/** Options of a {@link LeaseLock}. */
export interface LeaseLockOptions {
  /**
   * Labels set on the Lease when this candidate creates it, and merged into its labels on
   * every write (client-go's `LeaseLock.Labels`), e.g. to select the Leases of one component.
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Where the leader election Events go (client-go's `ResourceLockConfig.EventRecorder`): a
   * Normal `LeaderElection` Event on the Lease, `<identity> became leader` and
   * `<identity> stopped leading`. Default: none.
   */
  readonly eventRecorder?: Pick<EventRecorder, "event">;
}

/**
 * A {@link ResourceLock} on the Lease `namespace/name`. It remembers the Lease it last read
 * or wrote: {@link update} sends that object back with its resourceVersion, so any write by
 * someone else in between fails with 409 Conflict (the optimistic concurrency leader
 * election relies on). The Lease is created on first acquisition; other fields of the Lease
 * (labels, `strategy`, `preferredHolder`) are kept as read.
 *
 * Caveat: deleting the Lease while a leader holds it lets another candidate create it at
 * once, before the old leader's renew deadline has passed (as in client-go).
 */
export class LeaseLock implements ResourceLock {
  readonly #clientset: Pick<Clientset, "coordinationV1">;
  /** The namespace of the Lease. */
  readonly namespace: string;
  /** The name of the Lease. */
  readonly name: string;
  readonly identity: string;
  readonly #labels: Readonly<Record<string, string>> | undefined;
  readonly #eventRecorder: Pick<EventRecorder, "event"> | undefined;
  #lease: Lease | undefined;

  /**
   * @throws {LeaderElectionError} of reason `InvalidConfig` when `namespace` or `name` is
   *   empty (a Lease is namespaced).
   * @param clientset the client the Lease is read and written with (throttling applies:
   *   give leader election a client whose rate limit other work cannot exhaust).
   * @param identity this candidate's holder identity, unique among the candidates (e.g. the
   *   pod name plus a random suffix).
   * @param options the Lease's labels and the recorder of leader election Events.
   */
  constructor(
    clientset: Pick<Clientset, "coordinationV1">,
    namespace: string,
    name: string,
    identity: string,
    options: LeaseLockOptions = {},
  ) {
    for (const [field, value] of Object.entries({ namespace, name })) {
      if (value === "") {
        const message = `the Lease ${field} must not be empty`;
        throw new LeaderElectionError("InvalidConfig", `${namespace}/${name}`, message, field);
      }
    }
    this.#clientset = clientset;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
    this.#labels = options.labels;
    this.#eventRecorder = options.eventRecorder;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | undefined> {
    let lease: Lease;
    try {
      lease = await this.#leases().get(this.name, signal !== undefined ? { signal } : {});
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return this.#remember(lease);
  }

  async create(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    const lease = await this.#leases().create(
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: this.name,
          namespace: this.namespace,
          ...(this.#labels !== undefined ? { labels: { ...this.#labels } } : {}),
        },
        spec: specOf(record),
      },
      signal !== undefined ? { signal } : {},
    );
    return this.#remember(lease);
  }

  /**
   * @throws {Error} (as a rejection) when neither {@link get} nor {@link create} has
   *   returned the Lease yet: there is no version to write against.
   */
  async update(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    const last = this.#lease;
    if (last === undefined) {
      throw new Error(`LeaseLock ${this.describe()}: update before the Lease was read or created`);
    }
    const metadata =
      this.#labels !== undefined
        ? { ...last.metadata, labels: { ...last.metadata?.labels, ...this.#labels } }
        : last.metadata;
    const lease = await this.#leases().update(
      { ...last, ...(metadata !== undefined ? { metadata } : {}), spec: specOf(record, last.spec) },
      signal !== undefined ? { signal } : {},
    );
    return this.#remember(lease);
  }

  /**
   * A Normal `LeaderElection` Event on the Lease, `<identity> <message>` (client-go's
   * `LeaseLock.RecordEvent`); nothing without an event recorder.
   */
  recordEvent(message: string): void {
    const recorder = this.#eventRecorder;
    if (recorder === undefined) return;
    const meta = this.#lease?.metadata;
    recorder.event(
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: this.name,
          namespace: this.namespace,
          ...(meta?.uid ? { uid: meta.uid } : {}),
        },
      },
      "Normal",
      "LeaderElection",
      `${this.identity} ${message}`,
    );
  }

  #leases(): CoordinationV1LeasesClient {
    return this.#clientset.coordinationV1.leases(this.namespace);
  }

  #remember(lease: Lease): ObservedLeaderElectionRecord {
    this.#lease = lease;
    return { record: recordOf(lease.spec), version: lease.metadata?.resourceVersion ?? "" };
  }
}
