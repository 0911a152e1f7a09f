/**
 * The embedded API server at scale (issue 24 §1): 1M stored pods of about 5.2 KB of JSON
 * each (`support/stored-pods.ts`), preloaded in the server's process with
 * `ApiServer.loadObjects`, and measured against issue 24's targets:
 *
 * - memory per stored pod (heapUsed + arrayBuffers, Δ from the empty server) ≤ 1.3× its
 *   JSON (its bytes in the list body); heapUsed alone is reported beside it;
 * - a full LIST of every pod succeeds and streams at ≥ 0.5× the throughput of a bare
 *   node:http server writing the same bytes, held in memory, to the socket;
 * - paged LIST (limit 500) server CPU per page at 1M stored ≤ 1.2× at 10k stored (pages
 *   from the start and from the middle of the key space);
 * - create (POST) server CPU per pod at 1M stored ≤ 1.15× from an (almost) empty store;
 * - watch delivery with 100 watchers ≤ 10 µs of server CPU per watcher per event: the
 *   server CPU of PATCHes with 100 watchers open minus that of the same PATCHes with none,
 *   per watcher and event.
 *
 * Every CPU figure is the server process's own (user + system, `process.cpuUsage()` in the
 * child), which other load on the machine disturbs far less than wall time; wall times and
 * the bare server's figures are reported beside them. The load average of the machine is
 * recorded at the start and the end (`details.machine`). Targets go to `details.targets`
 * and into the table ("met" / "MISSED" in the row's scenario).
 *
 * Both servers run in a child process of their own (see support/host-process.ts); the
 * client (undici pools) runs in this process. `KUBEKIT_BENCH_SCALE` (default 1) scales the
 * store (0.01 → 10k stored pods, compared with 1k) and, by its square root, the numbers of
 * creates and changes.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Pool } from "undici";
import type { JsonObject } from "kubekit";
import type { Benchmark, BenchmarkContext, BenchmarkResult } from "./support/benchmark.js";
import { FrameCounter } from "./support/frame-counter.js";
import { HostProcess } from "./support/host-process.js";
import { STREAM_TRIGGER_PATH, type HeapStats } from "./support/host-protocol.js";
import { connectionPool, loadWrites, sendWrite, type WriteRequest } from "./support/http-load.js";
import { readList, readPages, streamList, type ListStreamed } from "./support/list-reader.js";
import { BENCH_AGENT, namespaceCreateRequest } from "./support/pod-writes.js";
import { makePod } from "./support/pods.js";
import {
  serverResultRows,
  serverTargets,
  type BareFigures,
  type CpuWall,
  type KubekitFigures,
  type PagingFigures,
  type ServerParameters,
} from "./support/server-figures.js";
import { STORED_POD_MARKER, storedPodCreateRequest } from "./support/stored-pods.js";
import { median, withTimeout } from "./support/timing.js";

function scaleFromEnvironment(): number {
  const raw = process.env["KUBEKIT_BENCH_SCALE"];
  const scale = raw === undefined || raw === "" ? 1 : Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`KUBEKIT_BENCH_SCALE must be in (0, 1], got "${raw ?? ""}"`);
  }
  return scale;
}

function parameters(): ServerParameters {
  const scale = scaleFromEnvironment();
  const stored = Math.max(2_000, Math.round(1_000_000 * scale));
  const root = Math.sqrt(scale);
  return {
    scale,
    stored,
    small: Math.min(10_000, Math.max(1_000, Math.round(stored / 100))),
    namespaces: Array.from({ length: 10 }, (_, i) => `bench-${String(i).padStart(2, "0")}`),
    writeConcurrency: 16,
    warmCreates: Math.max(300, Math.round(1_000 * root)),
    creates: Math.max(200, Math.round(2_000 * root)),
    pageLimit: 500,
    minPagesSmall: 40,
    pagesLarge: 40,
    loadChunk: 25_000,
    listRuns: 2,
    watchers: 100,
    warmChanges: 200,
    changes: Math.max(100, Math.round(1_000 * root)),
    // Room for the heap if each stored pod held up to 8 KB of it, with 2 GiB of slack.
    heapLimitMiB: 2_048 + Math.ceil((stored * 8_192) / (1024 * 1024)),
  };
}

const LOAD_CHUNK_TIMEOUT_MS = 15 * 60_000;
const LOAD_TIMEOUT_MS = 300_000;
const LIST_TIMEOUT_MS = 600_000;
const WATCH_TIMEOUT_MS = 300_000;
const PODS_URL = "/api/v1/pods";

/** The server process's CPU time so far (user + system), in ms. */
async function cpuOf(host: HostProcess): Promise<number> {
  const { userMs, systemMs } = await host.cpu();
  return userMs + systemMs;
}

