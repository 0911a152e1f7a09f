/**
 * A JSON path into a structural schema (`.spec.replicas`, `.spec['x-key']`, `.labels['app']`),
 * resolved as kube's `ValidFieldPath` (apiextensions-apiserver
 * `pkg/apiserver/schema/cel/validation.go`) resolves a CRD's `selectableFields[].jsonPath` and
 * an `x-kubernetes-validations` rule's `fieldPath`.
 */
import { isJsonObject } from "kubekit/apimachinery";
import { hasEntries, schemaAt, type SchemaNode } from "./schema-node.js";

/** A resolved path: its segments (field names and map keys) and the schema found there. */
export interface ResolvedFieldPath {
  /** The path as a field path prints it (`spec.replicas`, `spec.labels[app]`). */
  readonly path: string;
  /** The first segment (`metadata`, `spec`, ...); `""` for the empty path. */
  readonly root: string;
  /** The schema at the path; `undefined` under an `additionalProperties: true` map. */
  readonly schema: SchemaNode | undefined;
}

/** Splits at `.`, `[` and `]`, keeping single-quoted strings whole (kube's scanner split). */
function tokenize(jsonPath: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const c = jsonPath[i] as string;
    if (c === "'") {
      let j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== "\\")) j++;
      tokens.push(jsonPath.slice(i, j + 1));
      i = j + 1;
    } else if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
    } else {
      let j = i;
      while (j < jsonPath.length && !".[]".includes(jsonPath[j] as string)) j++;
      tokens.push(jsonPath.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

const ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "'": "'",
  "\\": "\\",
};

/** kube's `unescapeSingleQuote`: a backslash escape per character, or an error. */
function unescapeSingleQuote(s: string): string | { error: string } {
  let bad: string | undefined;
  const out = s.replace(/\\[\s\S]/g, (m) => {
    const r = ESCAPES[m[1] as string];
    if (r === undefined) bad ??= m;
    return r ?? "";
  });
  return bad === undefined ? out : { error: `invalid escape char ${bad}` };
}

/** The resolution state: the path so far and the current schema. */
interface Cursor {
  path: string;
  root: string;
  schema: SchemaNode | undefined;
}

/** One step into a field (`properties`) or a map key (`additionalProperties`). */
function step(cursor: Cursor, name: string): string | undefined {
  const schema = cursor.schema;
  if (schema && hasEntries(schema, "properties")) {
    const properties = schema["properties"];
    const child = isJsonObject(properties) ? properties[name] : undefined;
    if (!isJsonObject(child)) return "does not refer to a valid field";
    cursor.path = cursor.path === "" ? name : `${cursor.path}.${name}`;
    cursor.schema = child;
  } else if (schema && schema["additionalProperties"] !== undefined) {
    cursor.path = `${cursor.path}[${name}]`;
    cursor.schema = schemaAt(schema, "additionalProperties");
  } else {
    return "does not refer to a valid field";
  }
  if (cursor.root === "") cursor.root = name;
  return undefined;
}

/**
 * Resolves `jsonPath` in `schema`, or returns kube's error text for it (`does not refer to a
 * valid field`, `expected [ or . but got: x`, `array notation is not allowed`, ...).
 */
export function resolveFieldPath(
  jsonPath: string,
  schema: SchemaNode,
  options: { readonly allowArrayNotation?: boolean } = {},
): ResolvedFieldPath | { readonly error: string } {
  const tokens = tokenize(jsonPath);
  const cursor: Cursor = { path: "", root: "", schema };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    if (tok === "[") {
      if (options.allowArrayNotation === false) return { error: "array notation is not allowed" };
      const quoted = tokens[++i];
      if (quoted === undefined) return { error: "unexpected end of JSON path" };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { error: `expected single quoted string but got ${quoted}` };
      }
      const name = unescapeSingleQuote(quoted.slice(1, -1));
      if (typeof name !== "string") return { error: `invalid string literal: ${name.error}` };
      const problem = step(cursor, name);
      if (problem) return { error: problem };
      const close = tokens[++i];
      if (close === undefined) return { error: "unexpected end of JSON path" };
      if (close !== "]") return { error: `expected ] but got ${close}` };
    } else if (tok === ".") {
      const name = tokens[++i];
      if (name === undefined) return { error: "unexpected end of JSON path" };
      const problem = step(cursor, name);
      if (problem) return { error: problem };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
  }
  return { path: cursor.path, root: cursor.root, schema: cursor.schema };
}
