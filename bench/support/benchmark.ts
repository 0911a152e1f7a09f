import type { JsonObject } from "kubekit";

/** A measured amount with its unit, e.g. `{ value: 1234.5, unit: "ms" }`. */
export interface Quantity {
  readonly value: number;
  readonly unit: string;
}

/**
 * One line of a benchmark's results: kubekit's figure for a scenario against a baseline
 * measured in the same run on the same machine, in the same unit.
 */
export interface ResultRow {
  readonly scenario: string;
  /** kubekit's figure (a duration or an amount of memory). */
  readonly kubekit: Quantity;
  /** The baseline, in `kubekit.unit`; absent when the scenario has none. */
  readonly baseline?: { readonly name: string; readonly value: number };
  /** kubekit / baseline; lower is better for durations and memory. Absent without a baseline. */
  readonly ratio?: number;
  /** kubekit's rate in the scenario (e.g. objects/s), or a size per object for memory rows. */
  readonly throughput?: Quantity;
  /** The baseline's rate, in `throughput.unit`. */
  readonly baselineThroughput?: Quantity;
}

/** What a benchmark returns: its result rows and the raw figures behind them. */
export interface BenchmarkResult {
  readonly rows: readonly ResultRow[];
  /** Parameters, samples and decompositions, written to the results file as they are. */
  readonly details: JsonObject;
}

/** What the runner gives a benchmark. */
export interface BenchmarkContext {
  /** Progress output (one line per call), kept apart from the results table. */
  log(message: string): void;
  /** Aborted when the runner's deadline for the benchmark passes; the benchmark must then clean up and reject. */
  readonly signal: AbortSignal;
}

/**
 * A benchmark the runner (`bench/run.ts`) can run: a file `bench/<name>.bench.ts` exporting
 * `benchmark`. `run` must release everything it started (servers, child processes,
 * connections, temporary files) before it settles, whether it succeeds or fails.
 */
export interface Benchmark {
  /** The name `npm run bench <name>` selects; equals the file name without `.bench.ts`. */
  readonly name: string;
  readonly description: string;
  /** The runner aborts `context.signal` after this long. */
  readonly timeoutMs: number;
  run(context: BenchmarkContext): Promise<BenchmarkResult>;
}

/** A result row comparing two durations in milliseconds, with the ratio computed. */
export function compareDurations(
  scenario: string,
  kubekitMs: number,
  baseline: { readonly name: string; readonly ms: number } | undefined,
  work?: { readonly count: number; readonly unit: string },
): ResultRow {
  return {
    scenario,
    kubekit: { value: kubekitMs, unit: "ms" },
    ...(baseline
      ? { baseline: { name: baseline.name, value: baseline.ms }, ratio: kubekitMs / baseline.ms }
      : {}),
    ...(work ? { throughput: { value: (work.count * 1000) / kubekitMs, unit: work.unit } } : {}),
    ...(work && baseline
      ? { baselineThroughput: { value: (work.count * 1000) / baseline.ms, unit: work.unit } }
      : {}),
  };
}
