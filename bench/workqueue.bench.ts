/**
 * The workqueue's hot path: items through `add` → `get` → `done` on kubekit's `Queue`,
 * against two baselines doing the same calls, all measured in the same process, interleaved
 * (the order rotating from round to round), after a warm-up round:
 *
 * - the bare FIFO (support/array-queue.ts): an array and its waiting `get`s, nothing else —
 *   no de-duplication, so it does less work than any workqueue;
 * - the de-duplicating FIFO (support/dedup-array-queue.ts): the same FIFO behind a `Set` of
 *   the items added and not yet done — the least a queue that hands out an item once however
 *   often it is added, and keeps no reference to a done item, does per item (one hash
 *   insert, one delete, one lookup). kubekit's `Queue` does one more lookup and one in-place
 *   update per item (it also tracks "being processed", to queue again an item added then).
 *
 * Each figure is the median over 21 rounds of 300k items of the process's CPU time (user +
 * system), which other load on the machine disturbs far less than wall time; the targets are
 * checked on it. The log and the results file also give the best round's ratio and the
 * wall-time ratio.
 *
 * Scenarios (an item is one add, one get and one done):
 * - one worker: add a key, get it, done it, in a loop over 100 keys (client-go's
 *   `BenchmarkQueue` in `staging/src/k8s.io/client-go/util/workqueue/queue_test.go`);
 * - batch: add 10k distinct keys, then get and done them all;
 * - 8 workers: 8 workers wait in `get` while a producer adds batches of 1,000 distinct keys,
 *   each batch added once the previous one is done (the first adds are handed straight to
 *   waiting workers, the rest queue).
 *
 * Targets (issue 10): at least 1M items/s, and at most 3× "a bare array-backed queue doing the
 * same work", checked against both baselines (`details.targets`). The `PriorityQueue`
 * (controller-runtime's, issue 21) runs the same scenarios in the same rounds: its rows give
 * its ratio to kubekit's plain `Queue`, and its target is 1M items/s (`details.targets`). All queues run through the
 * same call sites, so V8 sees every shape there. `KUBEKIT_BENCH_SCALE` (default 1) scales the
 * item counts.
 */
import { type JsonObject, PriorityQueue, Queue } from "kubekit";
import { ArrayQueue } from "./support/array-queue.js";
import { DedupArrayQueue } from "./support/dedup-array-queue.js";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
  type ResultRow,
} from "./support/benchmark.js";
import { collectGarbage, median } from "./support/timing.js";

/** What the scenarios need of a queue: the workqueue's three hot-path calls. */
interface WorkQueue {
  add(item: string): void;
  get(): Promise<readonly [item: string | undefined, shutdown: boolean]>;
  done(item: string): void;
}

interface Implementation {
  readonly name: string;
  create(): WorkQueue;
}

const KUBEKIT: Implementation = { name: "kubekit Queue", create: () => new Queue<string>() };
const BARE_FIFO: Implementation = {
  name: "bare array FIFO",
  create: () => new ArrayQueue<string>(),
};
const DEDUP_FIFO: Implementation = {
  name: "array FIFO + de-dup Set",
  create: () => new DedupArrayQueue<string>(),
};
const PRIORITY: Implementation = {
  name: "kubekit PriorityQueue",
  create: () => new PriorityQueue<string>(),
};
/** The baselines, each compared with kubekit in a row of its own. */
const BASELINES = [BARE_FIFO, DEDUP_FIFO] as const;
const IMPLEMENTATIONS = [KUBEKIT, PRIORITY, ...BASELINES] as const;

/** Targets of issue 10. */
const TARGETS = { minItemsPerSecond: 1_000_000, maxRatio: 3 };
/** Measured rounds per scenario (after one warm-up round); short runs, many rounds, median. */
const ROUNDS = 21;
const WORKERS = 8;

interface Scenario {
  readonly name: string;
  /** Items per measured run. */
  readonly items: number;
  /** Pushes `items` items through a fresh queue; resolves when all are done. */
  run(queue: WorkQueue, keys: readonly string[], items: number): Promise<void>;
}

