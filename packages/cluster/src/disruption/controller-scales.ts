import type { Pod } from "kubernetes-types/core/v1.js";
import { controllerOf, isNotFound, type Controller } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";

/** What the disruption controller reads of the pods' controllers. */
export interface ControllerScales {
  /**
   * `getExpectedScale`: the summed `spec.replicas` of the distinct controllers of `pods` (in
   * `namespace`); pods without a controller count nothing.
   *
   * @throws {Error} `found no controllers for pod "NAME"` when a controller is not in the
   *   caches or is not a Deployment (through its ReplicaSet), ReplicaSet, StatefulSet or
   *   ReplicationController (kube's finders).
   */
  readonly scaleOf: (namespace: string, pods: readonly Pod[]) => number;
  /**
   * Makes `controller` wait for the caches it reads (their events enqueue nothing: a scale
   * change reaches the budgets through the pods it creates or deletes, as in kube).
   */
  readonly watchCaches: (controller: Controller) => void;
}

/** The controllers' scale as kube's disruption controller finds it (`finders()`), from the shared caches. */
export function controllerScales(ctx: ClusterContext): ControllerScales {
  const replicaSets = ctx.factory.appsV1.replicaSets();
  const deployments = ctx.factory.appsV1.deployments();
  const statefulSets = ctx.factory.appsV1.statefulSets();
  const replicationControllers = ctx.factory.coreV1.replicationControllers();

  /** The scale of one controller reference, or undefined when the controller is unknown (kube's finders). */
  const scaleOfController = (namespace: string, pod: Pod): number | undefined => {
    const ref = controllerOf(pod);
    if (ref === undefined) return undefined;
    const group = ref.apiVersion.split("/").length > 1 ? ref.apiVersion.split("/")[0] : "";
    const found = <T extends { metadata?: { uid?: string } }>(
      get: () => T,
      uid = ref.uid,
    ): T | undefined => {
      try {
        const obj = get();
        return obj.metadata?.uid === uid ? obj : undefined;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    };
    if (group === "apps" && ref.kind === "ReplicaSet") {
      const rs = found(() => replicaSets.lister.replicaSets(namespace).get(ref.name));
      if (rs === undefined) return undefined;
      const owner = controllerOf(rs);
      if (owner?.kind !== "Deployment") return rs.spec?.replicas ?? 1;
      return found(() => deployments.lister.deployments(namespace).get(owner.name), owner.uid)?.spec
        ?.replicas;
    }
    if (group === "apps" && ref.kind === "StatefulSet") {
      return found(() => statefulSets.lister.statefulSets(namespace).get(ref.name))?.spec?.replicas;
    }
    if (group === "" && ref.kind === "ReplicationController") {
      return found(() =>
        replicationControllers.lister.replicationControllers(namespace).get(ref.name),
      )?.spec?.replicas;
    }
    return undefined;
  };

  /** `getExpectedScale`: the scale of every distinct controller of `matched`; unmanaged pods count nothing. */
  const scaleOf = (namespace: string, matched: readonly Pod[]): number => {
    const seen = new Set<string>();
    let total = 0;
    for (const pod of matched) {
      const ref = controllerOf(pod);
      if (ref === undefined || seen.has(ref.uid)) continue;
      const scale = scaleOfController(namespace, pod);
      if (scale === undefined) {
        throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name)}`);
      }
      seen.add(ref.uid);
      total += scale;
    }
    return total;
  };
  return {
    scaleOf,
    watchCaches: (controller) => {
      const none = (): string[] => [];
      controller.watch(replicaSets.informer, { map: none });
      controller.watch(deployments.informer, { map: none });
      controller.watch(statefulSets.informer, { map: none });
      controller.watch(replicationControllers.informer, { map: none });
    },
  };
}
