/**
 * `createOrUpdate` through the Manager's cache-backed client on unchanged objects: 10k pods
 * (the informer benchmark's realistic pods, served by its replay server), each passed to
 * `createOrUpdate(mgr.client.resource(pods, namespace), pod, mutate)` with a mutation that
 * changes nothing, against the same decision made by hand from the lister: read the cached
 * pod, copy it (a cached object must not be mutated), apply the same mutation, compare. The
 * raw lister reads (no copy, no comparison) are reported too, as the floor of any read.
 *
 * Checked: no write is issued (the client's create and update are counted), and
 * createOrUpdate costs at most 1.2× the hand-written lister reads, on wall time and on CPU
 * time (user + system of this process), each the median of the rounds, the two alternating.
 * `KUBEKIT_BENCH_SCALE` (default 1) scales the pods.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { type JsonObject, KubeConfig, Manager, createOrUpdate, noopLogger } from "kubekit";
import { deepClone, deepEqual } from "kubekit/apimachinery";
import { Registry } from "prom-client";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
} from "./support/benchmark.js";
import { HostProcess } from "./support/host-process.js";
import { median } from "./support/timing.js";

const MAX_RATIO = 1.2;
const ROUNDS = 15;
const LOAD_TIMEOUT_MS = 300_000;

function podCount(): number {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  return Math.max(10, Math.round(10_000 * scale));
}

/** The mutation of every round: sets what is already there. */
function mutate(pod: Pod): void {
  pod.metadata = { ...pod.metadata, labels: { ...pod.metadata?.labels } };
  if (pod.spec !== undefined) pod.spec.restartPolicy = pod.spec.restartPolicy ?? "Always";
}

