/**
 * A rule's `fieldPath` (kube's `ValidFieldPath` in `apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`):
 * a relative JSON path of `.name` and `['name']` steps that must name fields of the schema
 * (properties, or keys of an `additionalProperties` map). Returns the path as field paths print
 * it (`.spec.replicas`, `[key]` for map keys), or kube's error text.
 */
import type { JSONSchemaProps } from "../schema-props.js";

/** A checked fieldPath: the steps to append to a field path, or an error. */
export type RuleFieldPath =
  { readonly ok: true; readonly suffix: string } | { readonly ok: false; readonly error: string };

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

/** Tokens: `.`, `[`, `]`, quoted strings (with their quotes), identifiers. */
function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i] as string;
    if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== "\\")) j++;
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
    } else {
      let j = i;
      while (j < path.length && !".[]".includes(path[j] as string)) j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

/** Validates `fieldPath` against `schema` (the node the rule is declared on). */
export function checkRuleFieldPath(fieldPath: string, schema: JSONSchemaProps): RuleFieldPath {
  const tokens = tokenize(fieldPath);
  let node: JSONSchemaProps = schema;
  let suffix = "";
  const step = (name: string): string | undefined => {
    if (node.properties) {
      const next = node.properties[name];
      if (!next) return "does not refer to a valid field";
      suffix += `.${name}`;
      node = next;
      return undefined;
    }
    if (node.additionalProperties && typeof node.additionalProperties === "object") {
      suffix += `[${name}]`;
      node = node.additionalProperties;
      return undefined;
    }
    return "does not refer to a valid field";
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    if (tok === ".") {
      const name = tokens[++i];
      if (name === undefined) return { ok: false, error: "unexpected end of JSON path" };
      const err = step(name);
      if (err) return { ok: false, error: err };
    } else if (tok === "[") {
      const quoted = tokens[++i];
      if (quoted === undefined) return { ok: false, error: "unexpected end of JSON path" };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { ok: false, error: `expected single quoted string but got ${quoted}` };
      }
      let bad: string | undefined;
      const name = quoted.slice(1, -1).replace(/\\./g, (m) => {
        const r = ESCAPES[m[1] as string];
        if (r === undefined) bad ??= `invalid string literal: invalid escape char ${m}`;
        return r ?? "";
      });
      if (bad) return { ok: false, error: bad };
      const err = step(name);
      if (err) return { ok: false, error: err };
      const close = tokens[++i];
      if (close === undefined) return { ok: false, error: "unexpected end of JSON path" };
      if (close !== "]") return { ok: false, error: `expected ] but got ${close}` };
    } else {
      return { ok: false, error: `expected [ or . but got: ${tok}` };
    }
  }
  return { ok: true, suffix };
}
