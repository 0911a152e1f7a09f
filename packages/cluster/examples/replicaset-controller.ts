/**
 * A ReplicaSet-style controller written with kubekit as any user would write one: it keeps
 * `spec.replicas` pods for every ReplicaSet, each pod owned by its ReplicaSet through a
 * controller ownerReference. The whole flow of client-go's machinery:
 *
 *   API server --list/watch--> Reflector --> FIFO --> Indexer --> handler --key--> workqueue
 *   --> worker: read the listers (the local cache) --> create or delete pods on the API server
 *
 * Built with the Manager's controller builder (`for` ReplicaSets, `owns` pods: the informers
 * come from the Manager's cache, started with it) and read with its cache-backed client.
 * Level-triggered: a worker receives a key (`namespace/name`), never an event, and compares
 * the ReplicaSet it finds in the cache with the pods it finds in the cache. "If the pod is
 * not found in the cache it was deleted", so the ReplicaSet has too few pods and the worker
 * creates a replacement. After its own writes it waits until the cache has observed them
 * (read-your-writes), so the next reconcile never counts stale pods (the role of client-go's
 * ReplicaSet "expectations").
 *
 * Caveat: against a real cluster, kube-controller-manager's own ReplicaSet controller manages
 * the same ReplicaSets; both converge to the same pods, but this one is a demonstration.
 */
import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  type Controller,
  type EventRecorder,
  type Logger,
  type Manager,
  type RateLimiter,
  controllerOf,
  generationChanged,
  isNotFound,
  setControllerReference,
  splitKey,
  waitForCacheToObserve,
} from "kubekit";

/** What one reconcile of a ReplicaSet did. */
export interface ReplicaSetReconcile {
  /** The ReplicaSet's key, `namespace/name`. */
  readonly key: string;
  /** `spec.replicas`, or undefined when the ReplicaSet is gone from the cache. */
  readonly desired: number | undefined;
  /** The live pods it owned in the cache when the reconcile started. */
  readonly found: number;
  /** Names of the pods created. */
  readonly created: readonly string[];
  /** Names of the pods deleted. */
  readonly deleted: readonly string[];
}

/** Options of {@link replicaSetController}. */
export interface ReplicaSetControllerOptions {
  /**
   * The Manager that runs the controller: its cache holds the ReplicaSets and pods (started
   * with it), its client reads them and writes pods, and its metrics get the controller's.
   */
  readonly manager: Manager;
  /** Concurrent workers (default 2); a key is never reconciled by two at once. */
  readonly workers?: number;
  /** The workqueue's rate limiter for failed reconciles (default: client-go's). */
  readonly rateLimiter?: RateLimiter<string>;
  readonly logger?: Logger;
  /** Called after each reconcile that completed (for narration and metrics). */
  readonly onReconciled?: (result: ReplicaSetReconcile) => void;
  /** How long a reconcile waits for the cache to observe its own writes (default 10 s). */
  readonly observeTimeoutMs?: number;
  /** Records `SuccessfulCreate` / `SuccessfulDelete` Events on the ReplicaSet, as kube's does. */
  readonly recorder?: EventRecorder;
}

const APPS_V1 = "apps/v1";

/** Whether the pod is live (not being deleted). */
function isLive(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp === undefined;
}

/** Newest first, then by name: the pods to delete first when scaling down. */
function newestFirst(a: Pod, b: Pod): number {
  const byTime = (b.metadata?.creationTimestamp ?? "").localeCompare(
    a.metadata?.creationTimestamp ?? "",
  );
  return byTime !== 0 ? byTime : (b.metadata?.name ?? "").localeCompare(a.metadata?.name ?? "");
}

