/**
 * The embedded API server under load: 50k pods loaded through the real HTTP write path,
 * one full list, a paginated list (limit 500) and 10 watchers receiving 10k MODIFIED events.
 * Every figure is compared with a baseline measured in the same run on the same machine:
 * a bare node:http server answering the same bytes (the transport floor), JSON.stringify of
 * the same objects (the serialization floor), the same pods held as plain parsed objects
 * (the data floor of the heap), the same frames streamed to the same number of clients, and
 * the same kind of PATCH with no watcher open (what the watchers cost the write path).
 *
 * Both servers run in a child process of their own (see support/host-process.ts); the
 * client (undici pools) runs in this process. `KUBEKIT_BENCH_SCALE` (default 1) scales the
 * pod and change counts, for quick smoke runs.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pool } from "undici";
import type { JsonObject } from "kubekit";
import {
  compareDurations,
  type Benchmark,
  type BenchmarkContext,
  type BenchmarkResult,
  type ResultRow,
} from "./support/benchmark.js";
import { FrameCounter } from "./support/frame-counter.js";
import { STREAM_TRIGGER_PATH, type HeapStats } from "./support/host-protocol.js";
import { HostProcess } from "./support/host-process.js";
import { connectionPool, loadWrites, sendWrite, type WriteRequest } from "./support/http-load.js";
import { readList, readPaginated, type ListRead } from "./support/list-reader.js";
import {
  BENCH_AGENT,
  namespaceCreateRequest,
  podCreateRequest,
  podStatusRequest,
} from "./support/pod-writes.js";
import { makePod } from "./support/pods.js";
import { collectGarbage, median, repeat, withTimeout } from "./support/timing.js";

/** The scenario's sizes and concurrency. */
interface Parameters {
  readonly pods: number;
  readonly namespaces: readonly string[];
  /** Writes in flight during loading and changes (one connection each). */
  readonly writeConcurrency: number;
  readonly pageLimit: number;
  readonly watchers: number;
  readonly changes: number;
  readonly listWarmups: number;
  readonly listRuns: number;
}

function parameters(): Parameters {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  const pods = Math.max(10, Math.round(50_000 * scale));
  return {
    pods,
    namespaces: Array.from({ length: 10 }, (_, i) => `bench-${String(i).padStart(2, "0")}`),
    writeConcurrency: 16,
    pageLimit: 500,
    watchers: 10,
    changes: Math.min(pods, Math.max(10, Math.round(10_000 * scale))),
    listWarmups: 1,
    listRuns: 3,
  };
}

const LOAD_TIMEOUT_MS = 300_000;
const LIST_TIMEOUT_MS = 120_000;
const WATCH_TIMEOUT_MS = 180_000;
const FULL_LIST_URL = "/api/v1/pods";
const MiB = 1024 * 1024;

/** A change: an annotation of pod `index` set to `value` by a merge patch (one MODIFIED event when `value` is new). */
function changeRequest(p: Parameters, index: number, value: string): WriteRequest {
  const pod = makePod(index, { namespaces: p.namespaces });
  return {
    method: "PATCH",
    path: `/api/v1/namespaces/${pod.metadata?.namespace ?? ""}/pods/${pod.metadata?.name ?? ""}`,
    body: JSON.stringify({ metadata: { annotations: { "bench.kubekit.dev/change": value } } }),
    contentType: "application/merge-patch+json",
    expectStatus: 200,
    userAgent: BENCH_AGENT,
  };
}

function watchUrl(resourceVersion: string): string {
  return `/api/v1/pods?watch=true&resourceVersion=${resourceVersion}`;
}

/** When a list read reached its response headers, its last body byte and its parsed list (ms from the request). */
interface ListTimings {
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly totalMs: number;
}

function timingsOf(read: ListRead): ListTimings {
  return { headersMs: read.headersMs, bodyMs: read.bodyMs, totalMs: read.totalMs };
}

/** Checks that a recorded watch holds exactly `expected` frames, each a MODIFIED event. */
function verifyFrames(bytes: Buffer, expected: number): void {
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const type = (JSON.parse(line) as { type?: unknown }).type;
    if (type !== "MODIFIED") {
      throw new Error(`watch sent a ${String(type)} event where only MODIFIED was expected`);
    }
  }
  if (lines.length !== expected) {
    throw new Error(`watch sent ${lines.length} events, expected ${expected}`);
  }
}

