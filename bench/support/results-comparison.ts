import { readFile } from "node:fs/promises";
import type { ResultRow } from "./benchmark.js";
import { formatTextTable } from "./results-table.js";

/** The part of a results file (`bench/results/<name>.json`) a comparison reads. */
export interface EarlierResults {
  readonly benchmark: string;
  readonly startedAt: string;
  readonly rows: readonly ResultRow[];
}

/**
 * Reads an earlier results file for `npm run bench -- --compare FILE`.
 *
 * @throws {Error} naming the file when it cannot be read or is not a results file.
 */
export async function readEarlierResults(file: string): Promise<EarlierResults> {
  const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<EarlierResults>;
  if (
    typeof parsed.benchmark !== "string" ||
    typeof parsed.startedAt !== "string" ||
    !Array.isArray(parsed.rows)
  ) {
    throw new Error(`${file} is not a benchmark results file (benchmark, startedAt, rows)`);
  }
  return parsed as EarlierResults;
}

/**
 * What matches a row across runs: its scenario, without a figure it quotes in parentheses
 * (`(client-node/kubekit 2.03×)`), and its baseline.
 */
function rowKey(row: ResultRow): string {
  const scenario = row.scenario.replace(/ \([^()]*×\)/g, "");
  return `${scenario}\u0000${row.baseline?.name ?? ""}`;
}

function times(ratio: number | undefined): string {
  return ratio === undefined || !Number.isFinite(ratio) ? "—" : `${ratio.toFixed(2)}×`;
}

/**
 * Renders the rows of this run against those of an earlier one, matched by scenario and
 * baseline (a scenario may be compared with several baselines, one row each): each
 * kubekit figure then and now, now/then (above 1 is a regression for durations, memory and
 * delays), and the ratio to the baseline then and now (the figure that load on the machine
 * disturbs least). Rows of only one of the runs are listed with dashes.
 */
export function formatComparisonTable(earlier: EarlierResults, rows: readonly ResultRow[]): string {
  const before = new Map(earlier.rows.map((row) => [rowKey(row), row]));
  const now = new Map(rows.map((row) => [rowKey(row), row]));
  const scenarios = [...new Set([...now.keys(), ...before.keys()])];
  const figure = (row: ResultRow | undefined): string =>
    row === undefined ? "—" : `${row.kubekit.value.toFixed(1)} ${row.kubekit.unit}`;
  const lines = scenarios.map((scenario) => {
    const then = before.get(scenario);
    const current = now.get(scenario);
    const change =
      then !== undefined && current !== undefined
        ? current.kubekit.value / then.kubekit.value
        : undefined;
    const baseline = (current ?? then)?.baseline?.name;
    return [
      baseline !== undefined ? `${(current ?? then)?.scenario} (vs ${baseline})` : scenario,
      figure(then),
      figure(current),
      times(change),
      times(then?.ratio),
      times(current?.ratio),
    ];
  });
  return formatTextTable(
    [
      "scenario",
      `kubekit ${earlier.startedAt.slice(0, 16)}`,
      "kubekit now",
      "now/then",
      "ratio then",
      "ratio now",
    ],
    lines,
    new Set([1, 2, 3, 4, 5]),
  );
}
