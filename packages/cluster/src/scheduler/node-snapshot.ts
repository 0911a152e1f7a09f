import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { NodeLoad } from "./scheduler-cache.js";
import { nodeFitFailure } from "./scheduler-filters.js";

/** A pod with no tolerations, nodeSelector or node affinity: what {@link NodeEntry.plainFailure} answers for. */
const UNCONSTRAINED_POD: Pod = { spec: { containers: [] } };

/** One node of a {@link NodeSnapshot}. */
export interface NodeEntry {
  readonly node: Node;
  readonly name: string;
  /** The node's pod counts (live: the scheduler cache updates them). */
  readonly load: NodeLoad;
  /**
   * Why a pod without node constraints ({@link hasNodeConstraints} false) cannot run on the
   * node, or undefined when it can: such a pod's filters, computed once per node version.
   */
  readonly plainFailure: string | undefined;
}

/**
 * Whether the pod says anything about where it may run that the filters read: tolerations, a
 * nodeSelector or required node affinity. A pod without them fits a node exactly when
 * {@link NodeEntry.plainFailure} says so.
 */
export function hasNodeConstraints(pod: Pod): boolean {
  const spec = pod.spec;
  if (spec === undefined) return false;
  if ((spec.tolerations?.length ?? 0) > 0) return true;
  if (spec.nodeSelector !== undefined && Object.keys(spec.nodeSelector).length > 0) return true;
  return spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution !== undefined;
}

/**
 * The nodes as one scheduling decision sees them (`pkg/scheduler/backend/cache` Snapshot): in
 * natural order of their names (`kubekit-node-2` before `kubekit-node-10`, the tie-break
 * between nodes with as many pods), each with its live pod counts and its verdict for pods
 * without node constraints. Rebuilt (O(n log n)) only when the informer's node objects
 * changed; otherwise {@link update} costs one identity comparison per node.
 */
export class NodeSnapshot {
  static readonly #collator = new Intl.Collator("en", { numeric: true });
  readonly #loadOf: (name: string) => NodeLoad;
  #source: readonly Node[] = [];
  #entries: readonly NodeEntry[] = [];

  /** @param loadOf the live counts of a node, by name. */
  constructor(loadOf: (name: string) => NodeLoad) {
    this.#loadOf = loadOf;
  }

  /** The entries for the informer's current `nodes` (objects as the cache holds them). */
  update(nodes: readonly Node[]): readonly NodeEntry[] {
    if (!sameObjects(nodes, this.#source)) {
      this.#source = nodes;
      this.#entries = nodes
        .map((node) => {
          const name = nameOf(node);
          return {
            node,
            name,
            load: this.#loadOf(name),
            plainFailure: nodeFitFailure(UNCONSTRAINED_POD, node),
          };
        })
        .sort((a, b) => NodeSnapshot.#collator.compare(a.name, b.name));
    }
    return this.#entries;
  }
}

/** Whether both lists hold the same objects in the same order. */
function sameObjects(a: readonly Node[], b: readonly Node[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