/**
 * Runs `task` and returns the server CPU and the wall time it took, with its result. With
 * `collect` (the default) the server first collects its garbage, so that no phase pays for
 * the garbage of the one before it.
 */
async function measured<T>(
  host: HostProcess,
  task: () => Promise<T>,
  collect = true,
): Promise<CpuWall & { result: T }> {
  if (collect) await host.heap();
  const cpu0 = await cpuOf(host);
  const start = performance.now();
  const result = await task();
  const wallMs = performance.now() - start;
  return { cpuMs: (await cpuOf(host)) - cpu0, wallMs, result };
}

/** A change: an annotation of stored pod `index` set to `value` (one MODIFIED event when new). */
function changeRequest(p: ServerParameters, index: number, value: string): WriteRequest {
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

/** The pools of one server: writes, one reader, and one connection per watcher. */
interface Pools {
  readonly writes: Pool;
  readonly reads: Pool;
  readonly watches: Pool;
  close(): Promise<void>;
}

function poolsFor(url: string, p: ServerParameters): Pools {
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

/** One phase against one server: its process, pools and the run's context. */
interface Phase {
  readonly ctx: BenchmarkContext;
  readonly p: ServerParameters;
  readonly host: HostProcess;
  readonly pools: Pools;
  readonly dir: string;
}

/** POSTs `warm` then `count` pods of indexes from `first`; measures the `count` creates. */
async function measureCreates(
  ph: Phase,
  first: number,
  warm: number,
  count: number,
): Promise<CpuWall> {
  const { p, pools, ctx } = ph;
  const post = (from: number, n: number): Promise<unknown> =>
    withTimeout(
      loadWrites(
        pools.writes,
        n,
        p.writeConcurrency,
        (i) => storedPodCreateRequest(from + i, p.namespaces),
        ctx.signal,
      ),
      LOAD_TIMEOUT_MS,
      "creating pods",
      ctx.signal,
    );
  if (warm > 0) await post(first, warm);
  const { cpuMs, wallMs } = await measured(ph.host, () => post(first + warm, count));
  return { cpuMs, wallMs };
}

/** Preloads pods `first … first+count-1` with `loadObjects` in the server's process, in chunks. */
async function preload(ph: Phase, first: number, count: number): Promise<CpuWall> {
  const { p, ctx, host } = ph;
  const cpu0 = await cpuOf(host);
  const start = performance.now();
  for (let done = 0; done < count;) {
    const n = Math.min(p.loadChunk, count - done);
    const created = await withTimeout(
      host.count(
        { type: "load-pods", first: first + done, count: n, namespaces: p.namespaces },
        LOAD_CHUNK_TIMEOUT_MS,
      ),
      LOAD_CHUNK_TIMEOUT_MS,
      "preloading pods",
      ctx.signal,
    );
    if (created !== n) throw new Error(`loadObjects created ${created} of ${n} pods`);
    done += n;
    const s = (performance.now() - start) / 1000;
    if (done === count || (done / p.loadChunk) % 4 === 0) {
      const cpuPerPod = ((await cpuOf(host)) - cpu0) / done;
      ctx.log(
        `kubekit: preloaded ${first + done} pods (${(done / s).toFixed(0)} pods/s, ${cpuPerPod.toFixed(2)} ms of server CPU per pod in this phase)`,
      );
    }
  }
  return { cpuMs: (await cpuOf(host)) - cpu0, wallMs: performance.now() - start };
}

/** Walks the whole list page by page, repeatedly, until at least `minPages` pages are measured. */
async function pagingSmall(ph: Phase): Promise<PagingFigures> {
  const { p, pools, ctx, host } = ph;
  const walk = (): Promise<{ pageCount: number; items: number }> =>
    withTimeout(
      readPages(pools.reads, PODS_URL, p.pageLimit, { pages: 100_000, signal: ctx.signal }),
      LIST_TIMEOUT_MS,
      "paginated list",
      ctx.signal,
    );
  await walk();
  let pages = 0;
  let cpuMs = 0;
  let wallMs = 0;
  while (pages < p.minPagesSmall) {
    const m = await measured(host, walk);
    if (m.result.items !== p.small) {
      throw new Error(`paginated list returned ${m.result.items} pods, expected ${p.small}`);
    }
    pages += m.result.pageCount;
    cpuMs += m.cpuMs;
    wallMs += m.wallMs;
  }
  return { pages, cpuMs, wallMs, segments: { whole: pages } };
}

/**
 * The continue token `token` with its start key replaced by `key`: kube's token is base64url
 * JSON `{"v","rv","start"}` (storage/etcd3: continue.go). Undefined when `token` has another shape.
 */
function tokenStartingAt(token: string, key: string): string | undefined {
  try {
    const json = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (typeof json !== "object" || json === null || !("start" in json)) return undefined;
    return Buffer.from(JSON.stringify({ ...json, start: key })).toString("base64url");
  } catch {
    return undefined;
  }
}

/** Pages at the full store: from the start, and from the middle of the key space when possible. */
async function pagingLarge(ph: Phase): Promise<PagingFigures & { firstToken: string }> {
  const { p, pools, ctx, host } = ph;
  const read = (pages: number, startToken?: string) =>
    withTimeout(
      readPages(pools.reads, PODS_URL, p.pageLimit, {
        pages,
        signal: ctx.signal,
        ...(startToken !== undefined ? { startToken } : {}),
      }),
      LIST_TIMEOUT_MS,
      "paginated list",
      ctx.signal,
    );
  const warm = await read(5);
  const fromStart = await measured(host, () => read(p.pagesLarge));
  const firstToken = warm.tokens[0] ?? "";
  // "After the key NAMESPACE" (kube's tokens end the start key with NUL): the middle namespace's pods.
  const middleKey = `${p.namespaces[p.namespaces.length >> 1] ?? ""}\u0000`;
  const middleToken = tokenStartingAt(firstToken, middleKey);
  let fromMiddle: (CpuWall & { result: { pageCount: number } }) | undefined;
  if (middleToken === undefined) {
    ctx.log("kubekit: the continue token is not kube's JSON shape; paging from the start only");
  } else {
    fromMiddle = await measured(host, () => read(p.pagesLarge, middleToken));
  }
  const pages = fromStart.result.pageCount + (fromMiddle?.result.pageCount ?? 0);
  return {
    pages,
    cpuMs: fromStart.cpuMs + (fromMiddle?.cpuMs ?? 0),
    wallMs: fromStart.wallMs + (fromMiddle?.wallMs ?? 0),
    segments: {
      fromStart: fromStart.result.pageCount,
      fromMiddle: fromMiddle?.result.pageCount ?? 0,
      fromStartCpuMs: fromStart.cpuMs,
      fromMiddleCpuMs: fromMiddle?.cpuMs ?? null,
    },
    firstToken,
  };
}

/** Pages read from a continue token issued before writes (a list at an older revision). */
async function pagingAtOlderRevision(
  ph: Phase,
  token: string,
): Promise<PagingFigures | { error: string }> {
  const { p, pools, ctx, host } = ph;
  try {
    const m = await measured(host, () =>
      withTimeout(
        readPages(pools.reads, PODS_URL, p.pageLimit, {
          pages: 10,
          startToken: token,
          signal: ctx.signal,
        }),
        LIST_TIMEOUT_MS,
        "paginated list at an older revision",
        ctx.signal,
      ),
    );
    return { pages: m.result.pageCount, cpuMs: m.cpuMs, wallMs: m.wallMs, segments: {} };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    ctx.log(`kubekit: paging at an older revision failed: ${error.slice(0, 300)}`);
    return { error };
  }
}

/** Streams the full list `runs` times after one recorded (unmeasured) run; checks every pod is there. */
async function fullLists(
  ph: Phase,
  expected: number,
  runs: number,
  recordTo?: string,
): Promise<Array<ListStreamed & { cpuMs: number }>> {
  const { pools, ctx, host } = ph;
  const out: Array<ListStreamed & { cpuMs: number }> = [];
  for (let i = -1; i < runs; i++) {
    const m = await measured(host, () =>
      withTimeout(
        streamList(pools.reads, PODS_URL, {
          marker: STORED_POD_MARKER,
          signal: ctx.signal,
          ...(i < 0 && recordTo !== undefined ? { recordTo } : {}),
        }),
        LIST_TIMEOUT_MS,
        "full list",
        ctx.signal,
      ),
    );
    const read = m.result;
    if (read.markers !== expected || !/\]\s*\}\s*$/.test(read.tail)) {
      throw new Error(
        `full list: ${read.markers} pods of ${expected} in ${read.bytes} bytes, ending ${JSON.stringify(read.tail)}`,
      );
    }
    ctx.log(
      `${i < 0 ? "warm-up" : `run ${i + 1}`}: ${(read.bytes / 1e6).toFixed(0)} MB in ${read.bodyMs.toFixed(0)} ms, server CPU ${m.cpuMs.toFixed(0)} ms`,
    );
    if (i >= 0) out.push({ ...read, cpuMs: m.cpuMs });
  }
  return out;
}