/** A new pod from the ReplicaSet's template, owned by it. */
function podFor(rs: ReplicaSet): Pod {
  const template = rs.spec?.template;
  const pod: Pod = {
    metadata: {
      generateName: `${rs.metadata?.name}-`,
      namespace: rs.metadata?.namespace,
      labels: { ...template?.metadata?.labels },
    },
    spec: template?.spec ?? { containers: [] },
  };
  return setControllerReference(rs, pod, { apiVersion: APPS_V1, kind: "ReplicaSet" });
}

/**
 * Builds the controller and adds it to the manager: it watches ReplicaSets (spec changes
 * only: status writes do not change the generation) and the pods they own, and reconciles
 * each ReplicaSet by key. `manager.start(signal)` runs it once the caches have synced.
 */
export function replicaSetController(options: ReplicaSetControllerOptions): Controller {
  const { manager } = options;
  const client = manager.client;
  const podInformer = client.informer((i) => i.coreV1.pods());
  const observeTimeoutMs = options.observeTimeoutMs ?? 10_000;

  const reconcile = async (key: string, signal: AbortSignal): Promise<{ requeue: true } | void> => {
    const { namespace, name } = splitKey(key);
    const replicaSets = client.resource((i) => i.appsV1.replicaSets(), namespace);
    const pods = client.resource((i) => i.coreV1.pods(), namespace);
    let rs: ReplicaSet;
    try {
      rs = await replicaSets.get(name, { signal }); // from the cache: no request
    } catch (err) {
      // Gone: the garbage collector deletes its pods (they carry its ownerReference).
      if (!isNotFound(err)) throw err;
      options.onReconciled?.({ key, desired: undefined, found: 0, created: [], deleted: [] });
      return;
    }
    const owned = (await pods.list({ signal })).items.filter(
      (pod) => isLive(pod) && controllerOf(pod)?.uid === rs.metadata?.uid,
    );
    const desired = rs.spec?.replicas ?? 1;
    // Cached objects carry no apiVersion/kind (list items never do): name them for Events.
    const subject = { ...rs, apiVersion: APPS_V1, kind: "ReplicaSet" };
    const created: string[] = [];
    const deleted: string[] = [];
    // The newest resourceVersion this reconcile wrote: the cache must reach it before the
    // next reconcile of this key reads it.
    let lastWrite: string | undefined;
    for (let i = owned.length; i < desired; i++) {
      const pod = await pods.create(podFor(rs), { signal });
      created.push(pod.metadata?.name ?? "");
      options.recorder?.event(
        subject,
        "Normal",
        "SuccessfulCreate",
        `Created pod: ${pod.metadata?.name}`,
      );
      lastWrite = pod.metadata?.resourceVersion;
    }
    for (const pod of owned.sort(newestFirst).slice(0, Math.max(0, owned.length - desired))) {
      const name = pod.metadata?.name ?? "";
      try {
        const gone = await pods.delete(name, { signal });
        if (gone.kind === "Pod") lastWrite = gone.metadata?.resourceVersion;
      } catch (err) {
        if (!isNotFound(err)) throw err; // someone else deleted it: fine
      }
      deleted.push(name);
      options.recorder?.event(subject, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`);
    }
    const count = owned.length + created.length - deleted.length;
    if (
      rs.status?.replicas !== count ||
      rs.status?.observedGeneration !== rs.metadata?.generation
    ) {
      await replicaSets.patch(
        name,
        "application/merge-patch+json",
        { status: { replicas: count, observedGeneration: rs.metadata?.generation } },
        { subresource: "status", signal },
      );
    }
    options.onReconciled?.({ key, desired, found: owned.length, created, deleted });
    if (lastWrite !== undefined) {
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(observeTimeoutMs)]);
      if (!(await waitForCacheToObserve(podInformer, lastWrite, deadline))) {
        return { requeue: true };
      }
    }
  };

  return manager
    .controller("replicaset")
    .for((i) => i.appsV1.replicaSets(), { predicates: [generationChanged] })
    .owns((i) => i.coreV1.pods())
    .withOptions({
      workers: options.workers ?? 2,
      ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    })
    .complete(reconcile);
}
