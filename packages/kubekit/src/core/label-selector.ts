/**
 * Label selectors: the text grammar of k8s.io/apimachinery/pkg/labels (what the
 * `labelSelector` query parameter carries), the structured metav1.LabelSelector, and
 * matching against a label set.
 *
 * Parsing follows apimachinery token for token, so the same inputs are accepted, the same
 * requirements result, and errors carry apimachinery's messages (kube-apiserver returns
 * them verbatim in 400 BadRequest bodies). Quirks kept on purpose: `k in ()` means
 * `k in ("")`; `in`/`notin` are ordinary words in value position (`k in (in)`); a NUL
 * character ends the input; values of `in`/`notin` are deduplicated and sorted.
 */
import { isQualifiedName, isValidLabelValue } from "./names.js";
import type { FieldError } from "./field-errors.js";
import { fieldInvalid, formatFieldErrors } from "./field-errors.js";
import { quoteGo } from "./go-format.js";

/**
 * A requirement's operator, with apimachinery's spellings (selection.Operator): `=` and
 * `==` are equivalent and kept apart only so that {@link LabelSelector.toString} prints
 * what was parsed; `exists` is a bare key, `!` is `!key`, `gt`/`lt` are `>`/`<`.
 */
export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/**
 * One requirement of a label selector; a selector matches when all of them match.
 * `values` is empty for `exists` and `!`, has one element for `=`, `==`, `!=`, `gt`, `lt`,
 * and at least one for `in` and `notin`.
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/**
 * A label or field selector that does not parse. `message` is apimachinery's text (e.g.
 * `unable to parse requirement: found ',', expected: identifier`); `position` is the
 * UTF-16 offset in `input` of the token or character at fault (`input.length` for an
 * unexpected end), or -1 when the selector was not text (a metav1.LabelSelector, whose
 * JSON is then the `input`).
 */
export class SelectorParseError extends Error {
  /** The selector text that failed to parse. */
  readonly input: string;
  /** Where in `input` the problem is; -1 when there is no text position. */
  readonly position: number;

  constructor(message: string, input: string, position: number) {
    super(message);
    this.name = "SelectorParseError";
    this.input = input;
    this.position = position;
  }
}

type TokenKind =
  "eos" | "identifier" | "(" | ")" | "," | "!" | "=" | "==" | "!=" | ">" | "<" | "in" | "notin";

interface Token {
  readonly kind: TokenKind;
  readonly literal: string;
  readonly position: number;
}

const SYMBOL_TOKENS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ["(", "("],
  [")", ")"],
  [",", ","],
  ["!", "!"],
  ["=", "="],
  ["==", "=="],
  ["!=", "!="],
  [">", ">"],
  ["<", "<"],
]);

function isWhitespace(ch: number): boolean {
  return ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x0a;
}

function isSpecialSymbol(ch: number): boolean {
  // = ! ( ) , > <
  return (
    ch === 0x3d ||
    ch === 0x21 ||
    ch === 0x28 ||
    ch === 0x29 ||
    ch === 0x2c ||
    ch === 0x3e ||
    ch === 0x3c
  );
}

/** Splits the text into tokens exactly as apimachinery's Lexer does (reading 0 means end of input). */
function tokenize(text: string): Token[] {
  let pos = 0;
  let lastRead = -1;
  const read = (): number => {
    if (pos < text.length) {
      lastRead = pos;
      return text.charCodeAt(pos++);
    }
    lastRead = -1;
    return 0;
  };
  const unread = (): void => {
    pos--;
  };

  const tokens: Token[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    const start = lastRead === -1 ? pos : lastRead;
    if (ch === 0) {
      tokens.push({ kind: "eos", literal: "", position: start });
      return tokens;
    }
    unread();
    if (isSpecialSymbol(ch)) {
      // Operators are scanned greedily while the longer text is still a token ("!=", "==").
      let literal = String.fromCharCode(read());
      let kind = SYMBOL_TOKENS.get(literal) as TokenKind; // every special symbol alone is a token
      for (;;) {
        const c = read();
        if (c === 0) break;
        const longer = isSpecialSymbol(c)
          ? SYMBOL_TOKENS.get(literal + String.fromCharCode(c))
          : undefined;
        if (longer === undefined) {
          unread();
          break;
        }
        literal += String.fromCharCode(c);
        kind = longer;
      }
      tokens.push({ kind, literal, position: start });
    } else {
      let word = "";
      for (;;) {
        const c = read();
        if (c === 0) break;
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          unread();
          break;
        }
        word += text[pos - 1];
      }
      const kind: TokenKind = word === "in" ? "in" : word === "notin" ? "notin" : "identifier";
      tokens.push({ kind, literal: word, position: start });
    }
  }
}