/** Opens `count` watches of `url` (the first recording its bytes when `recordFirst`). */
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

/** Resolves to the instant the last counter got `target` frames. */
async function lastArrival(counters: readonly FrameCounter[], target: number): Promise<number> {
  return Math.max(...(await Promise.all(counters.map((c) => c.waitFor(target, WATCH_TIMEOUT_MS)))));
}

/** The lines of `bytes` after the first `skip`, checked to be `expected` MODIFIED frames. */
function measuredFrames(bytes: Buffer, skip: number, expected: number): string {
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length !== skip + expected) {
    throw new Error(`watch sent ${lines.length} events, expected ${skip + expected}`);
  }
  for (const line of lines) {
    const type = (JSON.parse(line) as { type?: unknown }).type;
    if (type !== "MODIFIED") throw new Error(`watch sent a ${String(type)} event`);
  }
  return `${lines.slice(skip).join("\n")}\n`;
}

/** PATCHes of stored pods `first …` (`warm` unmeasured, then `p.changes`), with `tag` values. */
function patchChanges(ph: Phase, first: number, count: number, tag: string): Promise<unknown> {
  const { p, pools, ctx } = ph;
  return withTimeout(
    loadWrites(
      pools.writes,
      count,
      p.writeConcurrency,
      (i) => changeRequest(p, (first + i) % p.stored, `${tag}-${i}`),
      ctx.signal,
    ),
    WATCH_TIMEOUT_MS,
    `changes (${tag})`,
    ctx.signal,
  );
}

