import type { Pod } from "kubernetes-types/core/v1.js";
import {
  deletionHandlingKey,
  type DeletedFinalStateUnknown,
  type ResourceEventHandler,
} from "kubekit";
import { isPodTerminated } from "../controller-support/pod-state.js";

/** How many pods a node holds, as the scheduler counts them (live over {@link SchedulerCache.loadOf}). */
export interface NodeLoad {
  /** Live pods the informer shows bound to the node. */
  readonly bound: number;
  /** Bindings to the node sent but not shown by the informer yet. */
  readonly assumed: number;
}

/** A node's counts, as the cache updates them. */
interface MutableNodeLoad {
  bound: number;
  assumed: number;
}

/** A pod whose binding was sent but is not in the cache yet (kube-scheduler's "assumed" pods). */
interface Assumption {
  readonly uid: string;
  readonly node: string;
}

/**
 * The scheduler's view of how many pods each node holds (`pkg/scheduler/backend/cache/cache.go`):
 * the live pods the pod informer shows bound to it, plus the pods the scheduler has sent a
 * binding for that the informer has not shown bound yet ("assumed"). Kept up to date by the
 * informer's notifications ({@link handler}), so the count of a node is one read and
 * choosing a node costs O(nodes), however many pods or bindings are in flight.
 *
 * Guarantees: a pod counts on at most one node at a time; when the informer shows an assumed
 * pod bound (or gone, or replaced by a new pod of the same name) the assumption is dropped in
 * the same step that counts the bound pod, so concurrent decisions never see it twice or
 * not at all. Counts follow the notifications, which arrive just after the informer's cache
 * is updated. Live: bound and not `Succeeded`/`Failed` (a pod being deleted still counts).
 * Caveat: the counts of a node name stay allocated once seen (a few numbers per node).
 */
export class SchedulerCache {
  /** The node each counted pod counts on, by pod key. */
  readonly #countedOn = new Map<string, string>();
  /** The counts of each node, by name. */
  readonly #loads = new Map<string, MutableNodeLoad>();
  /** Bindings in flight, by pod key. */
  readonly #assumed = new Map<string, Assumption>();

  /** The pod informer's handler that keeps the counts (register it before the informer runs). */
  readonly handler: ResourceEventHandler<Pod> = {
    onAdd: (pod) => this.#observe(deletionHandlingKey(pod), pod),
    onUpdate: (_old, pod) => this.#observe(deletionHandlingKey(pod), pod),
    onDelete: (pod: Pod | DeletedFinalStateUnknown<Pod>) =>
      this.#observe(deletionHandlingKey(pod), undefined),
  };

  /** The counts of `node`, a live view the cache keeps updating (hold it to skip the lookup). */
  loadOf(node: string): NodeLoad {
    return this.#load(node);
  }

  /** Whether a binding of the pod `key` with this `uid` is in flight. */
  isAssumed(key: string, uid: string): boolean {
    return this.#assumed.get(key)?.uid === uid;
  }

  /** Counts the pod `key` on `node` until the informer shows it bound (or {@link forget}). */
  assume(key: string, uid: string, node: string): void {
    this.forget(key);
    this.#assumed.set(key, { uid, node });
    this.#load(node).assumed++;
  }

  /** Drops the assumption of the pod `key` (its binding failed), if any. */
  forget(key: string): void {
    const assumption = this.#assumed.get(key);
    if (assumption === undefined) return;
    this.#assumed.delete(key);
    this.#load(assumption.node).assumed--;
  }

  #load(node: string): MutableNodeLoad {
    let load = this.#loads.get(node);
    if (load === undefined) {
      load = { bound: 0, assumed: 0 };
      this.#loads.set(node, load);
    }
    return load;
  }

  /** The pod `key` as the informer now shows it (`undefined`: deleted). */
  #observe(key: string, pod: Pod | undefined): void {
    const nodeName = pod?.spec?.nodeName ?? "";
    const countsOn = pod !== undefined && nodeName !== "" && !isPodTerminated(pod);
    const before = this.#countedOn.get(key);
    const after = countsOn ? nodeName : undefined;
    if (before !== after) {
      if (before !== undefined) this.#load(before).bound--;
      if (after !== undefined) {
        this.#load(after).bound++;
        this.#countedOn.set(key, after);
      } else this.#countedOn.delete(key);
    }
    const assumption = this.#assumed.get(key);
    if (
      assumption !== undefined &&
      (pod === undefined || nodeName !== "" || pod.metadata?.uid !== assumption.uid)
    ) {
      this.forget(key);
    }
  }
}
