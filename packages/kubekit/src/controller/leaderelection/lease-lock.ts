/**
 * The coordination.k8s.io/v1 Lease as a leader election lock (client-go's
 * `tools/leaderelection/resourcelock/leaselock.go`).
 */
import type { Lease, LeaseSpec } from "kubernetes-types/coordination/v1.js";
import type { Clientset } from "../../client/clientset.js";
import type { CoordinationV1LeasesClient } from "../../client/generated/typed-clientset.js";
import { isNotFound } from "../../core/status.js";
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
  #lease: Lease | undefined;

  /**
   * @throws {LeaderElectionError} of reason `InvalidConfig` when `namespace` or `name` is
   *   empty (a Lease is namespaced).
   * @param clientset the client the Lease is read and written with (throttling applies:
   *   give leader election a client whose rate limit other work cannot exhaust).
   * @param identity this candidate's holder identity, unique among the candidates (e.g. the
   *   pod name plus a random suffix).
   */
  constructor(
    clientset: Pick<Clientset, "coordinationV1">,
    namespace: string,
    name: string,
    identity: string,
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
        metadata: { name: this.name, namespace: this.namespace },
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
    const lease = await this.#leases().update(
      { ...last, spec: specOf(record, last.spec) },
      signal !== undefined ? { signal } : {},
    );
    return this.#remember(lease);
  }

  #leases(): CoordinationV1LeasesClient {
    return this.#clientset.coordinationV1.leases(this.namespace);
  }

  #remember(lease: Lease): ObservedLeaderElectionRecord {
    this.#lease = lease;
    return { record: recordOf(lease.spec), version: lease.metadata?.resourceVersion ?? "" };
  }
}