/** Opens `count` frame counters on `url` into `into` (the caller closes them); `recordFirst` keeps the first one's bytes. */
async function openWatchers(
  pool: Pool,
  url: string,
  count: number,
  into: FrameCounter[],
  recordFirst: boolean,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    into.push(await FrameCounter.open(pool, url, { record: recordFirst && i === 0 }));
  }
}

/** Waits until every counter has `target` frames; resolves to the instant the last one got there. */
async function lastArrival(counters: readonly FrameCounter[], target: number): Promise<number> {
  return Math.max(...(await Promise.all(counters.map((c) => c.waitFor(target, WATCH_TIMEOUT_MS)))));
}

/** The pools a phase uses against one server: writes, one reader, and one connection per watcher. */
function poolsFor(
  url: string,
  p: Parameters,
): { writes: Pool; reads: Pool; watches: Pool; close: () => Promise<void> } {
  const writes = connectionPool(url, p.writeConcurrency);
  const reads = connectionPool(url, 1);
  const watches = connectionPool(url, p.watchers);
  return {
    writes,
    reads,
    watches,
    close: async () => {
      await Promise.allSettled([writes.destroy(), reads.destroy(), watches.destroy()]);
    },
  };
}

/** What the kubekit phase measured, and the files the baseline replays. */
interface KubekitFigures {
  readonly createMs: number;
  readonly statusMs: number;
  readonly heapEmpty: HeapStats;
  readonly heapLoaded: HeapStats;
  readonly fullList: readonly ListTimings[];
  readonly listBytes: number;
  readonly stringifyMs: readonly number[];
  readonly paginatedMs: readonly number[];
  readonly pages: number;
  /** The same number of changes, with no watcher open. */
  readonly quietPatchMs: number;
  readonly patchMs: number;
  readonly watchMs: number;
  readonly watchFrames: readonly number[];
  readonly resourceVersion: string;
  /** The full list's body as kubekit sent it. */
  readonly listFile: string;
  /** Each page's body as kubekit sent it, by the URL that requested it. */
  readonly pageRoutes: ReadonlyArray<{ url: string; file: string }>;
  /** The frames one watcher received. */
  readonly framesFile: string;
}

