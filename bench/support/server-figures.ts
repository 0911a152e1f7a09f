import type { JsonObject } from "kubekit";
import { compareDurations, type ResultRow } from "./benchmark.js";
import type { HeapStats } from "./host-protocol.js";
import type { ListStreamed } from "./list-reader.js";
import { median } from "./timing.js";

/** The server benchmark's sizes and concurrency (`server.bench.ts`). */
export interface ServerParameters {
  readonly scale: number;
  /** Pods stored for the large-store figures (1M at scale 1). */
  readonly stored: number;
  /** Pods stored for the small-store paging figures (10k at scale 1). */
  readonly small: number;
  readonly namespaces: readonly string[];
  /** Writes in flight (one connection each). */
  readonly writeConcurrency: number;
  /** Unmeasured creates before the creates measured into an empty store. */
  readonly warmCreates: number;
  /** Creates measured into an empty store and again at the large store. */
  readonly creates: number;
  readonly pageLimit: number;
  /** Pages measured at the small store (whole walks, at least this many pages). */
  readonly minPagesSmall: number;
  /** Pages measured at the large store from the start, and again from the middle. */
  readonly pagesLarge: number;
  /** Pods per `loadObjects` request. */
  readonly loadChunk: number;
  /** Measured full lists (after one recorded warm-up). */
  readonly listRuns: number;
  readonly watchers: number;
  readonly warmChanges: number;
  readonly changes: number;
  /** The server process's `--max-old-space-size`. */
  readonly heapLimitMiB: number;
}

