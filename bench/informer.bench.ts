/**
 * Informers under load: the initial sync of 50k realistic pods (about 2.8 KB of JSON each,
 * managedFields included) and a stream of 100k MODIFIED events, for kubekit's
 * SharedIndexInformer, for @kubernetes/client-node 1.4's informer, and for the floor (the
 * same bytes read and JSON.parse'd, nothing else), each in a child process of its own
 * (support/consumer-host.ts) so that its heap is measured alone.
 *
 * All three read identical bytes from one replay server (support/replay-server.ts: the list
 * and the frames serialized once, served from memory), because the embedded API server's
 * write path could not produce 100k events fast enough to measure a consumer. Consumers run
 * in rounds (kubekit, client-node, floor paged as kubekit's reflector pages, floor in one
 * request), after one warm-up run, and each figure is the median over the rounds. kubekit
 * runs without a client-side rate limit; one extra sync measures the default (QPS 5, burst
 * 10), which paces the 100 list pages.
 *
 * Then, end to end and labelled so: kubekit's sync of 50k pods loaded over HTTP into the
 * embedded ApiServer (as in the server benchmark: POST, then PATCH pods/status, so the
 * server writes real managedFields), against the floor reading the same pages from the same
 * server.
 *
 * Needs `npm ci --prefix bench` (client-node is a dependency of bench/package.json only).
 * `KUBEKIT_BENCH_SCALE` (default 1) scales pods and events; `KUBEKIT_BENCH_CPU_PROF=DIR`
 * writes a CPU profile of every consumer run (and server) to DIR.
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
import { runConsumer } from "./support/consumer-process.js";
import { HostProcess } from "./support/host-process.js";
import { connectionPool, loadWrites, sendWrite } from "./support/http-load.js";
import {
  namespaceCreateRequest,
  podCreateRequest,
  podStatusRequest,
} from "./support/pod-writes.js";
import type { ReplayLoaded } from "./support/host-protocol.js";
import { median, withTimeout } from "./support/timing.js";

/** The scenario's sizes and repetitions. */
interface Parameters {
  readonly pods: number;
  readonly events: number;
  readonly namespaces: readonly string[];
  /** kubekit's reflector page size (client-go's), which the paged floor reproduces. */
  readonly pageLimit: number;
  /** Measured rounds over the replay server (after one warm-up run). */
  readonly rounds: number;
  /** Measured syncs of each consumer against the embedded ApiServer. */
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
  return {
    pods: Math.max(10, Math.round(50_000 * scale)),
    events: Math.max(10, Math.round(100_000 * scale)),
    namespaces: Array.from({ length: 10 }, (_, i) => `bench-${String(i).padStart(2, "0")}`),
    pageLimit: 500,
    rounds: 5,
    endToEndRuns: 3,
    writeConcurrency: 16,
  };
}

const CONSUMER_TIMEOUT_MS = 600_000;
const LOAD_TIMEOUT_MS = 600_000;
const MiB = 1024 * 1024;

/** The consumers of one round over the replay server, by label. */
const ROUND = ["kubekit", "client-node", "floor-paged", "floor-whole"] as const;
type RoundLabel = (typeof ROUND)[number];

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
  return `${label}: sync ${r.syncMs.toFixed(0)} ms (cpu ${r.syncCpuMs.toFixed(0)})${stream}, heap after sync ${(r.heapSynced.heapUsed / MiB).toFixed(1)} MiB`;
}

/** What was measured over the replay server. */
interface ReplayFigures {
  readonly loaded: ReplayLoaded;
  readonly warmup: ConsumerResult;
  readonly runs: Readonly<Record<RoundLabel, readonly ConsumerResult[]>>;
  readonly defaultRateLimit: ConsumerResult;
}