async function measureKubekit(
  ctx: BenchmarkContext,
  p: Parameters,
  dir: string,
): Promise<KubekitFigures> {
  const { signal } = ctx;
  ctx.log("kubekit: starting the API server process");
  const host = await HostProcess.start("kubekit");
  const pools = poolsFor(host.url, p);
  const counters: FrameCounter[] = [];
  try {
    const heapEmpty = await host.heap();
    for (const name of p.namespaces) {
      await sendWrite(pools.writes, namespaceCreateRequest(name));
    }

    ctx.log(`kubekit: creating ${p.pods} pods (POST, ${p.writeConcurrency} in flight)`);
    const create = await withTimeout(
      loadWrites(
        pools.writes,
        p.pods,
        p.writeConcurrency,
        (i) => podCreateRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "creating pods",
      signal,
    );
    ctx.log(
      `kubekit: created in ${create.ms.toFixed(0)} ms; writing their status (PATCH pods/status)`,
    );
    const status = await withTimeout(
      loadWrites(
        pools.writes,
        p.pods,
        p.writeConcurrency,
        (i) => podStatusRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "writing pod status",
      signal,
    );
    ctx.log(`kubekit: status written in ${status.ms.toFixed(0)} ms; measuring the heap`);
    const heapLoaded = await host.heap();

    ctx.log(`kubekit: full list, ${p.listWarmups} warm-up + ${p.listRuns} runs`);
    const listFile = join(dir, "full-list.json");
    const stringifyMs: number[] = [];
    let listBytes = 0;
    const fullList = await repeat(p.listWarmups, p.listRuns, async (i) => {
      collectGarbage();
      const read = await withTimeout(
        readList(pools.reads, FULL_LIST_URL, signal),
        LIST_TIMEOUT_MS,
        "full list",
        signal,
      );
      if (read.list.items.length !== p.pods) {
        throw new Error(`full list returned ${read.list.items.length} pods, expected ${p.pods}`);
      }
      if (i >= p.listWarmups) {
        collectGarbage();
        const start = performance.now();
        JSON.stringify(read.list);
        stringifyMs.push(performance.now() - start);
      }
      listBytes = read.body.length;
      if (i === p.listWarmups + p.listRuns - 1) await writeFile(listFile, read.body);
      return timingsOf(read);
    });

    ctx.log(
      `kubekit: paginated list (limit ${p.pageLimit}), ${p.listWarmups} warm-up + ${p.listRuns} runs`,
    );
    const pageRoutes: Array<{ url: string; file: string }> = [];
    let pages = 0;
    const paginatedMs = await repeat(p.listWarmups, p.listRuns, async (i) => {
      const last = i === p.listWarmups + p.listRuns - 1;
      collectGarbage();
      const read = await withTimeout(
        readPaginated(pools.reads, FULL_LIST_URL, p.pageLimit, { keepPages: last, signal }),
        LIST_TIMEOUT_MS,
        "paginated list",
        signal,
      );
      if (read.items !== p.pods) {
        throw new Error(`paginated list returned ${read.items} pods, expected ${p.pods}`);
      }
      pages = read.pageCount;
      for (const [n, page] of read.pages.entries()) {
        const file = join(dir, `page-${n}.json`);
        await writeFile(file, page.body);
        pageRoutes.push({ url: page.url, file });
      }
      return read.totalMs;
    });

    ctx.log(
      `kubekit: ${p.changes} changes (PATCH, ${p.writeConcurrency} in flight) with no watcher open`,
    );
    const quiet = await withTimeout(
      loadWrites(
        pools.writes,
        p.changes,
        p.writeConcurrency,
        (i) => changeRequest(p, (p.changes + i) % p.pods, `quiet-${i}`),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "changes without watchers",
      signal,
    );

    const resourceVersion =
      (await readList(pools.reads, `${FULL_LIST_URL}?limit=1`, signal)).list.metadata
        ?.resourceVersion ?? "";
    ctx.log(
      `kubekit: ${p.watchers} watchers from resourceVersion ${resourceVersion}, ${p.changes} changes (PATCH, ${p.writeConcurrency} in flight)`,
    );
    await openWatchers(pools.watches, watchUrl(resourceVersion), p.watchers, counters, true);
    const start = performance.now();
    const [patched, arrived] = await withTimeout(
      Promise.all([
        loadWrites(
          pools.writes,
          p.changes,
          p.writeConcurrency,
          (i) => changeRequest(p, i, `watched-${i}`),
          signal,
        ),
        lastArrival(counters, p.changes),
      ]),
      WATCH_TIMEOUT_MS,
      "watch fan-out",
      signal,
    );
    const watchFrames = counters.map((c) => c.frames);
    const framesFile = join(dir, "frames.ndjson");
    const recorded = (counters[0] as FrameCounter).recorded();
    verifyFrames(recorded, p.changes);
    await writeFile(framesFile, recorded);

    return {
      createMs: create.ms,
      statusMs: status.ms,
      heapEmpty,
      heapLoaded,
      fullList,
      listBytes,
      stringifyMs,
      paginatedMs,
      pages,
      quietPatchMs: quiet.ms,
      patchMs: patched.ms,
      watchMs: arrived - start,
      watchFrames,
      resourceVersion,
      listFile,
      pageRoutes,
      framesFile,
    };
  } finally {
    for (const c of counters) c.close();
    await pools.close();
    await host.stop();
  }
}

/** What the baseline phase measured. */
interface BareFigures {
  readonly createMs: number;
  readonly statusMs: number;
  readonly fullList: readonly ListTimings[];
  readonly paginatedMs: readonly number[];
  readonly watchMs: number;
  readonly watchFrames: readonly number[];
  readonly heapBefore: HeapStats;
  readonly heapHeld: HeapStats;
}

async function measureBare(
  ctx: BenchmarkContext,
  p: Parameters,
  k: KubekitFigures,
): Promise<BareFigures> {
  const { signal } = ctx;
  ctx.log("baseline: starting the bare node:http server process");
  const host = await HostProcess.start("bare");
  const pools = poolsFor(host.url, p);
  const counters: FrameCounter[] = [];
  try {
    ctx.log(`baseline: echoing the same ${p.pods} creates and ${p.pods} status patches`);
    const create = await withTimeout(
      loadWrites(
        pools.writes,
        p.pods,
        p.writeConcurrency,
        (i) => podCreateRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "echoing creates",
      signal,
    );
    const status = await withTimeout(
      loadWrites(
        pools.writes,
        p.pods,
        p.writeConcurrency,
        (i) => podStatusRequest(i, p.namespaces),
        signal,
      ),
      LOAD_TIMEOUT_MS,
      "echoing status patches",
      signal,
    );

    await host.count({
      type: "serve-bodies",
      routes: [{ url: FULL_LIST_URL, file: k.listFile }, ...k.pageRoutes],
    });
    ctx.log("baseline: full list and paginated list from the same bytes");
    const fullList = await repeat(p.listWarmups, p.listRuns, async () => {
      collectGarbage();
      const read = await withTimeout(
        readList(pools.reads, FULL_LIST_URL, signal),
        LIST_TIMEOUT_MS,
        "baseline full list",
        signal,
      );
      if (read.list.items.length !== p.pods) {
        throw new Error(`baseline full list has ${read.list.items.length} pods`);
      }
      return timingsOf(read);
    });
    const paginatedMs = await repeat(p.listWarmups, p.listRuns, async () => {
      collectGarbage();
      const read = await withTimeout(
        readPaginated(pools.reads, FULL_LIST_URL, p.pageLimit, { keepPages: false, signal }),
        LIST_TIMEOUT_MS,
        "baseline paginated list",
        signal,
      );
      if (read.items !== p.pods) throw new Error(`baseline paginated list has ${read.items} pods`);
      return read.totalMs;
    });

    const url = watchUrl(k.resourceVersion);
    const frames = await host.count({ type: "serve-frames", url, file: k.framesFile });
    if (frames !== p.changes) {
      throw new Error(`baseline loaded ${frames} frames, expected ${p.changes}`);
    }
    ctx.log(`baseline: streaming the same ${frames} frames to ${p.watchers} clients`);
    await openWatchers(pools.watches, url, p.watchers, counters, false);
    const start = performance.now();
    const [, arrived] = await withTimeout(
      Promise.all([
        sendWrite(pools.writes, {
          method: "POST",
          path: STREAM_TRIGGER_PATH,
          body: "",
          contentType: "application/json",
          expectStatus: 202,
          userAgent: BENCH_AGENT,
        }),
        lastArrival(counters, p.changes),
      ]),
      WATCH_TIMEOUT_MS,
      "baseline streaming",
      signal,
    );
    const watchFrames = counters.map((c) => c.frames);
    for (const c of counters) c.close();

    ctx.log("baseline: heap of the same pods held as parsed objects");
    const heapBefore = await host.heap();
    await host.count({ type: "hold-list", file: k.listFile });
    const heapHeld = await host.heap();
    return {
      createMs: create.ms,
      statusMs: status.ms,
      fullList,
      paginatedMs,
      watchMs: arrived - start,
      watchFrames,
      heapBefore,
      heapHeld,
    };
  } finally {
    for (const c of counters) c.close();
    await pools.close();
    await host.stop();
  }
}

function resultRows(p: Parameters, k: KubekitFigures, b: BareFigures): ResultRow[] {
  const echo = "bare node:http echo, same bodies";
  const sameBytes = "bare node:http, same bytes pre-serialized";
  const kFull = median(k.fullList.map((t) => t.totalMs));
  const kHeap = k.heapLoaded.heapUsed - k.heapEmpty.heapUsed;
  const bHeap = b.heapHeld.heapUsed - b.heapBefore.heapUsed;
  const events = p.watchers * p.changes;
  return [
    compareDurations(
      `create ${p.pods} pods (POST, ${p.writeConcurrency} in flight)`,
      k.createMs,
      { name: echo, ms: b.createMs },
      { count: p.pods, unit: "creates/s" },
    ),
    compareDurations(
      `status of ${p.pods} pods (PATCH pods/status, strategic)`,
      k.statusMs,
      { name: echo, ms: b.statusMs },
      { count: p.pods, unit: "patches/s" },
    ),
    {
      scenario: `server heap after loading ${p.pods} pods (Δ from empty)`,
      kubekit: { value: kHeap / MiB, unit: "MiB" },
      baseline: { name: "the same pods parsed, held in a Map", value: bHeap / MiB },
      ratio: kHeap / bHeap,
      throughput: { value: kHeap / p.pods, unit: "B/pod" },
      baselineThroughput: { value: bHeap / p.pods, unit: "B/pod" },
    },
    compareDurations(
      `full list (${p.pods} pods, read + JSON.parse)`,
      kFull,
      { name: sameBytes, ms: median(b.fullList.map((t) => t.totalMs)) },
      { count: p.pods, unit: "objects/s" },
    ),
    compareDurations(
      `full list: body received (before JSON.parse)`,
      median(k.fullList.map((t) => t.bodyMs)),
      { name: sameBytes, ms: median(b.fullList.map((t) => t.bodyMs)) },
      { count: p.pods, unit: "objects/s" },
    ),
    compareDurations(
      `full list: server time to first byte`,
      median(k.fullList.map((t) => t.headersMs)),
      { name: `JSON.stringify of the same ${p.pods} objects`, ms: median(k.stringifyMs) },
      { count: p.pods, unit: "objects/s" },
    ),
    compareDurations(
      `paginated list (limit ${p.pageLimit}, ${k.pages} pages, read + JSON.parse)`,
      median(k.paginatedMs),
      { name: sameBytes, ms: median(b.paginatedMs) },
      { count: p.pods, unit: "objects/s" },
    ),
    compareDurations(
      `${p.watchers} watchers × ${p.changes} MODIFIED (from the first PATCH to the last frame)`,
      k.watchMs,
      { name: `bare node:http streaming the same frames to ${p.watchers} clients`, ms: b.watchMs },
      { count: events, unit: "events/s" },
    ),
    compareDurations(
      `${p.changes} PATCH (merge) with ${p.watchers} watchers open`,
      k.patchMs,
      { name: `kubekit, ${p.changes} such PATCH with no watcher open`, ms: k.quietPatchMs },
      { count: p.changes, unit: "patches/s" },
    ),
  ];
}

function heapJson(heap: HeapStats): JsonObject {
  return { ...heap };
}

function timingsJson(samples: readonly ListTimings[]): JsonObject[] {
  return samples.map((t) => ({ ...t }));
}

function resultDetails(p: Parameters, k: KubekitFigures, b: BareFigures): JsonObject {
  return {
    parameters: { ...p, namespaces: [...p.namespaces] },
    listBodyBytes: k.listBytes,
    listBodyBytesPerPod: k.listBytes / p.pods,
    kubekit: {
      createMs: k.createMs,
      statusMs: k.statusMs,
      heapEmpty: heapJson(k.heapEmpty),
      heapLoaded: heapJson(k.heapLoaded),
      fullList: timingsJson(k.fullList),
      stringifyMs: [...k.stringifyMs],
      paginatedMs: [...k.paginatedMs],
      pages: k.pages,
      quietPatchMs: k.quietPatchMs,
      patchMs: k.patchMs,
      watchMs: k.watchMs,
      lagAfterLastPatchMs: k.watchMs - k.patchMs,
      watchFramesPerWatcher: [...k.watchFrames],
    },
    baseline: {
      createMs: b.createMs,
      statusMs: b.statusMs,
      fullList: timingsJson(b.fullList),
      paginatedMs: [...b.paginatedMs],
      watchMs: b.watchMs,
      watchFramesPerWatcher: [...b.watchFrames],
      heapBefore: heapJson(b.heapBefore),
      heapHeld: heapJson(b.heapHeld),
    },
  };
}

async function runServerBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const p = parameters();
  const dir = await mkdtemp(join(tmpdir(), "kubekit-bench-server-"));
  try {
    const k = await measureKubekit(ctx, p, dir);
    const b = await measureBare(ctx, p, k);
    return { rows: resultRows(p, k, b), details: resultDetails(p, k, b) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The server benchmark (`npm run bench server`). */
export const benchmark: Benchmark = {
  name: "server",
  description:
    "Embedded API server: 50k pods loaded over HTTP, a full list, a paginated list (limit 500) and 10 watchers × 10k MODIFIED events, each against a bare node:http / JSON.stringify baseline",
  timeoutMs: 20 * 60_000,
  run: runServerBenchmark,
};