/** PATCHes of pods `first …` (`p.warmChanges` unmeasured, then `p.changes`) with `p.watchers` watching every pod. */
async function watchedChanges(
  ph: Phase,
  first: number,
): Promise<Omit<KubekitFigures["watch"], "quiet" | "quietRounds">> {
  const { p, pools, ctx, host } = ph;
  const n = p.warmChanges + p.changes;
  const rv =
    (await readList(pools.reads, `${PODS_URL}?limit=1`, ctx.signal)).list.metadata
      ?.resourceVersion ?? "";
  ctx.log(`kubekit: ${p.watchers} watchers from resourceVersion ${rv}, ${n} changes`);
  const counters: FrameCounter[] = [];
  try {
    const url = `${PODS_URL}?watch=true&resourceVersion=${rv}`;
    await openWatchers(pools.watches, url, p.watchers, counters, true);
    await Promise.all([
      patchChanges(ph, first, p.warmChanges, "watched-warm"),
      lastArrival(counters, p.warmChanges),
    ]);
    const watched = await measured(host, async () => {
      const start = performance.now();
      const [patched, arrived] = await Promise.all([
        measured(host, () => patchChanges(ph, first + p.warmChanges, p.changes, "watched"), false),
        lastArrival(counters, n),
      ]);
      return { patchWallMs: patched.wallMs, arrivedMs: arrived - start };
    });
    const frames = measuredFrames(
      (counters[0] as FrameCounter).recorded(),
      p.warmChanges,
      p.changes,
    );
    const framesFile = join(ph.dir, "frames.ndjson");
    await writeFile(framesFile, frames);
    return {
      url,
      watched: { cpuMs: watched.cpuMs, wallMs: watched.result.arrivedMs },
      watchedPatchWallMs: watched.result.patchWallMs,
      framesFile,
      frameBytes: Buffer.byteLength(frames) / p.changes,
    };
  } finally {
    for (const c of counters) c.close();
  }
}