async function measureReplay(ctx: BenchmarkContext, p: Parameters): Promise<ReplayFigures> {
  const { signal } = ctx;
  ctx.log("replay: starting the replay server process");
  const host = await HostProcess.start("replay");
  try {
    ctx.log(`replay: generating ${p.pods} pods and ${p.events} MODIFIED frames`);
    const loaded = await host.loadReplay(
      { pods: p.pods, events: p.events, namespaces: p.namespaces },
      LOAD_TIMEOUT_MS,
    );
    ctx.log(
      `replay: ${(loaded.itemBytes / p.pods).toFixed(0)} B per pod, ${(loaded.frameBytes / p.events).toFixed(0)} B per frame, generated in ${loaded.generateMs.toFixed(0)} ms`,
    );
    const run = async (label: string, task: ConsumerTask): Promise<ConsumerResult> => {
      const result = await runConsumer(task, { label, timeoutMs: CONSUMER_TIMEOUT_MS, signal });
      if (result.cached !== p.pods) {
        throw new Error(`${label}: cached ${result.cached} pods at the end, expected ${p.pods}`);
      }
      ctx.log(describe(label, result));
      return result;
    };
    const warmup = await run("warm-up (floor, paged)", replayTask("floor-paged", host.url, p));
    const runs: Record<RoundLabel, ConsumerResult[]> = {
      kubekit: [],
      "client-node": [],
      "floor-paged": [],
      "floor-whole": [],
    };
    for (let round = 0; round < p.rounds; round++) {
      for (const label of ROUND) {
        runs[label].push(
          await run(`round ${round + 1}/${p.rounds} ${label}`, replayTask(label, host.url, p)),
        );
      }
    }
    const defaultRateLimit = await run("kubekit with the default rate limit (sync only)", {
      ...replayTask("kubekit", host.url, p),
      events: 0,
      defaultRateLimit: true,
    });
    return { loaded, warmup, runs, defaultRateLimit };
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
const syncDelayOf = (r: ConsumerResult): number => r.syncEventLoopDelayMaxMs;
const streamDelayOf = (r: ConsumerResult): number | undefined => r.streamEventLoopDelayMaxMs;
const streamOf = (r: ConsumerResult): number | undefined => r.streamMs;
const heapOf = (r: ConsumerResult): number => r.heapSynced.heapUsed;
const heapDeltaOf = (r: ConsumerResult): number => r.heapSynced.heapUsed - r.heapBefore.heapUsed;

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
    baseline: { name: "@kubernetes/client-node 1.4 makeInformer", value: c },
    ratio: k / c,
  };
}

/** A row comparing kubekit's heap after sync with a baseline's (MiB; rates are B/pod of growth). */
function heapRow(
  scenario: string,
  p: Parameters,
  kubekit: readonly ConsumerResult[],
  baseline: { readonly name: string; readonly runs: readonly ConsumerResult[] },
): ResultRow {
  const k = med(kubekit, heapOf);
  const b = med(baseline.runs, heapOf);
  return {
    scenario,
    kubekit: { value: k / MiB, unit: "MiB" },
    baseline: { name: baseline.name, value: b / MiB },
    ratio: k / b,
    throughput: { value: med(kubekit, heapDeltaOf) / p.pods, unit: "B/pod" },
    baselineThroughput: { value: med(baseline.runs, heapDeltaOf) / p.pods, unit: "B/pod" },
  };
}

function resultRows(p: Parameters, r: ReplayFigures, e: EndToEndFigures): ResultRow[] {
  const kubekit = r.runs.kubekit;
  const clientNode = r.runs["client-node"];
  const floorPaged = r.runs["floor-paged"];
  const pods = { count: p.pods, unit: "objects/s" };
  const events = { count: p.events, unit: "events/s" };
  const floorName = `floor: the same ${Math.ceil(p.pods / p.pageLimit)} pages read + JSON.parse`;
  return [
    compareDurations(
      `replay: sync ${p.pods} pods (start → synced; kubekit pages by ${p.pageLimit})`,
      med(kubekit, syncOf),
      { name: floorName, ms: med(floorPaged, syncOf) },
      pods,
    ),
    compareDurations(
      `replay: sync, vs the whole list in 1 request`,
      med(kubekit, syncOf),
      {
        name: "floor: the whole list in 1 request + JSON.parse",
        ms: med(r.runs["floor-whole"], syncOf),
      },
      pods,
    ),
    compareDurations(
      `replay: sync, vs client-node (client-node/kubekit ${times(med(clientNode, syncOf) / med(kubekit, syncOf))})`,
      med(kubekit, syncOf),
      { name: "@kubernetes/client-node 1.4 makeInformer (1 request)", ms: med(clientNode, syncOf) },
      pods,
    ),
    compareDurations(
      `replay: ${p.events} MODIFIED (trigger → last handler call)`,
      med(kubekit, streamOf),
      { name: "floor: the same frames read + JSON.parse", ms: med(floorPaged, streamOf) },
      events,
    ),
    compareDurations(
      `replay: ${p.events} MODIFIED, vs client-node (client-node/kubekit ${times(med(clientNode, streamOf) / med(kubekit, streamOf))})`,
      med(kubekit, streamOf),
      { name: "@kubernetes/client-node 1.4 makeInformer", ms: med(clientNode, streamOf) },
      events,
    ),
    delayRow(
      `replay: max event-loop delay while syncing ${p.pods} pods (target <= ${MAX_EVENT_LOOP_DELAY_MS} ms)`,
      kubekit,
      clientNode,
      syncDelayOf,
    ),
    delayRow(
      `replay: max event-loop delay while streaming ${p.events} MODIFIED (target <= ${MAX_EVENT_LOOP_DELAY_MS} ms)`,
      kubekit,
      clientNode,
      streamDelayOf,
    ),
    heapRow(`replay: heap after sync (heapUsed after GC)`, p, kubekit, {
      name: "floor: parsed pods held in a Map",
      runs: floorPaged,
    }),
    heapRow(`replay: heap after sync, vs client-node`, p, kubekit, {
      name: "@kubernetes/client-node 1.4 makeInformer",
      runs: clientNode,
    }),
    compareDurations(
      `replay: sync with the default client rate limit (QPS 5, burst 10)`,
      r.defaultRateLimit.syncMs,
      { name: "kubekit without client-side rate limit", ms: med(kubekit, syncOf) },
      pods,
    ),
    compareDurations(
      `END TO END: sync ${p.pods} pods from the embedded ApiServer`,
      med(e.kubekit, syncOf),
      {
        name: `floor: the same ${Math.ceil(p.pods / p.pageLimit)} pages, same server (pods loaded over HTTP)`,
        ms: med(e.floor, syncOf),
      },
      pods,
    ),
  ];
}