async function oneWorker(queue: WorkQueue, keys: readonly string[], items: number): Promise<void> {
  const distinct = Math.min(100, keys.length);
  for (let i = 0; i < items; i++) {
    queue.add(keys[i % distinct] as string);
    const [item] = await queue.get();
    queue.done(item as string);
  }
}

async function batch(queue: WorkQueue, keys: readonly string[], items: number): Promise<void> {
  const size = Math.min(10_000, keys.length);
  for (let done = 0; done < items; done += size) {
    for (let i = 0; i < size; i++) queue.add(keys[i] as string);
    for (let i = 0; i < size; i++) {
      const [item] = await queue.get();
      queue.done(item as string);
    }
  }
}

async function eightWorkers(
  queue: WorkQueue,
  keys: readonly string[],
  items: number,
): Promise<void> {
  const size = Math.min(1_000, keys.length);
  let remainingInBatch = 0;
  let batchDone: () => void = () => undefined;
  let stop = false;
  const worker = async (): Promise<void> => {
    for (;;) {
      const [item] = await queue.get();
      if (stop) return;
      queue.done(item as string);
      if (--remainingInBatch === 0) batchDone();
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  for (let done = 0; done < items; done += size) {
    const finished = new Promise<void>((resolve) => (batchDone = resolve));
    remainingInBatch = size;
    for (let i = 0; i < size; i++) queue.add(keys[i] as string);
    await finished;
  }
  // Release the workers blocked in get.
  stop = true;
  for (let i = 0; i < WORKERS; i++) queue.add(`stop-${i}`);
  await Promise.all(workers);
}

function scenarios(scale: number): Scenario[] {
  const items = Math.max(10_000, Math.round(300_000 * scale));
  return [
    { name: "add/get/done, one worker (100 keys)", items, run: oneWorker },
    { name: "add 10k keys, then get/done each", items, run: batch },
    { name: `${WORKERS} workers, batches of 1k keys`, items, run: eightWorkers },
  ];
}

/** One measured run: wall time, and CPU time of the process (user + system, GC included). */
interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function measure(
  implementation: Implementation,
  scenario: Scenario,
  keys: readonly string[],
): Promise<Sample> {
  const queue = implementation.create();
  // Collected after it is created, the queue lives in the old generation, as a long-lived
  // queue does (its Map's insert/delete churn costs more there than in a fresh young one).
  collectGarbage();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await scenario.run(queue, keys, scenario.items);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** The ratios of one scenario against one baseline. */
interface Comparison {
  readonly row: ResultRow;
  readonly bestRatio: number;
  readonly wallRatio: number;
}

function compare(
  scenario: Scenario,
  kubekit: readonly Sample[],
  baseline: Implementation,
  samples: readonly Sample[],
): Comparison {
  const cpu = (s: readonly Sample[]): number[] => s.map((x) => x.cpuMs);
  const wall = (s: readonly Sample[]): number[] => s.map((x) => x.wallMs);
  const row = compareDurations(
    `${scenario.name} (CPU time)`,
    median(cpu(kubekit)),
    { name: baseline.name, ms: median(cpu(samples)) },
    { count: scenario.items, unit: "items/s" },
  );
  return {
    row,
    // Best of the rounds: load from other processes only ever adds time.
    bestRatio: Math.min(...cpu(kubekit)) / Math.min(...cpu(samples)),
    wallRatio: median(wall(kubekit)) / median(wall(samples)),
  };
}

async function runWorkqueueBenchmark(context: BenchmarkContext): Promise<BenchmarkResult> {
  const scale = Number(process.env["KUBEKIT_BENCH_SCALE"] ?? "1");
  const keys = Array.from({ length: 10_000 }, (_, i) => `default/pod-${i}`);
  const rows: ResultRow[] = [];
  const details: Record<string, JsonObject> = {};
  const met: Record<string, boolean> = {};
  for (const b of BASELINES) met[b.name] = true;
  let priorityMet = true;
  for (const scenario of scenarios(scale)) {
    const samples = new Map<Implementation, Sample[]>(IMPLEMENTATIONS.map((i) => [i, []]));
    // Round 0 warms every queue up and is discarded; the order rotates between rounds.
    for (let round = 0; round <= ROUNDS; round++) {
      for (let i = 0; i < IMPLEMENTATIONS.length; i++) {
        context.signal.throwIfAborted();
        const implementation = IMPLEMENTATIONS[
          (round + i) % IMPLEMENTATIONS.length
        ] as Implementation;
        const sample = await measure(implementation, scenario, keys);
        if (round > 0) samples.get(implementation)?.push(sample);
      }
    }
    const kubekit = samples.get(KUBEKIT) ?? [];
    const scenarioDetails: Record<string, JsonObject> = {};
    for (const baseline of BASELINES) {
      const { row, bestRatio, wallRatio } = compare(
        scenario,
        kubekit,
        baseline,
        samples.get(baseline) ?? [],
      );
      rows.push(row);
      const rate = row.throughput?.value ?? 0;
      const ratio = row.ratio ?? Infinity;
      met[baseline.name] &&= rate >= TARGETS.minItemsPerSecond && ratio <= TARGETS.maxRatio;
      scenarioDetails[baseline.name] = {
        cpuRatioMedian: ratio,
        cpuRatioBest: bestRatio,
        wallRatioMedian: wallRatio,
      };
      context.log(
        `${scenario.name}: ${Math.round(rate).toLocaleString("en-US")} items/s of CPU, ${ratio.toFixed(2)}× the ${baseline.name} (best round ${bestRatio.toFixed(2)}×; wall time ${wallRatio.toFixed(2)}×)`,
      );
    }
    const priority = compare(scenario, samples.get(PRIORITY) ?? [], KUBEKIT, kubekit);
    const priorityRow = { ...priority.row, scenario: `PriorityQueue: ${priority.row.scenario}` };
    rows.push(priorityRow);
    const priorityRate = priority.row.throughput?.value ?? 0;
    priorityMet &&= priorityRate >= TARGETS.minItemsPerSecond;
    scenarioDetails["PriorityQueue vs Queue"] = {
      cpuRatioMedian: priority.row.ratio ?? Infinity,
      cpuRatioBest: priority.bestRatio,
      wallRatioMedian: priority.wallRatio,
    };
    context.log(
      `${scenario.name}: PriorityQueue ${Math.round(priorityRate).toLocaleString("en-US")} items/s of CPU, ${(priority.row.ratio ?? Infinity).toFixed(2)}× kubekit's Queue (best round ${priority.bestRatio.toFixed(2)}×)`,
    );
    details[scenario.name] = {
      items: scenario.items,
      ratios: scenarioDetails,
      cpuMs: Object.fromEntries(
        IMPLEMENTATIONS.map((i) => [i.name, (samples.get(i) ?? []).map((x) => x.cpuMs)]),
      ),
      wallMs: Object.fromEntries(
        IMPLEMENTATIONS.map((i) => [i.name, (samples.get(i) ?? []).map((x) => x.wallMs)]),
      ),
    };
  }
  return {
    rows,
    details: {
      parameters: { scale, rounds: ROUNDS, workers: WORKERS },
      targets: {
        ...TARGETS,
        metAgainst: met,
        priorityQueue: { minItemsPerSecond: TARGETS.minItemsPerSecond, met: priorityMet },
      },
      scenarios: details,
    },
  };
}

export const benchmark: Benchmark = {
  name: "workqueue",
  description:
    "Workqueue hot path: items through add/get/done on kubekit's Queue vs a bare array FIFO and a de-duplicating one, and the PriorityQueue vs the Queue (one worker, batch, 8 workers)",
  timeoutMs: 10 * 60_000,
  run: runWorkqueueBenchmark,
};