/**
 * The same number of PATCHes with no watcher open before and after those with `p.watchers`
 * watching every pod: the quiet figure is the mean of both rounds, so that drift of the
 * PATCHes' own cost during the run does not show as watch cost.
 */
async function watchFanOut(ph: Phase): Promise<KubekitFigures["watch"]> {
  const { p, host } = ph;
  const n = p.warmChanges + p.changes;
  await patchChanges(ph, 0, p.warmChanges, "quiet-warm");
  const before = await measured(host, () => patchChanges(ph, p.warmChanges, p.changes, "quiet"));
  const watched = await watchedChanges(ph, n);
  // Let the server see the watchers' connections close before the second quiet round.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const after = await measured(host, () => patchChanges(ph, 2 * n, p.changes, "quiet-after"));
  const rounds = [before, after].map(({ cpuMs, wallMs }) => ({ cpuMs, wallMs }));
  return {
    ...watched,
    quiet: { cpuMs: (before.cpuMs + after.cpuMs) / 2, wallMs: (before.wallMs + after.wallMs) / 2 },
    quietRounds: rounds,
  };
}

async function withPhase<T>(
  ctx: BenchmarkContext,
  p: ServerParameters,
  dir: string,
  server: "kubekit" | "bare",
  run: (ph: Phase) => Promise<T>,
): Promise<T> {
  const host = await HostProcess.start(server, { heapLimitMiB: p.heapLimitMiB });
  const pools = poolsFor(host.url, p);
  try {
    return await run({ ctx, p, host, pools, dir });
  } finally {
    await pools.close();
    await host.stop();
  }
}

