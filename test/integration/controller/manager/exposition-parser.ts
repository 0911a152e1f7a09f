/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4) for tests: every
 * line must be a `# HELP`, a `# TYPE`, a sample of the family typed last, or empty.
 */

/** One sample line. */
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** A metric family: its type and samples (a histogram's `_bucket`, `_sum`, `_count` included). */
export interface MetricFamily {
  readonly type: string;
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/y;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["_sum", "_count", ""],
};

/**
 * Parses `text` into families by name.
 *
 * @throws {Error} naming the line for anything malformed: an unknown type, a sample outside
 *   its family, a bad label set or value, a repeated family.
 */
export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  let current: { name: string; family: MetricFamily } | undefined;
  for (const [index, line] of text.split("\n").entries()) {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === "") continue;
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help !== null) {
      helps.set(help[1] as string, help[2] as string);
      continue;
    }
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) {
      const [, name = "", kind = ""] = type;
      if (!TYPES.has(kind)) throw new Error(`unknown type at ${where}`);
      if (families.has(name)) throw new Error(`family repeated at ${where}`);
      current = { name, family: { type: kind, help: helps.get(name) ?? "", samples: [] } };
      families.set(name, current.family);
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = SAMPLE.exec(line);
    if (sample === null) throw new Error(`malformed sample at ${where}`);
    const [, name = "", labelText = "", valueText = ""] = sample;
    if (current === undefined) throw new Error(`sample before any TYPE at ${where}`);
    const suffix = name.slice(current.name.length);
    const allowed = SUFFIXES[current.family.type] ?? [""];
    if (!name.startsWith(current.name) || !allowed.includes(suffix)) {
      throw new Error(`sample outside family ${current.name} at ${where}`);
    }
    const value = parseValue(valueText);
    if (value === undefined) throw new Error(`bad value at ${where}`);
    current.family.samples.push({ name, labels: parseLabels(labelText, where), value });
  }
  return families;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (match === null) throw new Error(`bad labels at ${where}`);
    labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) =>
      c === "n" ? "\n" : c,
    );
  }
  return labels;
}

function parseValue(text: string): number | undefined {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}