/** A failure inside one requirement, reported with the "unable to parse requirement: " prefix. */
class RequirementFailure extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(message);
    this.position = position;
  }
}

/** A value with the position of the token it came from. */
type PositionedValues = Map<string, number>;

/**
 * The checks of apimachinery's NewRequirement that can fail for parsed or structured
 * input, as field errors with the index of the value (or -1) they concern.
 */
function requirementErrors(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  keyPath: string,
): { error: FieldError; valueIndex: number }[] {
  const out: { error: FieldError; valueIndex: number }[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) {
    out.push({ error: fieldInvalid(keyPath, key, keyErrs.join("; ")), valueIndex: -1 });
  }
  if ((operator === "in" || operator === "notin") && values.length === 0) {
    // apimachinery copies the values into a nil slice first, so the bad value prints as null.
    out.push({
      error: fieldInvalid("values", null, "for 'in', 'notin' operators, values set can't be empty"),
      valueIndex: -1,
    });
  }
  if ((operator === "exists" || operator === "!") && values.length !== 0) {
    out.push({
      error: fieldInvalid(
        "values",
        values,
        "values set must be empty for exists and does not exist",
      ),
      valueIndex: 0,
    });
  }
  if (operator === "gt" || operator === "lt") {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) {
        out.push({
          error: fieldInvalid(
            `values[${i}]`,
            v,
            "for 'Gt', 'Lt' operators, the value must be an integer",
          ),
          valueIndex: i,
        });
      }
    });
  }
  values.forEach((v, i) => {
    const errs = isValidLabelValue(v);
    if (errs.length > 0) {
      out.push({ error: fieldInvalid(`values[${i}][${key}]`, v, errs.join("; ")), valueIndex: i });
    }
  });
  return out;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): optional sign, ASCII digits, int64 range. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** The recursive-descent parser of apimachinery's labels.Parse, over pre-scanned tokens. */
class Parser {
  #index = 0;
  readonly #input: string;
  readonly #tokens: readonly Token[];

  constructor(input: string, tokens: readonly Token[]) {
    this.#input = input;
    this.#tokens = tokens;
  }

