import type { Quantity, ResultRow } from "./benchmark.js";

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function formatQuantity(q: Quantity | undefined): string {
  return q ? `${formatNumber(q.value)} ${q.unit}` : "—";
}

/**
 * Renders result rows as a plain-text table: scenario, kubekit's figure, the baseline's,
 * their ratio (kubekit/baseline, lower is better), both throughputs and what the baseline is.
 */
export function formatResultsTable(rows: readonly ResultRow[]): string {
  const header = [
    "scenario",
    "kubekit",
    "baseline",
    "ratio",
    "kubekit rate",
    "baseline rate",
    "baseline is",
  ];
  const lines = rows.map((row) => [
    row.scenario,
    formatQuantity(row.kubekit),
    row.baseline ? formatQuantity({ value: row.baseline.value, unit: row.kubekit.unit }) : "—",
    row.ratio !== undefined ? `${row.ratio.toFixed(2)}×` : "—",
    formatQuantity(row.throughput),
    formatQuantity(row.baselineThroughput),
    row.baseline?.name ?? "—",
  ]);
  return formatTextTable(header, lines, new Set([1, 2, 3, 4, 5]));
}

/** Renders cells as a plain-text table under `header`; `numeric` columns are right-aligned. */
export function formatTextTable(
  header: readonly string[],
  lines: readonly (readonly string[])[],
  numeric: ReadonlySet<number>,
): string {
  const widths = header.map((h, col) =>
    Math.max(h.length, ...lines.map((cells) => (cells[col] as string).length)),
  );
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, col) =>
        numeric.has(col)
          ? cell.padStart(widths[col] as number)
          : cell.padEnd(widths[col] as number),
      )
      .join("  ")
      .trimEnd();
  return [render(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(render)].join(
    "\n",
  );
}
