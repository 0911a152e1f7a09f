/**
 * Small layout rules of the generated TypeScript, chosen to be what prettier prints at the
 * repository's width (100 columns), so that generated files pass `prettier --check` as written.
 */

/** The line width the output is written for (the repository's prettier `printWidth`). */
export const WIDTH = 100;

/** `import { a, b } from "m";`, broken one name per line when it does not fit. */
export function importStatement(names: readonly string[], from: string, typeOnly: boolean): string {
  const head = typeOnly ? "import type" : "import";
  const sorted = [...names].sort();
  const line = `${head} { ${sorted.join(", ")} } from ${JSON.stringify(from)};`;
  if (line.length <= WIDTH) return `${line}\n`;
  return `${head} {\n${sorted.map((name) => `  ${name},\n`).join("")}} from ${JSON.stringify(from)};\n`;
}

/** `export function name(params): returns {`, with one parameter per line when it does not fit. */
export function functionSignature(
  name: string,
  params: readonly string[],
  returns: string,
): string {
  const line = `export function ${name}(${params.join(", ")}): ${returns} {`;
  if (line.length <= WIDTH) return `${line}\n`;
  return `export function ${name}(\n${params.map((p) => `  ${p},\n`).join("")}): ${returns} {\n`;
}

/** A JSON array of strings as `key: [...]` at `indent`, broken one item per line when it does not fit. */
export function stringArrayMember(key: string, values: readonly string[], indent: string): string {
  const items = values.map((value) => JSON.stringify(value));
  const line = `${indent}${key}: [${items.join(", ")}],`;
  if (line.length <= WIDTH) return `${line}\n`;
  return `${indent}${key}: [\n${items.map((item) => `${indent}  ${item},\n`).join("")}${indent}],\n`;
}

/** A JSON value (strings, numbers, booleans, arrays of them) as a TypeScript literal. */
function literal(value: unknown): string {
  return Array.isArray(value) ? `[${value.map(literal).join(", ")}]` : JSON.stringify(value);
}

/** An object literal's members (`key: value,` lines) at `indent`; values are JSON. */
export function objectMembers(members: Readonly<Record<string, unknown>>, indent: string): string {
  return Object.entries(members)
    .map(([key, value]) => `${indent}${key}: ${literal(value)},\n`)
    .join("");
}

/** `text` as lines of at most `width` columns, broken between words (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
