/**
 * The cluster benchmark at kwok's scale (issue 24): 1,000 Nodes and 1,000 Deployments of 100
 * replicas (100k pods) on `startCluster({ server, nodes: 1000 })`, from creating the
 * Deployments until every pod is Running and Ready and every Deployment reports its replicas
 * available, against the floor: the same pods created, bound (round-robin over the 1,000
 * node names) and made Ready by one client, 32 at a time, on a server without the cluster.
 * One round of each, the floor first, each on a fresh server in the process that runs it
 * (`cluster-scale-host.ts`, forked by `cluster-scale-process.ts`); the figures
 * are wall and CPU time per pod, the peak RSS and heap of the process, and the machine's
 * load at the start and the end of each round.
 */
import { loadavg } from "node:os";
import { cpuUsage, memoryUsage } from "node:process";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { type JsonObject, Clientset, PatchTypes } from "kubekit";
import { ApiServer } from "@kubekit/apiserver";
import { startCluster } from "@kubekit/cluster";

/** The simulated Nodes (kwok's demonstrations run 1,000 and more). */
export const SCALE_NODES = 1000;
/** Replicas of each Deployment. */
export const SCALE_REPLICAS = 100;
const NAMESPACE = "scale";
const FLOOR_CONCURRENCY = 32;
/** Deployments created at once (the creates are few; the pods are the work). */
const CREATE_CONCURRENCY = 16;
const PROGRESS_EVERY_MS = 30_000;

/** One measured round at scale. */
export interface ScaleSample {
  readonly pods: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssBytes: number;
  readonly peakHeapUsedBytes: number;
  readonly loadavgAtStart: readonly number[];
  readonly loadavgAtEnd: readonly number[];
  /** Cluster only: how long registering the Nodes and starting the components took. */
  readonly clusterStartMs?: number;
}

/** The sample as the results file stores it. */
export function scaleSampleJson(s: ScaleSample): JsonObject {
  return { ...s, loadavgAtStart: [...s.loadavgAtStart], loadavgAtEnd: [...s.loadavgAtEnd] };
}

function isReady(pod: Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true &&
    pod.metadata?.deletionTimestamp === undefined
  );
}

/** Resolves once `count` pods of the namespace are Ready, as a watch from the start sees them. */
async function readyPods(
  cs: Clientset,
  count: number,
  signal: AbortSignal,
  progress: (ready: number) => void,
): Promise<void> {
  const ready = new Set<string>();
  let lastReport = performance.now();
  for await (const event of cs.coreV1.pods(NAMESPACE).watch({ resourceVersion: "0", signal })) {
    if (event.type !== "ADDED" && event.type !== "MODIFIED" && event.type !== "DELETED") continue;
    const name = event.object.metadata?.name ?? "";
    if (event.type !== "DELETED" && isReady(event.object)) ready.add(name);
    else ready.delete(name);
    if (ready.size >= count) return;
    if (performance.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = performance.now();
      progress(ready.size);
    }
  }
  throw new Error("the pod watch ended before every pod was Ready");
}