/** Server CPU (user + system of its process) and wall time of a phase, in ms. */
export interface CpuWall {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** Pages read in a phase, with the server CPU and wall time they took. */
export interface PagingFigures extends CpuWall {
  readonly pages: number;
  readonly segments: Readonly<Record<string, number | null>>;
}

/** What was measured against kubekit's server. */
export interface KubekitFigures {
  readonly heapEmpty: HeapStats;
  readonly heapSmall: HeapStats;
  /** At exactly `stored` pods. */
  readonly heapFull: HeapStats;
  readonly preloadSmall: CpuWall;
  readonly preloadLarge: CpuWall;
  readonly createEmpty: CpuWall;
  readonly createFull: CpuWall;
  readonly pagedSmall: PagingFigures;
  readonly pagedLarge: PagingFigures;
  readonly pagedOlder: PagingFigures | { readonly error: string };
  /** Pods stored during the full lists. */
  readonly listed: number;
  readonly fullList: ReadonlyArray<ListStreamed & { readonly cpuMs: number }>;
  readonly fullListFile: string;
  readonly smallListFile: string;
  readonly watch: {
    readonly url: string;
    /** The PATCHes with no watcher open: the mean of {@link quietRounds}. */
    readonly quiet: CpuWall;
    /** The same number of PATCHes with no watcher open, before and after the watched ones. */
    readonly quietRounds: readonly CpuWall[];
    /** The same number of PATCHes with the watchers open; wall = to the last frame. */
    readonly watched: CpuWall;
    readonly watchedPatchWallMs: number;
    readonly framesFile: string;
    readonly frameBytes: number;
  };
}

/** What was measured against the bare node:http server. */
export interface BareFigures {
  readonly createEcho: CpuWall;
  readonly fullList: ReadonlyArray<ListStreamed & { readonly cpuMs: number }>;
  /** The same frames to the same number of watchers; wall = to the last frame. */
  readonly stream: CpuWall;
  readonly heapBefore: HeapStats;
  readonly heapHeld: HeapStats;
  /** Pods held parsed for {@link heapHeld}. */
  readonly held: number;
}

/** The derived figures the targets and rows are stated on. */
interface Derived {
  readonly jsonPerPod: number;
  readonly totalPerPod: number;
  readonly heapUsedPerPod: number;
  readonly parsedPerPod: number;
  readonly listMs: number;
  readonly bareListMs: number;
  readonly pageCpuSmall: number;
  readonly pageCpuLarge: number;
  readonly createCpuEmpty: number;
  readonly createCpuFull: number;
  readonly deliveryUs: number;
  readonly bareDeliveryUs: number;
}

function derive(p: ServerParameters, k: KubekitFigures, b: BareFigures): Derived {
  const grown = (pick: (h: HeapStats) => number): number =>
    (pick(k.heapFull) - pick(k.heapEmpty)) / p.stored;
  const listBytes = median(k.fullList.map((r) => r.bytes));
  const deliveries = p.watchers * p.changes;
  return {
    jsonPerPod: listBytes / k.listed,
    totalPerPod: grown((h) => h.heapUsed + h.arrayBuffers),
    heapUsedPerPod: grown((h) => h.heapUsed),
    parsedPerPod: (b.heapHeld.heapUsed - b.heapBefore.heapUsed) / b.held,
    listMs: median(k.fullList.map((r) => r.bodyMs)),
    bareListMs: median(b.fullList.map((r) => r.bodyMs)),
    pageCpuSmall: k.pagedSmall.cpuMs / k.pagedSmall.pages,
    pageCpuLarge: k.pagedLarge.cpuMs / k.pagedLarge.pages,
    createCpuEmpty: k.createEmpty.cpuMs / p.creates,
    createCpuFull: k.createFull.cpuMs / p.creates,
    deliveryUs: ((k.watch.watched.cpuMs - k.watch.quiet.cpuMs) * 1000) / deliveries,
    bareDeliveryUs: (b.stream.cpuMs * 1000) / deliveries,
  };
}

/** A target: `value` compared with `limit` (at most, or at least). */
interface Target {
  readonly value: number;
  readonly limit: number;
  readonly atMost: boolean;
}

function met(t: Target): boolean {
  return t.atMost ? t.value <= t.limit : t.value >= t.limit;
}

/** "met" or "MISSED (value/limit)", for a row's scenario. */
function verdict(t: Target): string {
  return met(t) ? "met" : `MISSED (${(t.value / t.limit).toFixed(2)}× the limit)`;
}

function targetsOf(d: Derived): Record<string, Target> {
  return {
    memory: { value: d.totalPerPod / d.jsonPerPod, limit: 1.3, atMost: true },
    fullList: { value: d.bareListMs / d.listMs, limit: 0.5, atMost: false },
    paging: { value: d.pageCpuLarge / d.pageCpuSmall, limit: 1.2, atMost: true },
    create: { value: d.createCpuFull / d.createCpuEmpty, limit: 1.15, atMost: true },
    watch: { value: d.deliveryUs, limit: 10, atMost: true },
  };
}

/** Issue 24 §1's targets, each with its value, limit and whether it is met (`details.targets`). */
export function serverTargets(p: ServerParameters, k: KubekitFigures, b: BareFigures): JsonObject {
  const t = targetsOf(derive(p, k, b));
  const entry = (name: string, x: Target): JsonObject => ({
    [name]: { value: x.value, limit: x.limit, atMost: x.atMost, met: met(x) },
  });
  return {
    ...entry(
      "memory per stored pod (heapUsed + arrayBuffers) / its JSON bytes (target <= 1.3)",
      t["memory"] as Target,
    ),
    ...entry(
      "full LIST throughput / bare server's throughput (target >= 0.5)",
      t["fullList"] as Target,
    ),
    ...entry(
      `paged LIST server CPU per page, ${p.stored} / ${p.small} stored (target <= 1.2)`,
      t["paging"] as Target,
    ),
    ...entry(
      `create server CPU per pod, ${p.stored} stored / empty (target <= 1.15)`,
      t["create"] as Target,
    ),
    ...entry(
      `watch delivery server CPU per watcher per event, µs, ${p.watchers} watchers (target <= 10)`,
      t["watch"] as Target,
    ),
    allMet: Object.values(t).every(met),
  };
}

function perPodRow(
  scenario: string,
  value: number,
  baseline: { name: string; value: number },
): ResultRow {
  return {
    scenario,
    kubekit: { value, unit: "B/pod" },
    baseline,
    ratio: value / baseline.value,
  };
}

function memoryRows(p: ServerParameters, d: Derived, t: Record<string, Target>): ResultRow[] {
  const json = { name: "its JSON (list body bytes per pod)", value: d.jsonPerPod };
  return [
    perPodRow(
      `memory per stored pod at ${p.stored}, heapUsed + arrayBuffers (target ≤ 1.3× its JSON): ${verdict(t["memory"] as Target)}`,
      d.totalPerPod,
      json,
    ),
    perPodRow(`memory per stored pod at ${p.stored}, heapUsed only`, d.heapUsedPerPod, json),
    perPodRow(`memory per stored pod, heapUsed + arrayBuffers`, d.totalPerPod, {
      name: `the same pods parsed, held in a Map (${p.small} of them)`,
      value: d.parsedPerPod,
    }),
  ];
}

function listRows(
  p: ServerParameters,
  k: KubekitFigures,
  b: BareFigures,
  d: Derived,
  t: Record<string, Target>,
): ResultRow[] {
  const bytes = median(k.fullList.map((r) => r.bytes));
  const mb = bytes / 1e6;
  const bare = "bare node:http writing the same bytes from memory";
  const small = `the same at ${p.small} stored`;
  const older = k.pagedOlder;
  return [
    compareDurations(
      `full LIST of ${k.listed} pods (${(bytes / 1e9).toFixed(2)} GB), body streamed (target ≥ 0.5× the bare server's throughput): ${verdict(t["fullList"] as Target)}`,
      d.listMs,
      { name: bare, ms: d.bareListMs },
      { count: mb, unit: "MB/s" },
    ),
    compareDurations(
      "full LIST: server CPU",
      median(k.fullList.map((r) => r.cpuMs)),
      { name: bare, ms: median(b.fullList.map((r) => r.cpuMs)) },
      { count: mb, unit: "MB/s of CPU" },
    ),
    compareDurations(
      "full LIST: time to the response headers",
      median(k.fullList.map((r) => r.headersMs)),
      { name: bare, ms: median(b.fullList.map((r) => r.headersMs)) },
    ),
    compareDurations(
      `paged LIST (limit ${p.pageLimit}) server CPU per page at ${k.listed} stored (target ≤ 1.2× at ${p.small}): ${verdict(t["paging"] as Target)}`,
      d.pageCpuLarge,
      { name: small, ms: d.pageCpuSmall },
    ),
    compareDurations(
      `paged LIST wall time per page (read + JSON.parse) at ${k.listed} stored`,
      k.pagedLarge.wallMs / k.pagedLarge.pages,
      { name: small, ms: k.pagedSmall.wallMs / k.pagedSmall.pages },
    ),
    ...("error" in older
      ? []
      : [
          compareDurations(
            `paged LIST server CPU per page from a continue token issued before ${p.warmChanges * 2 + p.changes * 3} writes (an older revision)`,
            older.cpuMs / older.pages,
            { name: "at the current revision", ms: d.pageCpuLarge },
          ),
        ]),
  ];
}

function writeRows(
  p: ServerParameters,
  k: KubekitFigures,
  b: BareFigures,
  d: Derived,
  t: Record<string, Target>,
): ResultRow[] {
  const deliveries = p.watchers * p.changes;
  return [
    compareDurations(
      `create (POST) server CPU per pod at ${p.stored} stored (target ≤ 1.15× from empty): ${verdict(t["create"] as Target)}`,
      d.createCpuFull,
      {
        name: `the same from an empty store (after ${p.warmCreates} warm-up)`,
        ms: d.createCpuEmpty,
      },
    ),
    compareDurations(
      `${p.creates} creates (POST, ${p.writeConcurrency} in flight) at ${p.stored} stored, wall`,
      k.createFull.wallMs,
      { name: "bare node:http echo, same bodies", ms: b.createEcho.wallMs },
      { count: p.creates, unit: "creates/s" },
    ),
    {
      scenario: `watch delivery server CPU per watcher per event, ${p.watchers} watchers × ${p.changes} MODIFIED (target ≤ 10 µs): ${verdict(t["watch"] as Target)}`,
      kubekit: { value: d.deliveryUs, unit: "µs" },
      baseline: { name: "bare node:http writing the same frames", value: d.bareDeliveryUs },
      ratio: d.deliveryUs / d.bareDeliveryUs,
    },
    compareDurations(
      `${p.watchers} watchers × ${p.changes} MODIFIED, wall (first PATCH to last frame)`,
      k.watch.watched.wallMs,
      {
        name: `bare node:http streaming the same frames to ${p.watchers} clients`,
        ms: b.stream.wallMs,
      },
      { count: deliveries, unit: "events/s" },
    ),
    compareDurations(
      `${p.changes} PATCH (merge) with ${p.watchers} watchers open, server CPU`,
      k.watch.watched.cpuMs,
      { name: "the same PATCHes with no watcher open", ms: k.watch.quiet.cpuMs },
      { count: p.changes, unit: "patches/s of CPU" },
    ),
  ];
}

/** The result rows: the targets' rows (met / MISSED in the scenario) and the figures kept beside them. */
export function serverResultRows(
  p: ServerParameters,
  k: KubekitFigures,
  b: BareFigures,
): ResultRow[] {
  const d = derive(p, k, b);
  const t = targetsOf(d);
  return [...memoryRows(p, d, t), ...listRows(p, k, b, d, t), ...writeRows(p, k, b, d, t)];
}
