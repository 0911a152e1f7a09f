/**
 * TSDoc comments of generated declarations: a schema's `description` (and `default`) as a
 * `/** ... *\/` block at an indentation, written as prettier leaves it.
 */
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";

/** The lines of `text` for a comment: `*\/` escaped, trailing spaces dropped, outer blank lines trimmed. */
function commentLines(text: string): string[] {
  const lines = text
    .replace(/\*\//g, "*\\/")
    .split(/\r?\n/)
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The comment lines documenting a schema node: its description, then `@defaultValue` with
 * the default as JSON when it has one. Empty when there is neither.
 */
export function schemaDocLines(schema: JSONSchemaProps): string[] {
  const lines = commentLines(schema.description ?? "");
  if (schema.default !== undefined) {
    if (lines.length > 0) lines.push("");
    lines.push(...commentLines(`@defaultValue \`${JSON.stringify(schema.default)}\``));
  }
  return lines;
}

/**
 * `lines` as a TSDoc block at `indent` (with a trailing newline): one line `/** text *\/` when
 * there is one line and it fits in `width` columns, else one ` * ` line each. Empty for no lines.
 */
export function docComment(lines: readonly string[], indent: string, width = 100): string {
  if (lines.length === 0) return "";
  const single = `${indent}/** ${lines[0]} */`;
  if (lines.length === 1 && single.length <= width) return `${single}\n`;
  const body = lines.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`));
  return `${indent}/**\n${body.join("\n")}\n${indent} */\n`;
}