/** Resolves once every Deployment of the namespace reports all its replicas available. */
async function deploymentsAvailable(
  cs: Clientset,
  count: number,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    const list = await cs.appsV1.deployments(NAMESPACE).list({ signal });
    const available = list.items.filter(
      (d) => (d.status?.availableReplicas ?? 0) >= SCALE_REPLICAS,
    ).length;
    if (available >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Runs `task(index)` for 0 … count-1, `concurrency` at a time. */
async function forEachConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Samples the process's RSS and heap every 250 ms until stopped; returns the peaks. */
function memoryPeaks(): () => { rss: number; heapUsed: number } {
  const peak = { rss: 0, heapUsed: 0 };
  const sample = (): void => {
    const m = memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  };
  sample();
  const timer = setInterval(sample, 250);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

/** What a round runs once its server (and cluster) is up: the work, and its completion. */
interface RoundWork {
  work(cs: Clientset): Promise<void>;
  done(cs: Clientset, signal: AbortSignal): Promise<void>;
}

/** Times one round on a fresh server, the cluster started first when `cluster`. */
async function scaleRound(
  cluster: boolean,
  pods: number,
  timeoutMs: number,
  signal: AbortSignal,
  round: RoundWork,
): Promise<ScaleSample> {
  const server = await ApiServer.start();
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  signal.addEventListener("abort", abort, { once: true });
  const timer = setTimeout(abort, timeoutMs);
  try {
    const clusterStart = performance.now();
    if (cluster) await startCluster({ server, nodes: SCALE_NODES });
    const clusterStartMs = performance.now() - clusterStart;
    const cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: NAMESPACE } });
    const loadavgAtStart = loadavg();
    const peaks = memoryPeaks();
    const cpu = cpuUsage();
    const start = performance.now();
    const finished = round.done(cs, stop.signal);
    // If `work` fails, the stop below rejects `finished` too: that is not a second failure.
    finished.catch(() => undefined);
    await round.work(cs);
    await finished;
    const wallMs = performance.now() - start;
    const used = cpuUsage(cpu);
    const peak = peaks();
    if (stop.signal.aborted) throw new Error(`round did not finish (${pods} pods)`);
    return {
      pods,
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      peakRssBytes: peak.rss,
      peakHeapUsedBytes: peak.heapUsed,
      loadavgAtStart,
      loadavgAtEnd: loadavg(),
      ...(cluster ? { clusterStartMs } : {}),
    };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", abort);
    stop.abort();
    await server.stop();
  }
}

function deployment(index: number): Deployment {
  const app = `web-${index}`;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: app, namespace: NAMESPACE },
    spec: {
      replicas: SCALE_REPLICAS,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
      },
    },
  };
}

/** The cluster side: `deployments` Deployments on 1,000 simulated Nodes, until all are available. */
export function clusterAtScale(
  deployments: number,
  timeoutMs: number,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<ScaleSample> {
  const pods = deployments * SCALE_REPLICAS;
  return scaleRound(true, pods, timeoutMs, signal, {
    work: (cs) =>
      forEachConcurrently(deployments, CREATE_CONCURRENCY, async (i) => {
        await cs.appsV1.deployments(NAMESPACE).create(deployment(i));
      }),
    done: async (cs, stop) => {
      const start = performance.now();
      await readyPods(cs, pods, stop, (ready) =>
        log(
          `  cluster: ${ready}/${pods} pods Ready after ${((performance.now() - start) / 1000).toFixed(0)} s`,
        ),
      );
      await deploymentsAvailable(cs, deployments, stop);
    },
  });
}

/** The pod IP of the `index`th floor pod: on its node's `/24` as the kubelet would give it. */
function floorPodIp(index: number): string {
  const block = (index % SCALE_NODES) + 1;
  const host = Math.floor(index / SCALE_NODES) + 2;
  return `10.${244 + Math.floor(block / 256)}.${block % 256}.${host}`;
}

/** The floor: the same pods created, bound and made Ready by one client, 32 at a time. */
export function floorAtScale(
  deployments: number,
  timeoutMs: number,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<ScaleSample> {
  const pods = deployments * SCALE_REPLICAS;
  return scaleRound(false, pods, timeoutMs, signal, {
    work: (cs) => {
      const client = cs.coreV1.pods(NAMESPACE);
      return forEachConcurrently(pods, FLOOR_CONCURRENCY, async (index) => {
        const name = `web-${Math.floor(index / SCALE_REPLICAS)}-${index % SCALE_REPLICAS}`;
        await client.create({
          metadata: { name, labels: { app: `web-${Math.floor(index / SCALE_REPLICAS)}` } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
        });
        await client.bind(name, `kubekit-node-${(index % SCALE_NODES) + 1}`);
        const now = new Date().toISOString();
        await client.patch(
          name,
          PatchTypes.merge,
          {
            status: {
              phase: "Running",
              podIP: floorPodIp(index),
              startTime: now,
              conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map(
                (type) => ({ type, status: "True", lastTransitionTime: now }),
              ),
            },
          },
          { subresource: "status" },
        );
      });
    },
    done: (cs, stop) => {
      const start = performance.now();
      return readyPods(cs, pods, stop, (ready) =>
        log(
          `  floor: ${ready}/${pods} pods Ready after ${((performance.now() - start) / 1000).toFixed(0)} s`,
        ),
      );
    },
  });
}
