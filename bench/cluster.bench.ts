/**
 * The simulated cluster: the time from creating a 100-replica Deployment on
 * `startCluster({ server })` (3 nodes, every controller, no delays) until 100 of its
 * pods are Running and Ready and the Deployment reports them available, against the floor of
 * the same API work done by one client with nothing in between: 100 pod creates, 100
 * bindings and 100 status writes (the writes the ReplicaSet controller, the scheduler and the
 * kubelets must make), 32 at a time, on a server without the cluster.
 *
 * The difference is the control plane's cost: the Deployment and ReplicaSet reconciles and
 * their status writes, the informers' watch deliveries, the work queues, the Events. Both
 * sides detect completion the same way (a watch of the namespace's pods counting Ready ones,
 * plus a poll of the Deployment's status on the cluster side). One warm-up round of each,
 * then 7 rounds, the order alternating, each on a fresh server; figures are medians of wall
 * time (the whole cluster runs in this process, so its CPU time is wall time's upper bound
 * and is reported alongside).
 *
 * Goal (issue 12): report the time; there is no ratio target. `KUBEKIT_BENCH_SCALE` (default
 * 1) scales the replica count (at least 10).
 *
 * Then the cluster at kwok's scale (issue 24, `support/cluster-scale.ts`): 1,000 Nodes and
 * 1,000 Deployments × 100 replicas (100k pods) until every pod is Ready and every Deployment
 * available, against the floor of the same creates, bindings and status writes by one
 * client; one round of each; wall and CPU time per pod, peak memory, machine load. Target:
 * every pod Ready (`details.targets`, and "met" / "MISSED" in the table).
 * `KUBEKIT_BENCH_SCALE` scales the Deployment count (at least 1; 0.01 → 10 Deployments).
 */
import { cpuUsage } from "node:process";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { type JsonObject, Clientset, PatchTypes } from "kubekit";
import { ApiServer } from "@kubekit/apiserver";
import { startCluster } from "@kubekit/cluster";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
} from "./support/benchmark.js";
import { median } from "./support/timing.js";
import { runScaleRound } from "./support/cluster-scale-process.js";
import {
  SCALE_NODES,
  SCALE_REPLICAS,
  scaleSampleJson,
  type ScaleSample,
} from "./support/cluster-scale.js";

const ROUNDS = 7;
const ROUND_TIMEOUT_MS = 120_000;
const FLOOR_CONCURRENCY = 32;
const NAMESPACE = "bench";

/** How long one round at scale may take (100k pods on a loaded 2-core machine take long). */
const SCALE_ROUND_TIMEOUT_MS = 3 * 3600_000;
/** Deployments at scale 1 (× 100 replicas: 100k pods). */
const SCALE_DEPLOYMENTS = 1000;

function benchScale(): number {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  return scale;
}

function replicaCount(): number {
  return Math.max(10, Math.round(100 * benchScale()));
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function isReady(pod: Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true &&
    pod.metadata?.deletionTimestamp === undefined
  );
}

/** Resolves once `count` pods of the namespace are Ready, as a watch from the start sees them. */
async function readyPods(cs: Clientset, count: number, signal: AbortSignal): Promise<void> {
  const ready = new Set<string>();
  for await (const event of cs.coreV1.pods(NAMESPACE).watch({ resourceVersion: "0", signal })) {
    if (event.type !== "ADDED" && event.type !== "MODIFIED" && event.type !== "DELETED") continue;
    const name = event.object.metadata?.name ?? "";
    if (event.type !== "DELETED" && isReady(event.object)) ready.add(name);
    else ready.delete(name);
    if (ready.size >= count) return;
  }
  throw new Error("the pod watch ended before every pod was Ready");
}

/** Times `work` from its start until `done` resolves, on a fresh server of `cluster` kind. */
async function round(
  cluster: boolean,
  replicas: number,
  signal: AbortSignal,
  work: (cs: Clientset) => Promise<void>,
  done: (cs: Clientset, signal: AbortSignal) => Promise<void>,
): Promise<Sample> {
  const server = await ApiServer.start();
  if (cluster) await startCluster({ server });
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  signal.addEventListener("abort", abort, { once: true });
  const timer = setTimeout(abort, ROUND_TIMEOUT_MS);
  try {
    const cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: NAMESPACE } });
    const cpu = cpuUsage();
    const start = performance.now();
    const finished = done(cs, stop.signal);
    // If `work` fails, the stop below rejects `finished` too: that is not a second failure.
    finished.catch(() => undefined);
    await work(cs);
    await finished;
    const wallMs = performance.now() - start;
    const used = cpuUsage(cpu);
    if (stop.signal.aborted) throw new Error(`round did not finish (${replicas} pods)`);
    return { wallMs, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", abort);
    stop.abort();
    await server.stop();
  }
}

