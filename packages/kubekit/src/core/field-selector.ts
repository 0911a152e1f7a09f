/**
 * Field selectors: the grammar of k8s.io/apimachinery/pkg/fields (what the `fieldSelector`
 * query parameter carries) and matching against a set of field values.
 *
 * Terms are `field=value`, `field==value` or `field!=value`, separated by commas and ANDed.
 * In values a backslash escapes `\`, `,` and `=`; unescaped `,` splits terms and an
 * unescaped `=` in a value is an error. Field names are not escaped and are split at the
 * first operator. Whitespace is significant, as in apimachinery. Which fields exist is up
 * to the resource; this module only parses and matches.
 */
import { SelectorParseError } from "./label-selector.js";

/** One term of a field selector; `==` is normalized to `=`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "!=";
  readonly value: string;
}

/** The characters a value must escape, and their escaped forms. */
function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Splits at commas not preceded by an escaping backslash; each term keeps its start offset. */
function splitTerms(text: string): { term: string; start: number }[] {
  if (text === "") return [];
  const terms: { term: string; start: number }[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === "\\") escaped = true;
    else if (c === ",") {
      terms.push({ term: text.slice(start, i), start });
      start = i + 1;
    }
  }
  terms.push({ term: text.slice(start), start });
  return terms;
}

/** The first `!=`, `==` or `=` in the term (checked in that order at each offset). */
function splitTerm(
  term: string,
): { field: string; op: string; rhs: string; rhsAt: number } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ["!=", "==", "="]) {
      if (term.startsWith(op, i)) {
        return {
          field: term.slice(0, i),
          op,
          rhs: term.slice(i + op.length),
          rhsAt: i + op.length,
        };
      }
    }
  }
  return undefined;
}

/** Unescapes a value; `at` is the value's offset in `input`, for error positions. */
function unescapeValue(raw: string, input: string, at: number): string {
  let out = "";
  let escaped = false;
  let offset = 0;
  for (const ch of raw) {
    if (escaped) {
      if (ch !== "\\" && ch !== "," && ch !== "=") {
        throw new SelectorParseError(
          `invalid field selector: invalid escape sequence: \\${ch}`,
          input,
          at + offset - 1,
        );
      }
      out += ch;
      escaped = false;
    } else if (ch === "\\") {
      escaped = true;
    } else if (ch === "," || ch === "=") {
      // apimachinery prints the rune with %v, i.e. as its number.
      throw new SelectorParseError(
        `invalid field selector: unescaped character in value: ${ch.codePointAt(0) ?? 0}`,
        input,
        at + offset,
      );
    } else {
      out += ch;
    }
    offset += ch.length;
  }
  if (escaped) {
    throw new SelectorParseError(
      "invalid field selector: invalid escape sequence: \\",
      input,
      at + offset - 1,
    );
  }
  return out;
}

/**
 * An immutable field selector. Requirements keep apimachinery's order: parsed terms sorted
 * by their raw text, {@link fromSet} terms sorted by field.
 */
export class FieldSelector {
  /** The terms, all of which must hold. */
  readonly requirements: readonly FieldRequirement[];

  static readonly #everything: FieldSelector = new FieldSelector([]);

  private constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = Object.freeze(requirements.map((r) => Object.freeze({ ...r })));
    Object.freeze(this);
  }

  /**
   * Parses selector text (`metadata.name=web,status.phase!=Running`). Empty terms are
   * skipped; the empty string is {@link everything}.
   *
   * @throws {SelectorParseError} `invalid selector: '<text>'; can't understand '<term>'`
   * for a term without an operator (position: the term's start);
   * `invalid field selector: invalid escape sequence: \x` or `invalid field selector:
   * unescaped character in value: 61` for bad values (position: the character at fault).
   */
  static parse(text: string): FieldSelector {
    const terms = splitTerms(text).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    const requirements: FieldRequirement[] = [];
    for (const { term, start } of terms) {
      if (term === "") continue;
      const split = splitTerm(term);
      if (split === undefined) {
        throw new SelectorParseError(
          `invalid selector: '${text}'; can't understand '${term}'`,
          text,
          start,
        );
      }
      const value = unescapeValue(split.rhs, text, start + split.rhsAt);
      requirements.push({ field: split.field, operator: split.op === "!=" ? "!=" : "=", value });
    }
    return requirements.length === 0 ? FieldSelector.#everything : new FieldSelector(requirements);
  }

  /** The selector that matches everything (no terms). */
  static everything(): FieldSelector {
    return FieldSelector.#everything;
  }

  /** A selector requiring each field to equal the given value (fields.SelectorFromSet), terms sorted by field. */
  static fromSet(fields: Readonly<Record<string, string>>): FieldSelector {
    const requirements = Object.keys(fields)
      .sort()
      .map((field): FieldRequirement => ({ field, operator: "=", value: fields[field] as string }));
    return requirements.length === 0 ? FieldSelector.#everything : new FieldSelector(requirements);
  }

  /** Whether every term holds; a field absent from `fields` compares as `""`. */
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field)
        ? (fields[r.field] as string)
        : "";
      return r.operator === "=" ? actual === r.value : actual !== r.value;
    });
  }

  /** Whether the selector has no terms. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /**
   * The text form: terms joined by `,`, values escaped. It parses back to a selector with
   * the same terms, provided no field name contains `=`, `!=` or `,` (field names are never
   * escaped; only {@link fromSet} can produce such names).
   */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(",");
  }

  /**
   * The value the selector requires `field` to equal (the first `field=value` term), or
   * `undefined`; a `!=` term never counts. Used for the `metadata.name` / `metadata.namespace`
   * shortcuts of list and watch.
   */
  exactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === "=")?.value;
  }
}
