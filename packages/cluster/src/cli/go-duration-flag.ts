/** Milliseconds per unit of a Go duration (`time.ParseDuration`'s units). */
const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ["ns", 1e-6],
  ["us", 1e-3],
  ["µs", 1e-3],
  ["μs", 1e-3],
  ["ms", 1],
  ["s", 1000],
  ["m", 60_000],
  ["h", 3_600_000],
]);

/**
 * Parses a duration flag as Go's `time.ParseDuration` reads kube's duration flags (`1h`,
 * `30m`, `1h30m`, `1.5h`, `500ms`, a leading sign, and `0` alone): the milliseconds, or
 * undefined when `text` is not a Go duration (a number without unit, an unknown unit, empty).
 */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([+-]?)(.+)$/.exec(text);
  if (!match) return undefined;
  const [, sign, body = ""] = match;
  if (body === "0") return 0;
  let total = 0;
  let rest = body;
  while (rest !== "") {
    const part = /^(\d+\.?\d*|\.\d+)([a-zµμ]+)/.exec(rest);
    const unit = part ? UNIT_MS.get(part[2] ?? "") : undefined;
    if (!part || unit === undefined) return undefined;
    total += Number(part[1]) * unit;
    rest = rest.slice(part[0].length);
  }
  return sign === "-" ? -total : total;
}