function deployment(replicas: number): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
      },
    },
  };
}

/** The cluster side: the Deployment, until its pods are Ready and it reports them available. */
function clusterRound(replicas: number, signal: AbortSignal): Promise<Sample> {
  return round(
    true,
    replicas,
    signal,
    async (cs) => {
      await cs.appsV1.deployments(NAMESPACE).create(deployment(replicas));
    },
    async (cs, stop) => {
      await readyPods(cs, replicas, stop);
      for (;;) {
        const d = await cs.appsV1.deployments(NAMESPACE).get("web", { signal: stop });
        if ((d.status?.availableReplicas ?? 0) >= replicas) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  );
}

/** The floor: the same pods created, bound and made Ready by one client, 32 at a time. */
function floorRound(replicas: number, signal: AbortSignal): Promise<Sample> {
  return round(
    false,
    replicas,
    signal,
    async (cs) => {
      const pods = cs.coreV1.pods(NAMESPACE);
      const names = Array.from({ length: replicas }, (_, i) => `web-${i}`);
      const one = async (name: string, index: number): Promise<void> => {
        await pods.create({
          metadata: { name, labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
        });
        await pods.bind(name, `kubekit-node-${(index % 3) + 1}`);
        const now = new Date().toISOString();
        await pods.patch(
          name,
          PatchTypes.merge,
          {
            status: {
              phase: "Running",
              podIP: `10.244.${(index % 3) + 1}.${index + 2}`,
              startTime: now,
              conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map(
                (type) => ({ type, status: "True", lastTransitionTime: now }),
              ),
            },
          },
          { subresource: "status" },
        );
      };
      let next = 0;
      await Promise.all(
        Array.from({ length: FLOOR_CONCURRENCY }, async () => {
          while (next < names.length) {
            const index = next++;
            await one(names[index] as string, index);
          }
        }),
      );
    },
    (cs, stop) => readyPods(cs, replicas, stop),
  );
}

/** Issue 12's rounds: one 100-replica Deployment on 3 nodes against the floor. */
async function runSmallRounds(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const replicas = replicaCount();
  const cluster: Sample[] = [];
  const floor: Sample[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    const order = i % 2 === 0 ? ["cluster", "floor"] : ["floor", "cluster"];
    for (const side of order) {
      const sample =
        side === "cluster"
          ? await clusterRound(replicas, ctx.signal)
          : await floorRound(replicas, ctx.signal);
      ctx.log(
        `${i === 0 ? "warm-up" : `round ${i}`} ${side}: ${sample.wallMs.toFixed(0)} ms (cpu ${sample.cpuMs.toFixed(0)} ms)`,
      );
      // The first round of each side warms up the JIT and is not counted.
      if (i > 0) (side === "cluster" ? cluster : floor).push(sample);
    }
  }
  const med = (samples: readonly Sample[], of: (s: Sample) => number): number =>
    median(samples.map(of));
  const work = { count: replicas, unit: "pods/s" };
  const wallRow = compareDurations(
    `cluster: ${replicas}-replica Deployment until every pod is Ready and available, wall time`,
    med(cluster, (s) => s.wallMs),
    {
      name: `${replicas} pods created, bound, made Ready by one client`,
      ms: med(floor, (s) => s.wallMs),
    },
    work,
  );
  const cpuRow = compareDurations(
    "cluster: same, CPU time of the process (server and cluster)",
    med(cluster, (s) => s.cpuMs),
    { name: "same writes, CPU time", ms: med(floor, (s) => s.cpuMs) },
    work,
  );
  const toJson = (samples: readonly Sample[]): JsonObject[] =>
    samples.map((s) => ({ wallMs: s.wallMs, cpuMs: s.cpuMs }));
  return {
    rows: [wallRow, cpuRow],
    details: {
      replicas,
      rounds: ROUNDS,
      floorConcurrency: FLOOR_CONCURRENCY,
      runs: { cluster: toJson(cluster), floor: toJson(floor) },
    },
  };
}

/** One side's round at scale, or why it did not finish. */
async function scaleSide(
  side: "cluster" | "floor",
  deployments: number,
  ctx: BenchmarkContext,
): Promise<ScaleSample | Error> {
  try {
    const sample = await runScaleRound(side, deployments, {
      timeoutMs: SCALE_ROUND_TIMEOUT_MS,
      signal: ctx.signal,
      log: ctx.log,
    });
    ctx.log(
      `scale ${side}: ${sample.pods} pods in ${(sample.wallMs / 1000).toFixed(1)} s ` +
        `(cpu ${(sample.cpuMs / 1000).toFixed(1)} s, ${(sample.cpuMs / sample.pods).toFixed(2)} ms/pod), ` +
        `peak rss ${(sample.peakRssBytes / 2 ** 20).toFixed(0)} MiB, load ${sample.loadavgAtStart.map((l) => l.toFixed(1)).join(" ")}`,
    );
    return sample;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`scale ${side}: failed: ${String(err)}`);
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Issue 24's section: 1,000 nodes and `1000 × scale` Deployments of 100 replicas. */
async function runScaleRounds(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const deployments = Math.max(1, Math.round(SCALE_DEPLOYMENTS * benchScale()));
  const pods = deployments * SCALE_REPLICAS;
  ctx.log(`scale: ${deployments} Deployments × ${SCALE_REPLICAS} on ${SCALE_NODES} nodes`);
  const floor = await scaleSide("floor", deployments, ctx);
  const cluster = await scaleSide("cluster", deployments, ctx);
  const ok = !(cluster instanceof Error);
  const label = `${pods} pods (${deployments} Deployments × ${SCALE_REPLICAS}) on ${SCALE_NODES} nodes`;
  const floorOf = (of: (s: ScaleSample) => number, name: string) =>
    floor instanceof Error ? undefined : { name, ms: of(floor) };
  const work = { count: pods, unit: "pods/s" };
  const rows = [
    {
      scenario: `cluster at scale: ${label} Ready and available (target: all) — ${ok ? "met" : `MISSED (${cluster.message})`}`,
      kubekit: { value: ok ? pods : 0, unit: "pods" },
    },
  ];
  if (ok) {
    rows.push(
      compareDurations(
        `cluster at scale: ${label}, wall time per pod`,
        cluster.wallMs / pods,
        floorOf((s) => s.wallMs / pods, "same pods created, bound, made Ready by one client"),
      ),
      compareDurations(
        "cluster at scale: same, CPU time per pod (server and cluster, one process)",
        cluster.cpuMs / pods,
        floorOf((s) => s.cpuMs / pods, "same writes, CPU time per pod"),
      ),
      compareDurations(
        "cluster at scale: same, whole wall time",
        cluster.wallMs,
        floorOf((s) => s.wallMs, "same writes, whole wall time"),
        work,
      ),
    );
  }
  const json = (s: ScaleSample | Error): JsonObject =>
    s instanceof Error ? { error: s.message } : scaleSampleJson(s);
  return {
    rows,
    details: {
      parameters: { nodes: SCALE_NODES, deployments, replicas: SCALE_REPLICAS, pods },
      targets: {
        [`every pod of ${label} Ready and every Deployment available`]: ok,
        met: ok,
        ...(ok && !(floor instanceof Error)
          ? {
              cpuPerPodRatio: cluster.cpuMs / floor.cpuMs,
              wallPerPodRatio: cluster.wallMs / floor.wallMs,
            }
          : {}),
      },
      runs: { cluster: json(cluster), floor: json(floor) },
    },
  };
}

async function runClusterBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const small = await runSmallRounds(ctx);
  const scale = await runScaleRounds(ctx);
  ctx.log(`targets: ${JSON.stringify(scale.details["targets"])}`);
  return {
    rows: [...small.rows, ...scale.rows],
    details: { ...small.details, scale: scale.details, targets: scale.details["targets"] ?? null },
  };
}

/** The cluster benchmark (`npm run bench cluster`). */
export const benchmark: Benchmark = {
  name: "cluster",
  description:
    "Simulated cluster: a 100-replica Deployment, then 1,000 nodes × 100k pods, until all pods are Ready vs the same writes by one client",
  timeoutMs: 7 * 3600_000,
  run: runClusterBenchmark,
};
