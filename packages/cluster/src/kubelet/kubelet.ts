import type { Pod, PodStatus } from "kubernetes-types/core/v1.js";
import { deepEqual, nameOf, namespaceOf, resourceVersionOf } from "kubekit/apimachinery";
import {
  Controller,
  isConflict,
  isNotFound,
  resourceVersionObserved,
  type Clientset,
  type CoreV1PodLister,
  type EventRecorder,
  type JsonObject,
  type Predicate,
  type ReconcileResult,
  type ResourceInformer,
  type Runnable,
} from "kubekit";
import { normalizeBuiltinObject } from "@kubekit/apiserver";
import type { ClusterContext } from "../cluster-context.js";
import { containerEventHooks } from "./container-events.js";
import { PodRuntime, type PodRuntimeHooks } from "./kubelet-pod-runtime.js";
import { simulatedOutput } from "./container-output.js";
import { projectPodStatus } from "./kubelet-pod-status.js";
import { nodeInternalIp, podCidrOf } from "../nodes/node-registration.js";
import { PodIpAllocator } from "./pod-ip-allocator.js";
import { isPodTerminated } from "../controller-support/pod-state.js";

/** Concurrent pod syncs (the kubelet runs one pod worker per pod). */
const KUBELET_WORKERS = 16;

/** One simulated node's kubelet state: its InternalIP and its pod IP pool. */
interface SimulatedNode {
  readonly hostIp: string;
  readonly podIps: PodIpAllocator;
}

/** A pod the kubelet runs. */
interface TrackedPod {
  readonly runtime: PodRuntime;
  readonly node: SimulatedNode;
  /** The pod as the kubelet's last status write returned it (newer than the cache for a while). */
  written: Pod | undefined;
  /** Whether the pod IP went back to the pool (the sandbox is gone). */
  ipReleased: boolean;
  /** Stops the running process of each container, by container name. */
  readonly processes: Map<string, AbortController>;
}

/**
 * The kubelets of the simulated Nodes (`pkg/kubelet`), as one controller over the pods bound
 * to any of the cluster's nodes (`ctx.settings.nodeNames`; pods bound to other node names
 * are left alone). Each pod is run by a {@link PodRuntime} on the cluster clock and its
 * status written as kube's kubelet writes it:
 *
 * - after binding: `Pending` with PodScheduled, Initialized (once the init containers ran to
 *   completion, in order) and containers `waiting` (ContainerCreating) for `containerStartMs`;
 * - then `Running`: host and pod IPs (from the node's pod CIDR), start time, QoS class,
 *   container statuses (image, imageID, containerID, started, ready, restartCount, state);
 *   ContainersReady and Ready once `readinessDelayMs` (plus a readiness probe's
 *   `initialDelaySeconds`) has passed — at once, in the same write, when both are 0;
 * - Events `Pulled`, `Created`, `Started` per container start; each started container runs
 *   its command as a process in the API server's built-in userland
 *   (`ClusterContext.startContainerProcess`: output to its log, on the clock), and exits when
 *   the process does, with its exit status; without one (a server by kubeconfig, or an
 *   executable the userland lacks) it prints its `log` annotation or {@link simulatedOutput}
 *   and behaves as its annotations and defaults say (`container-behaviour.ts`);
 * - the exit-code and run-ms simulation annotations override the process's exit; restarts by
 *   `restartPolicy` with the crash-loop back-off (Warning `BackOff`), phase `Succeeded` or
 *   `Failed` once done; ephemeral containers start once added and never restart;
 * - graceful deletion: `Killing` per running container, the final status (containers
 *   terminated, Ready False), then DELETE with `gracePeriodSeconds: 0` and a UID precondition.
 *
 * Guarantees: one status write per observable transition (the whole status via
 * `updateStatus`, skipped when nothing changed); every delay is a `requeueAfterMs` on the
 * clock; after a 409 Conflict the pod is synced again as soon as its newer version reaches
 * the cache.
 *
 * Caveats: the kubelet does not watch its Node object: pods of a deleted Node keep running
 * (kube's pod garbage collector, which would delete them, is not simulated); no probes are
 * run (readiness is the delays above), no image pulls (every image is "already present"), no
 * volumes, no resource accounting, no `activeDeadlineSeconds`; sidecar init containers
 * (`restartPolicy: Always`) are treated as ordinary init containers.
 */
export function kubelet(ctx: ClusterContext): Runnable {
  return new Kubelet(ctx).controller;
}

/** The kubelets' state and the steps of one pod's sync (`pkg/kubelet/kubelet.go` SyncPod). */
class Kubelet {
  readonly controller: Controller;
  readonly #ctx: ClusterContext;
  readonly #pods: ResourceInformer<Pod, CoreV1PodLister>;
  readonly #client: Clientset;
  readonly #recorder: EventRecorder;
  readonly #kubernetesMinor: number;
  readonly #nodes: Map<string, SimulatedNode>;
  readonly #tracked = new Map<string, TrackedPod>();

