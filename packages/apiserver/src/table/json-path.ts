import type { JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";

/**
 * The subset of Kubernetes JSONPath that CRD `additionalPrinterColumns` use: a path of
 * dotted fields (`.spec.replicas`, with `\.` escaping a dot inside a key), bracketed keys
 * (`['app.kubernetes.io/name']`), array indices (`[0]`, `[-1]` from the end), wildcards
 * (`[*]`, `.*`) and filters (`[?(@.type=="Ready")]`, with `==`, `!=`, `<`, `<=`, `>`, `>=`
 * against a string, number, boolean or null literal, or `[?(@.field)]` for presence).
 * Surrounding `{…}` and a leading `$` are accepted. Missing keys and out-of-range indices
 * give no result rather than an error, as with kubectl's `AllowMissingKeys(true)`.
 * Recursive descent (`..`), slices and unions are not supported and are rejected when
 * compiling.
 */

/** A compiled path: every value it selects in `root`, in document order (possibly none). */
export type JsonPathEvaluator = (root: JsonValue) => JsonValue[];

type Literal = string | number | boolean | null;
type Comparison = "==" | "!=" | "<" | "<=" | ">" | ">=";

type Step =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "wildcard" }
  | {
      readonly kind: "filter";
      readonly path: readonly Step[];
      readonly op?: Comparison;
      readonly value?: Literal;
    };

/** Compiles a JSONPath expression; throws an `Error` naming the problem when it is not in the supported subset. */
export function compileJsonPath(expression: string): JsonPathEvaluator {
  let text = expression.trim();
  if (text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1).trim();
  if (text.startsWith("$")) text = text.slice(1);
  const parser = new PathParser(text, expression);
  const steps = parser.parseSteps(false);
  parser.expectEnd();
  return (root) => evaluate(steps, [root]);
}

function evaluate(steps: readonly Step[], start: JsonValue[]): JsonValue[] {
  let current = start;
  for (const step of steps) {
    const next: JsonValue[] = [];
    for (const node of current) applyStep(step, node, next);
    current = next;
  }
  return current;
}

function applyStep(step: Step, node: JsonValue, out: JsonValue[]): void {
  switch (step.kind) {
    case "field":
      if (isJsonObject(node) && Object.prototype.hasOwnProperty.call(node, step.name))
        out.push(node[step.name] as JsonValue);
      return;
    case "index":
      if (Array.isArray(node)) {
        const i = step.index < 0 ? node.length + step.index : step.index;
        if (i >= 0 && i < node.length) out.push(node[i] as JsonValue);
      }
      return;
    case "wildcard":
      if (Array.isArray(node)) out.push(...node);
      else if (isJsonObject(node)) out.push(...Object.values(node));
      return;
    case "filter":
      if (!Array.isArray(node)) return;
      for (const element of node) if (filterMatches(step, element)) out.push(element);
      return;
  }
}

function filterMatches(step: Extract<Step, { kind: "filter" }>, element: JsonValue): boolean {
  const [left] = evaluate(step.path, [element]);
  if (left === undefined) return false;
  if (step.op === undefined) return true;
  const right = step.value as Literal;
  if (step.op === "==" || step.op === "!=") {
    const comparable = left === null || right === null || typeof left === typeof right;
    if (!comparable) return false;
    return (left === right) === (step.op === "==");
  }
  if (typeof left === "number" && typeof right === "number")
    return compareOrdered(left, right, step.op);
  if (typeof left === "string" && typeof right === "string")
    return compareOrdered(left, right, step.op);
  return false;
}

function compareOrdered<T extends number | string>(a: T, b: T, op: Comparison): boolean {
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    default:
      return a >= b;
  }
}

class PathParser {
  #pos = 0;

  readonly #text: string;
  readonly #original: string;

  constructor(text: string, original: string) {
    this.#text = text;
    this.#original = original;
  }

