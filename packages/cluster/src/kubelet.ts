import type { ObjectReference, Pod } from "kubernetes-types/core/v1.js";
import { deepEqual } from "kubekit/apimachinery";
import {
  Controller,
  isConflict,
  isNotFound,
  resourceVersionObserved,
  type Predicate,
  type ReconcileResult,
  type Runnable,
} from "kubekit";
import type { ClusterContext } from "./cluster-context.js";
import { simulatedOutput } from "./container-output.js";
import {
  PodRuntime,
  type PodRuntimeHooks,
  type SimulatedContainer,
} from "./kubelet-pod-runtime.js";
import { projectPodStatus } from "./kubelet-pod-status.js";
import { nodeInternalIp, podCidrOf } from "./node-registration.js";
import { PodIpAllocator } from "./pod-ip-allocator.js";
import { isPodTerminated } from "./pod-state.js";

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
 * - Events `Pulled`, `Created`, `Started` per container start, and what the container
 *   prints appended to its log (the `log` simulation annotation, else
 *   {@link simulatedOutput});
 * - run-to-completion and failing containers as the simulation annotations say, restarts by
 *   `restartPolicy` with the crash-loop back-off (Warning `BackOff`), phase `Succeeded` or
 *   `Failed` once done;
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
 * (`restartPolicy: Always`) are treated as ordinary init containers; a restarted container's
 * output is appended to the same log (there is no `--previous` instance).
 */