  constructor(ctx: ClusterContext) {
    this.#ctx = ctx;
    this.#pods = ctx.factory.coreV1.pods();
    this.#client = ctx.clientset("kubelet");
    this.#recorder = ctx.recorder("kubelet", "kubelet");
    this.#kubernetesMinor = Number.parseInt(ctx.settings.kubernetesMinor, 10) || 0;
    this.#nodes = new Map(
      ctx.settings.nodeNames.map((name, index) => [
        name,
        { hostIp: nodeInternalIp(index), podIps: new PodIpAllocator(podCidrOf(index)) },
      ]),
    );
    const onSimulatedNode = (pod: Pod): boolean => this.#onSimulatedNode(pod);
    const boundHere: Predicate<Pod> = {
      create: onSimulatedNode,
      update: (_oldPod, newPod) => onSimulatedNode(newPod),
      delete: onSimulatedNode,
    };
    this.controller = new Controller({
      name: "kubelet",
      workers: KUBELET_WORKERS,
      reconcile: (key, signal) => this.#syncPod(key, signal),
      clock: ctx.clock,
      logger: ctx.logger,
    });
    this.controller.watch(this.#pods.informer, { predicates: [boundHere] });
  }

  #onSimulatedNode(pod: Pod): boolean {
    return this.#nodes.has(pod.spec?.nodeName ?? "");
  }

  /**
   * Syncs the pod of `key`: runs its containers up to the clock's time, writes the status they
   * project, removes the pod once its graceful deletion is over, and wakes at the next
   * transition.
   */
  async #syncPod(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const cached = this.#pods.informer.indexer.getByKey(key);
    if (cached === undefined || !this.#onSimulatedNode(cached)) {
      this.#forget(key);
      return;
    }
    const known = this.#tracked.get(key);
    if (known !== undefined && known.runtime.uid !== cached.metadata?.uid) {
      this.#forget(key); // recreated under the same name: a new pod
    }
    const pod = freshestPod(cached, this.#tracked.get(key)?.written);
    const now = this.#ctx.clock.now();
    const entry = this.#tracked.get(key) ?? this.#admit(key, pod, now);
    if (entry === undefined) return;
    const { runtime } = entry;
    const hooks = this.#hooks(key, entry, pod);
    const wakeAt = runtime.sync(pod, now, hooks);
    const status = projectPodStatus(runtime, pod, now, {
      hostIp: entry.node.hostIp,
      kubernetesMinor: this.#kubernetesMinor,
    });
    if (!sameStatus(status, pod.status)) {
      const outcome = await this.#writeStatus(key, entry, pod, status, signal);
      if (outcome !== "written") return outcome === "gone" ? undefined : outcome;
    }
    if (runtime.finished) this.#releaseIp(entry);
    if (pod.metadata?.deletionTimestamp !== undefined && runtime.finished) {
      await this.#removePod(pod, runtime.uid, signal);
      this.#forget(key);
      return;
    }
    return this.#wakeAt(key, wakeAt);
  }

  /**
   * The runtime's hooks for a sync of `pod`: Events, and each started container's command run
   * as a process (`ClusterContext.startContainerProcess`) whose exit the runtime learns of;
   * without one, what the container prints is its `log` annotation, else
   * {@link simulatedOutput}.
   */
  #hooks(key: string, entry: TrackedPod, pod: Pod): PodRuntimeHooks {
    const events = containerEventHooks(pod, this.#recorder);
    const namespace = namespaceOf(pod);
    const podName = nameOf(pod);
    return {
      ...events,
      run: (c) => {
        const stop = new AbortController();
        entry.processes.get(c.spec.name)?.abort();
        const process = this.#ctx.startContainerProcess?.({
          pod: {
            ...pod,
            status: { ...pod.status, podIP: entry.runtime.podIp, hostIP: entry.node.hostIp },
          } as unknown as JsonObject,
          container: c.spec.name,
          restart: c.restartCount > 0,
          signal: stop.signal,
          ...(c.behaviour.log !== undefined ? { log: c.behaviour.log } : {}),
        });
        if (process === undefined) {
          const lines = c.behaviour.log ?? simulatedOutput(c.spec).join("\n");
          if (lines !== "") this.#ctx.appendContainerLog(namespace, podName, c.spec.name, lines);
          return false;
        }
        entry.processes.set(c.spec.name, stop);
        const containerId = c.containerId ?? "";
        void process.exited.then((exitCode) => {
          if (entry.processes.get(c.spec.name) === stop) entry.processes.delete(c.spec.name);
          if (stop.signal.aborted) return; // stopped by the kubelet: the runtime decided already
          entry.runtime.processExited(containerId, exitCode, this.#ctx.clock.now());
          this.controller.enqueue(key);
        });
        return true;
      },
      exited: (c) => {
        entry.processes.get(c.spec.name)?.abort();
        entry.processes.delete(c.spec.name);
      },
    };
  }

  /**
   * Starts running a pod the kubelet sees for the first time, on its node, with its pod IP
   * (the one it has, else a new one from the node's pool); undefined when there is nothing to
   * run (the pod finished before this kubelet started, or its node is not simulated).
   */
  #admit(key: string, pod: Pod, nowMs: number): TrackedPod | undefined {
    if (isPodTerminated(pod)) return undefined;
    const node = this.#nodes.get(pod.spec?.nodeName ?? "");
    if (node === undefined) return undefined;
    const known = pod.status?.podIP;
    if (known !== undefined && known !== "") node.podIps.reserve(known);
    const podIp = known !== undefined && known !== "" ? known : node.podIps.allocate();
    const entry: TrackedPod = {
      runtime: new PodRuntime(pod, podIp, nowMs, this.#ctx.settings),
      node,
      written: undefined,
      ipReleased: false,
      processes: new Map(),
    };
    this.#tracked.set(key, entry);
    return entry;
  }

  /**
   * Writes the pod's status (`pkg/kubelet/status/status_manager.go` syncPod); "gone" when the
   * pod no longer exists (forgotten), a requeue after a 409 Conflict.
   */
  async #writeStatus(
    key: string,
    entry: TrackedPod,
    pod: Pod,
    status: PodStatus,
    signal: AbortSignal,
  ): Promise<"written" | "gone" | ReconcileResult> {
    try {
      const podClient = this.#client.coreV1.pods(namespaceOf(pod));
      entry.written = await podClient.updateStatus({ ...pod, status }, { signal });
      return "written";
    } catch (err) {
      if (isNotFound(err)) {
        this.#forget(key);
        return "gone";
      }
      // Someone else wrote the pod meanwhile: its watch event brings the key back at once
      // and the status is recomputed from the newer pod (the runtime kept its state); the
      // requeue with back-off only matters if no newer pod ever arrives. Quietly.
      if (isConflict(err)) return { requeue: true };
      throw err;
    }
  }

  /** Deletes a pod whose graceful deletion is over: grace period 0, the pod's UID as precondition. */
  async #removePod(pod: Pod, uid: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#client.coreV1.pods(namespaceOf(pod)).delete(nameOf(pod), {
        gracePeriodSeconds: 0,
        preconditions: { uid },
        signal,
      });
    } catch (err) {
      // Gone already, or a new pod under the name: nothing left to remove.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  /** When to sync the pod of `key` again for its next transition at `wakeAt`, if any. */
  #wakeAt(key: string, wakeAt: number | undefined): ReconcileResult | void {
    if (wakeAt === undefined) return;
    // Measured from the clock now, not from the start of this sync: the writes above took
    // time (on a FakeClock, a test may have advanced it meanwhile), and the wake-up is an
    // absolute time of the simulation.
    const remainingMs = Math.ceil(wakeAt - this.#ctx.clock.now());
    if (remainingMs > 0) return { requeueAfterMs: remainingMs };
    this.controller.enqueue(key); // already due: sync again once this one is done
  }

  #releaseIp(entry: TrackedPod): void {
    if (entry.ipReleased) return;
    entry.ipReleased = true;
    entry.node.podIps.release(entry.runtime.podIp);
  }

  #forget(key: string): void {
    const entry = this.#tracked.get(key);
    if (entry === undefined) return;
    for (const stop of entry.processes.values()) stop.abort();
    entry.processes.clear();
    this.#releaseIp(entry);
    this.#tracked.delete(key);
  }
}

/**
 * Whether the status computed by a sync is the one the pod has: both as the server stores a
 * Pod (with the fields Go always encodes, which the server's copy carries and a computed one
 * leaves out), so a sync that changes nothing writes nothing.
 */
function sameStatus(computed: PodStatus, current: PodStatus | undefined): boolean {
  const asStored = (status: PodStatus | undefined): unknown =>
    normalizeBuiltinObject({
      apiVersion: "v1",
      kind: "Pod",
      ...(status !== undefined ? { status: status as JsonObject } : {}),
    })["status"];
  return deepEqual(asStored(computed), asStored(current));
}

/**
 * Read-your-writes: until the cache has caught up with the kubelet's last status write, that
 * write is the freshest copy of the pod.
 */
function freshestPod(cached: Pod, written: Pod | undefined): Pod {
  if (written === undefined) return cached;
  const observed = resourceVersionObserved(
    resourceVersionOf(cached) ?? "",
    resourceVersionOf(written) ?? "",
  );
  return observed ? cached : written;
}