  /** Parses steps until the end of input, or (inside a filter) until an operator or `)`. */
  parseSteps(inFilter: boolean): Step[] {
    const steps: Step[] = [];
    for (;;) {
      this.#skipSpacesIf(inFilter);
      const ch = this.#peek();
      if (ch === undefined) return steps;
      if (ch === ".") {
        this.#pos++;
        if (this.#peek() === ".") this.#fail("recursive descent (..) is not supported");
        if (this.#peek() === "*") {
          this.#pos++;
          steps.push({ kind: "wildcard" });
        } else steps.push({ kind: "field", name: this.#readFieldName() });
      } else if (ch === "[") {
        steps.push(this.#readBracket());
      } else if (inFilter) {
        return steps;
      } else {
        this.#fail(`unexpected character ${JSON.stringify(ch)}`);
      }
    }
  }

  expectEnd(): void {
    if (this.#pos < this.#text.length)
      this.#fail(`unexpected ${JSON.stringify(this.#text.slice(this.#pos))}`);
  }

  #readFieldName(): string {
    let name = "";
    while (this.#pos < this.#text.length) {
      const ch = this.#text[this.#pos] as string;
      if (ch === "\\" && this.#pos + 1 < this.#text.length) {
        name += this.#text[this.#pos + 1] as string;
        this.#pos += 2;
        continue;
      }
      if (ch === "." || ch === "[" || ch === " " || ch === ")" || "=!<>".includes(ch)) break;
      name += ch;
      this.#pos++;
    }
    if (name === "") this.#fail("empty field name");
    return name;
  }

  #readBracket(): Step {
    this.#pos++; // [
    this.#skipSpacesIf(true);
    const ch = this.#peek();
    let step: Step;
    if (ch === "*") {
      this.#pos++;
      step = { kind: "wildcard" };
    } else if (ch === "'" || ch === '"') {
      step = { kind: "field", name: this.#readQuoted() };
    } else if (ch === "?") {
      step = this.#readFilter();
    } else {
      const match = /^-?\d+/.exec(this.#text.slice(this.#pos));
      if (!match) this.#fail("expected an index, '*', a quoted key or a filter inside []");
      this.#pos += match[0].length;
      step = { kind: "index", index: Number(match[0]) };
    }
    this.#skipSpacesIf(true);
    if (this.#peek() !== "]") this.#fail("expected ']' (slices and unions are not supported)");
    this.#pos++;
    return step;
  }

  #readFilter(): Step {
    this.#pos++; // ?
    if (this.#peek() !== "(") this.#fail("expected '(' after '?'");
    this.#pos++;
    this.#skipSpacesIf(true);
    if (this.#peek() !== "@") this.#fail("a filter must start with '@'");
    this.#pos++;
    const path = this.parseSteps(true);
    this.#skipSpacesIf(true);
    let step: Step = { kind: "filter", path };
    const op = /^(==|!=|<=|>=|<|>)/.exec(this.#text.slice(this.#pos));
    if (op) {
      this.#pos += op[0].length;
      this.#skipSpacesIf(true);
      step = { kind: "filter", path, op: op[0] as Comparison, value: this.#readLiteral() };
      this.#skipSpacesIf(true);
    }
    if (this.#peek() !== ")") this.#fail("expected ')' to close the filter");
    this.#pos++;
    return step;
  }

  #readLiteral(): Literal {
    const ch = this.#peek();
    if (ch === "'" || ch === '"') return this.#readQuoted();
    const rest = this.#text.slice(this.#pos);
    const number = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(rest);
    if (number) {
      this.#pos += number[0].length;
      return Number(number[0]);
    }
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (rest.startsWith(word)) {
        this.#pos += word.length;
        return value;
      }
    }
    this.#fail("expected a string, number, boolean or null after the comparison");
  }

  #readQuoted(): string {
    const quote = this.#text[this.#pos] as string;
    this.#pos++;
    let value = "";
    while (this.#pos < this.#text.length) {
      const ch = this.#text[this.#pos] as string;
      if (ch === "\\" && this.#pos + 1 < this.#text.length) {
        value += this.#text[this.#pos + 1] as string;
        this.#pos += 2;
        continue;
      }
      if (ch === quote) {
        this.#pos++;
        return value;
      }
      value += ch;
      this.#pos++;
    }
    this.#fail("unterminated string");
  }

  #skipSpacesIf(allowed: boolean): void {
    if (!allowed) return;
    while (this.#peek() === " ") this.#pos++;
  }

  #peek(): string | undefined {
    return this.#text[this.#pos];
  }

  #fail(message: string): never {
    throw new Error(
      `invalid JSONPath ${JSON.stringify(this.#original)}: ${message} at offset ${this.#pos}`,
    );
  }
}