/** Creates from empty, the small store, the full store, then reads and watches at the full store. */
async function measureKubekit(ph: Phase): Promise<KubekitFigures> {
  const { ctx, p, host, pools } = ph;
  const heapEmpty = await host.heap();
  for (const name of p.namespaces) await sendWrite(pools.writes, namespaceCreateRequest(name));
  // Index ranges: preload [0, stored - early); early creates [stored - early, stored); late creates [stored, …).
  const early = p.warmCreates + p.creates;
  ctx.log(`kubekit: ${p.warmCreates} warm-up + ${p.creates} creates (POST) into an empty store`);
  const createEmpty = await measureCreates(ph, p.stored - early, p.warmCreates, p.creates);
  ctx.log(`kubekit: preloading to ${p.small} pods (loadObjects)`);
  const preloadSmall = await preload(ph, 0, p.small - early);
  const heapSmall = await host.heap();
  ctx.log(`kubekit: paged list (limit ${p.pageLimit}) at ${p.small} stored`);
  const pagedSmall = await pagingSmall(ph);
  const smallListFile = join(ph.dir, "small-list.json");
  await writeFile(smallListFile, (await readList(pools.reads, PODS_URL, ctx.signal)).body);

  ctx.log(`kubekit: preloading to ${p.stored} pods (loadObjects, ${p.loadChunk} per request)`);
  const preloadLarge = await preload(ph, p.small - early, p.stored - p.small);
  const heapFull = await host.heap();
  ctx.log(`kubekit: heap ${describeHeap(heapEmpty, heapFull, p.stored)}`);
  ctx.log(`kubekit: ${p.creates} creates (POST) at ${p.stored} stored`);
  const createFull = await measureCreates(ph, p.stored, 100, p.creates);
  const listed = p.stored + 100 + p.creates;
  ctx.log(`kubekit: paged list at ${listed} stored`);
  const pagedLarge = await pagingLarge(ph);
  ctx.log(`kubekit: full list of ${listed} pods, 1 recorded + ${p.listRuns} runs`);
  const fullListFile = join(ph.dir, "full-list.json");
  const fullList = await fullLists(ph, listed, p.listRuns, fullListFile);
  ctx.log(`kubekit: watch fan-out (${p.watchers} watchers × ${p.changes} changes)`);
  const watch = await watchFanOut(ph);
  ctx.log("kubekit: paged list from a continue token issued before the changes");
  const pagedOlder = await pagingAtOlderRevision(ph, pagedLarge.firstToken);
  return {
    heapEmpty,
    heapSmall,
    heapFull,
    preloadSmall,
    preloadLarge,
    createEmpty,
    createFull,
    pagedSmall,
    pagedLarge,
    pagedOlder,
    listed,
    fullList,
    fullListFile,
    smallListFile,
    watch,
  };
}

function describeHeap(empty: HeapStats, full: HeapStats, pods: number): string {
  const used = (full.heapUsed - empty.heapUsed) / pods;
  const buffers = (full.arrayBuffers - empty.arrayBuffers) / pods;
  return `${used.toFixed(0)} B/pod heapUsed + ${buffers.toFixed(0)} B/pod arrayBuffers (rss ${(full.rss / 2 ** 20).toFixed(0)} MiB)`;
}

/** The bare server: the same creates echoed, the same list bytes and frames, the parsed heap. */
async function measureBare(ph: Phase, k: KubekitFigures): Promise<BareFigures> {
  const { ctx, p, host, pools } = ph;
  ctx.log(`baseline: echoing ${p.creates} creates`);
  const createEcho = await measureCreates(ph, p.stored, 100, p.creates);
  ctx.log("baseline: loading the full list's bytes into memory");
  const bytes = await host.count(
    { type: "serve-stream", url: PODS_URL, file: k.fullListFile },
    LIST_TIMEOUT_MS,
  );
  await rm(k.fullListFile, { force: true });
  ctx.log(`baseline: streaming ${(bytes / 1e6).toFixed(0)} MB, 1 warm-up + ${p.listRuns} runs`);
  const fullList = await fullLists(ph, k.listed, p.listRuns);

  const frames = await host.count({
    type: "serve-frames",
    url: k.watch.url,
    file: k.watch.framesFile,
  });
  if (frames !== p.changes) throw new Error(`baseline loaded ${frames} frames of ${p.changes}`);
  ctx.log(`baseline: streaming the same ${frames} frames to ${p.watchers} clients`);
  const counters: FrameCounter[] = [];
  let stream: CpuWall;
  try {
    await openWatchers(pools.watches, k.watch.url, p.watchers, counters, false);
    const m = await measured(host, async () => {
      const start = performance.now();
      const [, arrived] = await Promise.all([
        sendWrite(pools.writes, {
          method: "POST",
          path: STREAM_TRIGGER_PATH,
          body: "",
          contentType: "application/json",
          expectStatus: 202,
          userAgent: BENCH_AGENT,
        }),
        lastArrival(counters, p.changes),
      ]);
      return arrived - start;
    });
    stream = { cpuMs: m.cpuMs, wallMs: m.result };
  } finally {
    for (const c of counters) c.close();
  }
  ctx.log(`baseline: heap of the ${p.small}-pod list held as parsed objects`);
  const heapBefore = await host.heap();
  const held = await host.count({ type: "hold-list", file: k.smallListFile });
  const heapHeld = await host.heap();
  return { createEcho, fullList, stream, heapBefore, heapHeld, held };
}