interface Timed {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function timed(work: () => Promise<void>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function runCreateOrUpdateBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const pods = podCount();
  const namespaces = Array.from({ length: 10 }, (_, i) => `bench-${String(i).padStart(2, "0")}`);
  ctx.log("starting the replay server process");
  const host = await HostProcess.start("replay");
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  ctx.signal.addEventListener("abort", abort, { once: true });
  let running: Promise<void> | undefined;
  try {
    await host.loadReplay({ pods, events: 0, namespaces }, LOAD_TIMEOUT_MS);
    const kubeConfig = KubeConfig.fromDocument({
      clusters: [{ name: "replay", cluster: { server: host.url } }],
      users: [{ name: "bench", user: {} }],
      contexts: [{ name: "bench", context: { cluster: "replay", user: "bench" } }],
      "current-context": "bench",
    });
    const mgr = new Manager({ kubeConfig, qps: -1, logger: noopLogger, registry: new Registry() });
    const informer = mgr.client.informer((i) => i.coreV1.pods());
    running = mgr.start(stop.signal);
    await mgr.elected();
    const clients = new Map(
      namespaces.map((ns) => [ns, mgr.client.resource((i) => i.coreV1.pods(), ns)] as const),
    );
    const keys = informer.indexer.listKeys().map((key) => {
      const [namespace = "", name = ""] = key.split("/");
      return { namespace, name };
    });
    if (keys.length !== pods) throw new Error(`cached ${keys.length} pods, expected ${pods}`);
    ctx.log(`${pods} pods cached`);
    let writes = 0;
    const counted = new Map(
      [...clients].map(([ns, client]) => [
        ns,
        {
          get: (name: string) => client.get(name),
          create: (pod: Pod) => {
            writes++;
            return client.create(pod);
          },
          update: (pod: Pod) => {
            writes++;
            return client.update(pod);
          },
        },
      ]),
    );
    const lister = informer.indexer;

    const viaCreateOrUpdate = async (): Promise<void> => {
      for (const { namespace, name } of keys) {
        const pod: Pod = { metadata: { name, namespace } };
        const result = await createOrUpdate(counted.get(namespace)!, pod, mutate);
        if (result !== "unchanged") throw new Error(`${namespace}/${name}: ${result}`);
      }
    };
    const byHand = async (): Promise<void> => {
      for (const { namespace, name } of keys) {
        const cached = lister.getByKey(`${namespace}/${name}`) as Pod;
        const copy = deepClone(cached as unknown as JsonObject) as unknown as Pod;
        mutate(copy);
        if (!deepEqual(copy, cached)) throw new Error("changed");
      }
    };
    const listerOnly = async (): Promise<void> => {
      let found = 0;
      for (const { namespace, name } of keys) {
        if (lister.getByKey(`${namespace}/${name}`) !== undefined) found++;
      }
      if (found !== pods) throw new Error("missing pods");
    };

    const runs = {
      createOrUpdate: [] as Timed[],
      byHand: [] as Timed[],
      listerOnly: [] as Timed[],
    };
    await viaCreateOrUpdate(); // warm-up
    await byHand();
    await listerOnly();
    for (let round = 0; round < ROUNDS; round++) {
      const order =
        round % 2 === 0
          ? ([
              ["createOrUpdate", viaCreateOrUpdate],
              ["byHand", byHand],
            ] as const)
          : ([
              ["byHand", byHand],
              ["createOrUpdate", viaCreateOrUpdate],
            ] as const);
      for (const [name, work] of order) runs[name].push(await timed(work));
      runs.listerOnly.push(await timed(listerOnly));
      ctx.log(
        `round ${round + 1}: createOrUpdate ${runs.createOrUpdate.at(-1)!.wallMs.toFixed(1)} ms, by hand ${runs.byHand.at(-1)!.wallMs.toFixed(1)} ms`,
      );
    }
    const med = (rs: readonly Timed[], f: (t: Timed) => number): number => median(rs.map(f));
    const wall = (t: Timed): number => t.wallMs;
    const cpu = (t: Timed): number => t.cpuMs;
    const baseline = `lister read + copy + mutate + compare by hand (${pods} pods)`;
    const work = { count: pods, unit: "objects/s" };
    const wallRow = compareDurations(
      `createOrUpdate via the cache-backed client, ${pods} unchanged pods, wall time`,
      med(runs.createOrUpdate, wall),
      { name: baseline, ms: med(runs.byHand, wall) },
      work,
    );
    const cpuRow = compareDurations(
      "createOrUpdate, same, CPU time",
      med(runs.createOrUpdate, cpu),
      { name: baseline, ms: med(runs.byHand, cpu) },
      work,
    );
    const floorRow = compareDurations(
      "createOrUpdate vs raw lister reads (no copy, no comparison), wall time",
      med(runs.createOrUpdate, wall),
      { name: `lister getByKey only (${pods} pods)`, ms: med(runs.listerOnly, wall) },
      work,
    );
    const targets: JsonObject = {
      writes,
      [`createOrUpdate/by-hand wall time (target <= ${MAX_RATIO})`]: wallRow.ratio ?? null,
      "createOrUpdate/by-hand CPU time": cpuRow.ratio ?? null,
      "createOrUpdate/raw lister reads wall time": floorRow.ratio ?? null,
      met: writes === 0 && (wallRow.ratio ?? Infinity) <= MAX_RATIO,
      metOnCpuTime: writes === 0 && (cpuRow.ratio ?? Infinity) <= MAX_RATIO,
    };
    ctx.log(`targets: ${JSON.stringify(targets)}`);
    const toJson = (rs: readonly Timed[]): JsonObject[] => rs.map((t) => ({ ...t }));
    return {
      rows: [wallRow, cpuRow, floorRow],
      details: {
        parameters: { pods, rounds: ROUNDS },
        targets,
        runs: {
          createOrUpdate: toJson(runs.createOrUpdate),
          byHand: toJson(runs.byHand),
          listerOnly: toJson(runs.listerOnly),
        },
      },
    };
  } finally {
    stop.abort();
    await running?.catch(() => undefined);
    ctx.signal.removeEventListener("abort", abort);
    await host.stop();
  }
}

/** The createOrUpdate benchmark (`npm run bench create-or-update`). */
export const benchmark: Benchmark = {
  name: "create-or-update",
  description:
    "createOrUpdate of 10k unchanged pods through the cache-backed client vs the same check by hand on the lister",
  timeoutMs: 15 * 60_000,
  run: runCreateOrUpdateBenchmark,
};