  /** The current token; in value position the words `in` and `notin` are identifiers. */
  #peek(valuePosition: boolean): Token {
    const t = this.#tokens[Math.min(this.#index, this.#tokens.length - 1)] as Token;
    return valuePosition && (t.kind === "in" || t.kind === "notin")
      ? { ...t, kind: "identifier" }
      : t;
  }

  #next(valuePosition: boolean): Token {
    const t = this.#peek(valuePosition);
    this.#index++;
    return t;
  }

  #fail(message: string, position: number): never {
    throw new SelectorParseError(message, this.#input, position);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const t = this.#peek(true);
      if (t.kind === "eos") return requirements;
      if (t.kind !== "identifier" && t.kind !== "!") {
        this.#fail(`found '${t.literal}', expected: !, identifier, or 'end of string'`, t.position);
      }
      try {
        requirements.push(this.#parseRequirement());
      } catch (e) {
        if (e instanceof RequirementFailure) {
          this.#fail(`unable to parse requirement: ${e.message}`, e.position);
        }
        throw e;
      }
      const after = this.#next(true);
      if (after.kind === "eos") return requirements;
      if (after.kind !== ",") {
        this.#fail(`found '${after.literal}', expected: ',' or 'end of string'`, after.position);
      }
      const following = this.#peek(true);
      if (following.kind !== "identifier" && following.kind !== "!") {
        this.#fail(
          `found '${following.literal}', expected: identifier after ','`,
          following.position,
        );
      }
    }
  }

  #parseRequirement(): LabelRequirement {
    let t = this.#next(true);
    let operator: LabelOperator | undefined;
    if (t.kind === "!") {
      operator = "!";
      t = this.#next(true);
    }
    if (t.kind !== "identifier") {
      throw new RequirementFailure(`found '${t.literal}', expected: identifier`, t.position);
    }
    const key = t.literal;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) {
      // The parser validates the key with a nil field path, which Go prints as "<nil>".
      const e = fieldInvalid("<nil>", key, keyErrs.join("; "));
      throw new RequirementFailure(formatFieldErrors([e]), t.position);
    }
    const la = this.#peek(true);
    if (operator === undefined && (la.kind === "eos" || la.kind === ",")) operator = "exists";
    if (operator === "exists" || operator === "!") {
      return { key, operator, values: [] };
    }
    operator = this.#parseOperator();
    const values =
      operator === "in" || operator === "notin" ? this.#parseValueSet() : this.#parseExactValue();
    return this.#newRequirement(key, operator, values);
  }

  #parseOperator(): LabelOperator {
    const t = this.#next(false);
    switch (t.kind) {
      case "in":
      case "notin":
      case "=":
      case "==":
      case "!=":
        return t.kind;
      case ">":
        return "gt";
      case "<":
        return "lt";
      default:
        throw new RequirementFailure(
          `found '${t.literal}', expected: in, notin, =, ==, !=, gt, lt`,
          t.position,
        );
    }
  }

  #parseValueSet(): PositionedValues {
    const open = this.#next(true);
    if (open.kind !== "(") {
      throw new RequirementFailure(`found '${open.literal}' expected: '('`, open.position);
    }
    const la = this.#peek(true);
    if (la.kind === ")") {
      this.#next(true);
      return new Map([["", la.position]]);
    }
    if (la.kind !== "identifier" && la.kind !== ",") {
      throw new RequirementFailure(
        `found '${la.literal}', expected: ',', ')' or identifier`,
        la.position,
      );
    }
    const values = this.#parseValueList();
    this.#next(true); // the list parser returns only when the next token is ')'
    return values;
  }

  #parseValueList(): PositionedValues {
    const values: PositionedValues = new Map();
    const add = (v: string, position: number): void => {
      if (!values.has(v)) values.set(v, position);
    };
    for (;;) {
      const t = this.#next(true);
      if (t.kind === "identifier") {
        add(t.literal, t.position);
        const la = this.#peek(true);
        if (la.kind === ")") return values;
        if (la.kind !== ",") {
          throw new RequirementFailure(`found '${la.literal}', expected: ',' or ')'`, la.position);
        }
      } else if (t.kind === ",") {
        if (values.size === 0) add("", t.position);
        const la = this.#peek(true);
        if (la.kind === ")") {
          add("", la.position);
          return values;
        }
        // Only looked at: the next iteration consumes it (apimachinery's parseIdentifiersList).
        if (la.kind === ",") add("", la.position);
      } else {
        throw new RequirementFailure(
          `found '${t.literal}', expected: ',', or identifier`,
          t.position,
        );
      }
    }
  }

  #parseExactValue(): PositionedValues {
    const la = this.#peek(true);
    if (la.kind === "eos" || la.kind === ",") return new Map([["", la.position]]);
    const t = this.#next(true);
    if (t.kind !== "identifier") {
      throw new RequirementFailure(`found '${t.literal}', expected: identifier`, t.position);
    }
    return new Map([[t.literal, t.position]]);
  }

  #newRequirement(
    key: string,
    operator: LabelOperator,
    positioned: PositionedValues,
  ): LabelRequirement {
    const values = [...positioned.keys()].sort();
    const problems = requirementErrors(key, operator, values, "key");
    const first = problems[0];
    if (first !== undefined) {
      const value = values[first.valueIndex];
      const position = value !== undefined ? (positioned.get(value) ?? -1) : -1;
      throw new RequirementFailure(formatFieldErrors(problems.map((p) => p.error)), position);
    }
    return { key, operator, values };
  }
}

function hasLabel(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = hasLabel(labels, r.key);
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has && r.values.includes(labels[r.key] as string);
    case "!=":
    case "notin":
      return !has || !r.values.includes(labels[r.key] as string);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(labels[r.key] as string);
      const bound = parseInt64(r.values[0] as string);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === "gt" ? actual > bound : actual < bound;
    }
  }
}

const OPERATOR_TEXT: Readonly<Record<LabelOperator, string>> = {
  "=": "=",
  "==": "==",
  "!=": "!=",
  in: " in ",
  notin: " notin ",
  gt: ">",
  lt: "<",
  exists: "",
  "!": "",
};

function requirementToString(r: LabelRequirement): string {
  if (r.operator === "exists") return r.key;
  if (r.operator === "!") return `!${r.key}`;
  const values = r.values.length === 1 ? (r.values[0] as string) : [...r.values].sort().join(",");
  const shown = r.operator === "in" || r.operator === "notin" ? `(${values})` : values;
  return `${r.key}${OPERATOR_TEXT[r.operator]}${shown}`;
}

function byKey(a: LabelRequirement, b: LabelRequirement): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The structured selector of the API (metav1.LabelSelector). */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * An immutable label selector: requirements ANDed together, sorted by key (stable, so
 * requirements on one key keep their order).
 */