/** A plain-JSON copy of measured data for the results file. */
function toJson(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

/** Issue 14's bound on the longest event-loop delay of kubekit's sync and stream, in ms. */
const MAX_EVENT_LOOP_DELAY_MS = 50;

/** Issue 14's targets, checked on the medians. */
function targets(r: ReplayFigures): JsonObject {
  const k = r.runs.kubekit;
  const floor = r.runs["floor-paged"];
  const cn = r.runs["client-node"];
  const syncVsFloor = med(k, syncOf) / med(floor, syncOf);
  const streamVsFloor = med(k, streamOf) / med(floor, streamOf);
  const heapVsFloor = med(k, heapOf) / med(floor, heapOf);
  const clientNodeStreamVsKubekit = med(cn, streamOf) / med(k, streamOf);
  const syncDelay = med(k, syncDelayOf);
  const streamDelay = med(k, streamDelayOf);
  return {
    "kubekit/floor stream (target <= 1.15)": streamVsFloor,
    "client-node/kubekit stream (target >= 1.1)": clientNodeStreamVsKubekit,
    "kubekit/floor sync (target <= 1.1)": syncVsFloor,
    "kubekit/floor heap after sync (target <= 1.05)": heapVsFloor,
    [`kubekit max event-loop delay, sync, ms (target <= ${MAX_EVENT_LOOP_DELAY_MS})`]: syncDelay,
    [`kubekit max event-loop delay, stream, ms (target <= ${MAX_EVENT_LOOP_DELAY_MS})`]:
      streamDelay,
    "client-node max event-loop delay, sync, ms": med(cn, syncDelayOf),
    "client-node max event-loop delay, stream, ms": med(cn, streamDelayOf),
    "client-node/kubekit sync": med(cn, syncOf) / med(k, syncOf),
    met:
      streamVsFloor <= 1.15 &&
      clientNodeStreamVsKubekit >= 1.1 &&
      syncVsFloor <= 1.1 &&
      heapVsFloor <= 1.05 &&
      syncDelay <= MAX_EVENT_LOOP_DELAY_MS &&
      streamDelay <= MAX_EVENT_LOOP_DELAY_MS,
  };
}

function resultDetails(p: Parameters, r: ReplayFigures, e: EndToEndFigures): JsonObject {
  const cpu = (runs: readonly ConsumerResult[]): JsonObject => ({
    syncCpuMs: med(runs, (x) => x.syncCpuMs),
    ...(runs[0]?.streamCpuMs !== undefined ? { streamCpuMs: med(runs, (x) => x.streamCpuMs) } : {}),
  });
  return {
    parameters: toJson(p),
    replay: {
      loaded: toJson(r.loaded),
      bytesPerPod: r.loaded.itemBytes / p.pods,
      bytesPerFrame: r.loaded.frameBytes / p.events,
    },
    targets: targets(r),
    medianCpu: {
      kubekit: cpu(r.runs.kubekit),
      "client-node": cpu(r.runs["client-node"]),
      "floor-paged": cpu(r.runs["floor-paged"]),
      "floor-whole": cpu(r.runs["floor-whole"]),
      "end-to-end kubekit": cpu(e.kubekit),
      "end-to-end floor": cpu(e.floor),
    },
    runs: toJson({ warmup: r.warmup, ...r.runs, defaultRateLimit: r.defaultRateLimit }),
    endToEnd: {
      createMs: e.createMs,
      statusMs: e.statusMs,
      listBytesPerPod: (e.floor[0]?.listBytes ?? 0) / p.pods,
      kubekit: e.kubekit.map(toJson),
      floor: e.floor.map(toJson),
    },
  };
}

async function runInformerBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const p = parameters();
  const replay = await measureReplay(ctx, p);
  const endToEnd = await measureEndToEnd(ctx, p);
  const details = resultDetails(p, replay, endToEnd);
  ctx.log(`targets: ${JSON.stringify(details["targets"])}`);
  return { rows: resultRows(p, replay, endToEnd), details };
}

/** The informer benchmark (`npm run bench informer`). */
export const benchmark: Benchmark = {
  name: "informer",
  description:
    "Informers: sync of 50k pods and 100k MODIFIED events from a replay server, kubekit vs @kubernetes/client-node 1.4 vs the floor (read + JSON.parse); plus kubekit's sync from the embedded ApiServer",
  timeoutMs: 60 * 60_000,
  run: runInformerBenchmark,
};