export function kubelet(ctx: ClusterContext): Runnable {
  const pods = ctx.factory.coreV1.pods();
  const client = ctx.clientset("kubelet");
  const recorder = ctx.recorder("kubelet", "kubelet");
  const kubernetesMinor = Number.parseInt(ctx.settings.kubernetesMinor, 10) || 0;
  const nodes = new Map<string, SimulatedNode>(
    ctx.settings.nodeNames.map((name, index) => [
      name,
      { hostIp: nodeInternalIp(index), podIps: new PodIpAllocator(podCidrOf(index)) },
    ]),
  );
  const tracked = new Map<string, TrackedPod>();

  const onSimulatedNode = (pod: Pod): boolean => nodes.has(pod.spec?.nodeName ?? "");
  const boundHere: Predicate<Pod> = {
    create: onSimulatedNode,
    update: (_oldPod, newPod) => onSimulatedNode(newPod),
    delete: onSimulatedNode,
  };

  const releaseIp = (entry: TrackedPod): void => {
    if (entry.ipReleased) return;
    entry.ipReleased = true;
    entry.node.podIps.release(entry.runtime.podIp);
  };

  const forget = (key: string): void => {
    const entry = tracked.get(key);
    if (entry === undefined) return;
    releaseIp(entry);
    tracked.delete(key);
  };

  /** Events about one container of `pod`, with kube's field path. */
  const hooksFor = (pod: Pod): PodRuntimeHooks => {
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const reference = (c: SimulatedContainer): ObjectReference => ({
      apiVersion: "v1",
      kind: "Pod",
      namespace,
      name,
      ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      fieldPath: `spec.${c.init ? "initContainers" : "containers"}{${c.spec.name}}`,
    });
    return {
      // `pkg/kubelet/images/image_manager.go` and `pkg/kubelet/kuberuntime/kuberuntime_container.go` startContainer.
      started: (c) => {
        const ref = reference(c);
        recorder.event(
          ref,
          "Normal",
          "Pulled",
          `Container image "${c.spec.image ?? ""}" already present on machine`,
        );
        recorder.event(ref, "Normal", "Created", `Created container: ${c.spec.name}`);
        recorder.event(ref, "Normal", "Started", `Started container ${c.spec.name}`);
        const lines = c.behaviour.log ?? simulatedOutput(c.spec).join("\n");
        if (lines !== "") ctx.appendContainerLog(namespace, name, c.spec.name, lines);
      },
      // `pkg/kubelet/kuberuntime/kuberuntime_manager.go` doBackOff.
      backOff: (c) =>
        recorder.event(
          reference(c),
          "Warning",
          "BackOff",
          `Back-off restarting failed container ${c.spec.name} in pod ${name}_${namespace}(${pod.metadata?.uid ?? ""})`,
        ),
      // `pkg/kubelet/kuberuntime/kuberuntime_container.go` killContainer.
      killing: (c) =>
        recorder.event(reference(c), "Normal", "Killing", `Stopping container ${c.spec.name}`),
    };
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const cached = pods.informer.indexer.getByKey(key);
    let entry = tracked.get(key);
    if (cached === undefined || !onSimulatedNode(cached)) {
      forget(key);
      return;
    }
    if (entry !== undefined && entry.runtime.uid !== cached.metadata?.uid) {
      forget(key); // recreated under the same name: a new pod
      entry = undefined;
    }
    // Read-your-writes: until the cache has caught up with the last status write, that write
    // is the freshest copy of the pod.
    const written = entry?.written;
    const pod =
      written !== undefined &&
      !resourceVersionObserved(
        cached.metadata?.resourceVersion ?? "",
        written.metadata?.resourceVersion ?? "",
      )
        ? written
        : cached;
    const now = ctx.clock.now();
    if (entry === undefined) {
      // Already over (e.g. finished before this kubelet started): nothing to run.
      if (isPodTerminated(pod)) return;
      const node = nodes.get(pod.spec?.nodeName ?? "");
      if (node === undefined) return;
      const known = pod.status?.podIP;
      if (known !== undefined && known !== "") node.podIps.reserve(known);
      const podIp = known !== undefined && known !== "" ? known : node.podIps.allocate();
      entry = {
        runtime: new PodRuntime(pod, podIp, now, ctx.settings),
        node,
        written: undefined,
        ipReleased: false,
      };
      tracked.set(key, entry);
    }
    const { runtime } = entry;
    const hooks = hooksFor(pod);
    const deletionTimestamp = pod.metadata?.deletionTimestamp;
    if (deletionTimestamp !== undefined) {
      runtime.beginTermination(now, Date.parse(deletionTimestamp), hooks);
    }
    const wakeAt = runtime.advance(now, hooks);
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const podClient = client.coreV1.pods(namespace);
    const status = projectPodStatus(runtime, pod, now, {
      hostIp: entry.node.hostIp,
      kubernetesMinor,
    });
    if (!deepEqual(status, pod.status)) {
      try {
        entry.written = await podClient.updateStatus({ ...pod, status }, { signal });
      } catch (err) {
        if (isNotFound(err)) {
          forget(key);
          return;
        }
        // Someone else wrote the pod meanwhile: its watch event brings the key back at once
        // and the status is recomputed from the newer pod (the runtime kept its state); the
        // requeue with back-off only matters if no newer pod ever arrives. Quietly.
        if (isConflict(err)) return { requeue: true };
        throw err;
      }
    }
    if (runtime.finished) releaseIp(entry);
    if (deletionTimestamp !== undefined && runtime.finished) {
      try {
        await podClient.delete(name, {
          gracePeriodSeconds: 0,
          preconditions: { uid: runtime.uid },
          signal,
        });
      } catch (err) {
        // Gone already, or a new pod under the name: nothing left to remove.
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      forget(key);
      return;
    }
    if (wakeAt === undefined) return;
    // Measured from the clock now, not from the start of this sync: the writes above took
    // time (on a FakeClock, a test may have advanced it meanwhile), and the wake-up is an
    // absolute time of the simulation.
    const remainingMs = Math.ceil(wakeAt - ctx.clock.now());
    if (remainingMs > 0) return { requeueAfterMs: remainingMs };
    controller.enqueue(key); // already due: sync again once this one is done
  };

  const controller = new Controller({
    name: "kubelet",
    workers: KUBELET_WORKERS,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(pods.informer, { predicates: [boundHere] });
  return controller;
}