function machine(): JsonObject {
  return { loadavg: loadavg() };
}

/** The commit measured and the server files changed from it (the working tree is measured as it is). */
function sourceState(): JsonObject {
  const git = (args: string[]): string =>
    execFileSync("git", args, {
      cwd: fileURLToPath(new URL("../", import.meta.url)),
      encoding: "utf8",
    }).trimEnd();
  try {
    return {
      commit: git(["rev-parse", "HEAD"]),
      apiserverChanges: git(["status", "--porcelain", "--", "packages/apiserver"])
        .split("\n")
        .filter((line) => line !== ""),
    };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function procLoadavg(): Promise<string> {
  return (await readFile("/proc/loadavg", "utf8").catch(() => "")).trim();
}

async function runServerBenchmark(ctx: BenchmarkContext): Promise<BenchmarkResult> {
  const p = parameters();
  const loadAtStart = await procLoadavg();
  ctx.log(`machine load at start: ${loadAtStart}`);
  const dir = await mkdtemp(join(tmpdir(), "kubekit-bench-server-"));
  try {
    const k = await withPhase(ctx, p, dir, "kubekit", measureKubekit);
    const b = await withPhase(ctx, p, dir, "bare", (ph) => measureBare(ph, k));
    const loadAtEnd = await procLoadavg();
    ctx.log(`machine load at end: ${loadAtEnd}`);
    const targets = serverTargets(p, k, b);
    ctx.log(`targets: ${JSON.stringify(targets)}`);
    return {
      rows: serverResultRows(p, k, b),
      details: {
        parameters: { ...p, namespaces: [...p.namespaces] },
        machine: { ...machine(), procLoadavgAtStart: loadAtStart, procLoadavgAtEnd: loadAtEnd },
        targets,
        source: sourceState(),
        kubekit: kubekitDetails(k),
        baseline: {
          createEcho: { ...b.createEcho },
          fullList: b.fullList.map((r) => ({ ...r })),
          stream: { ...b.stream },
          heapBefore: { ...b.heapBefore },
          heapHeld: { ...b.heapHeld },
          held: b.held,
        },
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function kubekitDetails(k: KubekitFigures): JsonObject {
  return {
    heapEmpty: { ...k.heapEmpty },
    heapSmall: { ...k.heapSmall },
    heapFull: { ...k.heapFull },
    preloadSmall: { ...k.preloadSmall },
    preloadLarge: { ...k.preloadLarge },
    createEmpty: { ...k.createEmpty },
    createFull: { ...k.createFull },
    pagedSmall: { ...k.pagedSmall, segments: { ...k.pagedSmall.segments } },
    pagedLarge: {
      pages: k.pagedLarge.pages,
      cpuMs: k.pagedLarge.cpuMs,
      wallMs: k.pagedLarge.wallMs,
      segments: { ...k.pagedLarge.segments },
    },
    pagedOlder:
      "error" in k.pagedOlder ? { error: k.pagedOlder.error } : { ...k.pagedOlder, segments: {} },
    listed: k.listed,
    fullList: k.fullList.map((r) => ({ ...r })),
    fullListMedianBodyMs: median(k.fullList.map((r) => r.bodyMs)),
    watch: {
      quiet: { ...k.watch.quiet },
      quietRounds: k.watch.quietRounds.map((r) => ({ ...r })),
      watched: { ...k.watch.watched },
      watchedPatchWallMs: k.watch.watchedPatchWallMs,
      frameBytes: k.watch.frameBytes,
    },
  };
}

/** The server benchmark (`npm run bench server`). */
export const benchmark: Benchmark = {
  name: "server",
  description:
    "Embedded API server at 1M stored pods of 5.2 KB (KUBEKIT_BENCH_SCALE scales it): memory per pod, a full list against a bare server's bytes, paged lists and creates against a small store, and 100 watchers",
  timeoutMs: 60 * 60_000,
  run: runServerBenchmark,
};