export class LabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  readonly #matchesNothing: boolean;

  static readonly #everything: LabelSelector = new LabelSelector([], false);
  static readonly #nothing: LabelSelector = new LabelSelector([], true);

  private constructor(requirements: readonly LabelRequirement[], matchesNothing: boolean) {
    this.requirements = Object.freeze(
      [...requirements]
        .sort(byKey)
        .map((r) => Object.freeze({ ...r, values: Object.freeze([...r.values]) })),
    );
    this.#matchesNothing = matchesNothing;
    Object.freeze(this);
  }

  /**
   * Parses selector text (`app=web,tier in (fe,be),!canary,release`). The empty string is
   * {@link everything}.
   *
   * @throws {SelectorParseError} with apimachinery's message and the position at fault.
   */
  static parse(text: string): LabelSelector {
    return new LabelSelector(new Parser(text, tokenize(text)).parse(), false);
  }

  /** The selector that matches every label set (no requirements). */
  static everything(): LabelSelector {
    return LabelSelector.#everything;
  }

  /**
   * The selector that matches nothing (labels.Nothing(), what a nil metav1.LabelSelector
   * means). It has no requirements, is not empty, and prints as `""`, so its text form
   * cannot be told from {@link everything}'s.
   */
  static nothing(): LabelSelector {
    return LabelSelector.#nothing;
  }

  /**
   * A selector requiring each label to equal the given value (labels.SelectorFromSet); an
   * empty set gives {@link everything}. Like client-go it does not validate keys or values,
   * so the text form of a selector built from invalid labels may not parse back.
   */
  static fromSet(labels: Readonly<Record<string, string>>): LabelSelector {
    const requirements = Object.keys(labels).map((key): LabelRequirement => ({
      key,
      operator: "=",
      values: [labels[key] as string],
    }));
    return requirements.length === 0
      ? LabelSelector.#everything
      : new LabelSelector(requirements, false);
  }

  /**
   * Converts a metav1.LabelSelector (metav1.LabelSelectorAsSelector): `matchLabels`
   * become `=` requirements, `matchExpressions` use `In`, `NotIn`, `Exists`,
   * `DoesNotExist`. `null`/`undefined` matches nothing; `{}` matches everything. `In` and
   * `NotIn` values are kept as given (not deduplicated).
   *
   * @throws {SelectorParseError} (position -1, input = the selector's JSON) for an unknown
   * operator (`"Foo" is not a valid label selector operator`) or an invalid requirement,
   * with apimachinery's field-error text (`key: Invalid value: ...`, `values: Invalid
   * value: null: for 'in', 'notin' operators, values set can't be empty`, ...).
   */
  static fromLabelSelector(sel: LabelSelectorSpec | null | undefined): LabelSelector {
    if (sel === null || sel === undefined) return LabelSelector.#nothing;
    const matchLabels = sel.matchLabels ?? {};
    const expressions = sel.matchExpressions ?? [];
    const labelKeys = Object.keys(matchLabels).sort();
    if (labelKeys.length + expressions.length === 0) return LabelSelector.#everything;
    const input = JSON.stringify(sel);
    const requirements: LabelRequirement[] = [];
    const check = (r: LabelRequirement): void => {
      const problems = requirementErrors(r.key, r.operator, r.values, "key");
      if (problems.length > 0) {
        throw new SelectorParseError(formatFieldErrors(problems.map((p) => p.error)), input, -1);
      }
      requirements.push(r);
    };
    for (const key of labelKeys) {
      check({ key, operator: "=", values: [matchLabels[key] as string] });
    }
    for (const expr of expressions) {
      const operator = STRUCTURED_OPERATORS.get(expr.operator);
      if (operator === undefined) {
        throw new SelectorParseError(
          `${quoteGo(expr.operator)} is not a valid label selector operator`,
          input,
          -1,
        );
      }
      check({ key: expr.key, operator, values: [...(expr.values ?? [])] });
    }
    return new LabelSelector(requirements, false);
  }

  /** Whether every requirement holds for `labels` (`undefined` is the empty set). Always false for {@link nothing}. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.#matchesNothing) return false;
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }

  /** Whether the selector restricts nothing (no requirements and not {@link nothing}). */
  isEmpty(): boolean {
    return !this.#matchesNothing && this.requirements.length === 0;
  }

  /**
   * The canonical text, as apimachinery's String(): requirements sorted by key, joined by
   * `,`; `in`/`notin` values sorted. Parsing it gives an equal selector (for selectors whose
   * keys and values are valid).
   */
  toString(): string {
    return this.requirements.map(requirementToString).join(",");
  }
}

const STRUCTURED_OPERATORS: ReadonlyMap<string, LabelOperator> = new Map<string, LabelOperator>([
  ["In", "in"],
  ["NotIn", "notin"],
  ["Exists", "exists"],
  ["DoesNotExist", "!"],
]);
