/**
 * The benchmark runner: `npm run bench` runs every `bench/<name>.bench.ts`, `npm run bench
 * <name>` the named one. Each benchmark's rows are printed as a table (kubekit against a
 * baseline measured in the same run) and written with their details to
 * `bench/results/<name>.json`. Progress goes to stderr, tables to stdout.
 *
 * Each benchmark is aborted after its `timeoutMs`; if it has not settled 30 s later the
 * runner exits with status 1 (child processes exit with it). The exit status is 1 when any
 * benchmark failed. To profile the servers, set `KUBEKIT_BENCH_CPU_PROF=DIR`: every server
 * child process writes a CPU profile (`*.cpuprofile`) to DIR; the client side is profiled
 * with `node --cpu-prof --import tsx bench/run.ts`.
 *
 * `npm run bench -- [name] --compare FILE` runs the benchmark of an earlier results file (or
 * `name`, which must be the same) and then prints this run's figures against that file's,
 * so that a regression shows in one command (the results file is still written).
 */
import { setMaxListeners } from "node:events";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, BenchmarkResult } from "./support/benchmark.js";
import type { EarlierResults } from "./support/results-comparison.js";
import { formatComparisonTable, readEarlierResults } from "./support/results-comparison.js";
import { formatResultsTable, formatTextTable } from "./support/results-table.js";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(BENCH_DIR, "results");
const SUFFIX = ".bench.ts";
const ABORT_GRACE_MS = 30_000;

async function benchmarkNames(): Promise<string[]> {
  const files = await readdir(BENCH_DIR);
  return files
    .filter((f) => f.endsWith(SUFFIX))
    .map((f) => f.slice(0, -SUFFIX.length))
    .sort();
}

function isBenchmark(value: unknown): value is Benchmark {
  if (typeof value !== "object" || value === null) return false;
  const b = value as Record<string, unknown>;
  return (
    typeof b["name"] === "string" &&
    typeof b["run"] === "function" &&
    typeof b["timeoutMs"] === "number"
  );
}

async function loadBenchmark(name: string): Promise<Benchmark> {
  const module = (await import(pathToFileURL(join(BENCH_DIR, `${name}${SUFFIX}`)).href)) as {
    benchmark?: unknown;
  };
  if (!isBenchmark(module.benchmark)) {
    throw new Error(`bench/${name}${SUFFIX} does not export a \`benchmark\``);
  }
  if (module.benchmark.name !== name) {
    throw new Error(`bench/${name}${SUFFIX} exports a benchmark named "${module.benchmark.name}"`);
  }
  return module.benchmark;
}

/** Runs one benchmark under its deadline; resolves to its result or rejects with its failure. */
async function runWithDeadline(
  benchmark: Benchmark,
  log: (message: string) => void,
): Promise<BenchmarkResult> {
  const controller = new AbortController();
  // Every request in flight listens to the signal (16 or more at a time).
  setMaxListeners(256, controller.signal);
  let graceTimer: NodeJS.Timeout | undefined;
  const deadline = setTimeout(() => {
    controller.abort(new Error(`${benchmark.name} exceeded ${benchmark.timeoutMs} ms`));
    graceTimer = setTimeout(() => {
      console.error(
        `bench: ${benchmark.name} did not stop within ${ABORT_GRACE_MS} ms of its deadline; exiting`,
      );
      process.exit(1);
    }, ABORT_GRACE_MS);
  }, benchmark.timeoutMs);
  try {
    return await benchmark.run({ log, signal: controller.signal });
  } finally {
    clearTimeout(deadline);
    clearTimeout(graceTimer);
  }
}

/**
 * The rows of a benchmark's `details.targetChecks` (`{ target, value, bound, kind, met }`
 * objects, as the informer benchmark records them), for the targets table; none when absent.
 */
function targetLines(raw: unknown): string[][] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return [];
    const { target, value, bound, kind, met } = item as Record<string, unknown>;
    if (typeof target !== "string" || typeof value !== "number" || typeof bound !== "number") {
      return [];
    }
    return [
      [
        target,
        value.toFixed(3),
        `${kind === "min" ? ">=" : "<="} ${bound}`,
        met === true ? "met" : `missed by ${Math.abs(value - bound).toFixed(3)}`,
      ],
    ];
  });
}

async function runOne(name: string, earlier?: EarlierResults): Promise<boolean> {
  const startedAt = new Date();
  // The 1, 5 and 15-minute load averages: other work on the machine disturbs wall times.
  const loadAtStart = loadavg();
  const t0 = performance.now();
  const log = (message: string): void => {
    console.error(`[${name} +${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  };
  try {
    const benchmark = await loadBenchmark(name);
    log(benchmark.description);
    const result = await runWithDeadline(benchmark, log);
    const durationMs = performance.now() - t0;
    console.log(
      `\n${name} (${(durationMs / 1000).toFixed(1)} s; ratio = kubekit / baseline, lower is better)\n`,
    );
    console.log(formatResultsTable(result.rows));
    const checks = targetLines(result.details["targetChecks"]);
    if (checks.length > 0) {
      console.log(`\n${name} targets\n`);
      console.log(formatTextTable(["target", "value", "bound", "met"], checks, new Set([1, 2])));
    }
    if (earlier !== undefined) {
      console.log(`\n${name} against ${earlier.startedAt} (now/then above 1: more than then)\n`);
      console.log(formatComparisonTable(earlier, result.rows));
    }
    const file = join(RESULTS_DIR, `${name}.json`);
    await mkdir(RESULTS_DIR, { recursive: true });
    const cpuList = cpus();
    const report = {
      benchmark: name,
      description: benchmark.description,
      startedAt: startedAt.toISOString(),
      durationMs,
      environment: {
        node: process.version,
        platform: process.platform,
        arch: process.arch,
        cpus: cpuList.length,
        cpuModel: cpuList[0]?.model ?? "unknown",
        totalMemoryBytes: totalmem(),
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: loadavg(),
      },
      rows: result.rows,
      details: result.details,
    };
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nresults written to ${file}`);
    return true;
  } catch (err) {
    console.error(`bench: ${name} failed:`, err);
    return false;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const available = await benchmarkNames();
  const compareAt = args.indexOf("--compare");
  const compareFile = compareAt >= 0 ? args[compareAt + 1] : undefined;
  if (compareAt >= 0) args.splice(compareAt, 2);
  const earlier = compareFile !== undefined ? await readEarlierResults(compareFile) : undefined;
  const named = args[0] ?? earlier?.benchmark;
  if (
    args.length > 1 ||
    (compareAt >= 0 && compareFile === undefined) ||
    (named !== undefined && !available.includes(named)) ||
    (earlier !== undefined && named !== earlier.benchmark)
  ) {
    console.error(
      `usage: npm run bench -- [name] [--compare FILE]   (benchmarks: ${available.join(", ")}; FILE: an earlier results file of the same benchmark)`,
    );
    process.exitCode = 2;
    return;
  }
  const names = named !== undefined ? [named] : available;
  let ok = true;
  for (const name of names) ok = (await runOne(name, earlier)) && ok;
  process.exitCode = ok ? 0 : 1;
  // Everything is closed by now; a handle left open is a bug to report, not a reason to hang.
  setTimeout(() => {
    console.error("bench: handles still open 5 s after the last benchmark; exiting");
    process.exit(process.exitCode ?? 1);
  }, 5_000).unref();
}

await main();
