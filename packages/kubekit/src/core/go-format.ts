/**
 * Go's text formatting of values, as kube-apiserver's messages print them: `%q` quoting
 * (strconv.Quote), `%v` of numbers, and encoding/json's output for anything else.
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x07, "\\a"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
  [0x0b, "\\v"],
]);

/**
 * Quotes a string as Go's `%q` / strconv.Quote does: `"` and `\` escaped, printable
 * characters kept, `\n`-style escapes for control characters, `\xNN` for other ASCII
 * controls, `\uNNNN` / `\UNNNNNNNN` for other non-printable characters. Lone surrogates
 * print as U+FFFD (Go strings cannot hold them).
 */
export function quoteGo(value: string): string {
  let out = '"';
  for (const ch of value) {
    let cp = ch.codePointAt(0) ?? 0xfffd;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    const c = String.fromCodePoint(cp);
    if (c === '"' || c === "\\") {
      out += `\\${c}`;
    } else if (PRINTABLE.test(c)) {
      out += c;
    } else {
      const named = NAMED_ESCAPES.get(cp);
      if (named !== undefined) out += named;
      else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
      else out += `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return `${out}"`;
}

/**
 * Go's `%v` of a float64: shortest digits, exponent form when the decimal exponent is < -4 or
 * >= 6 (strconv 'g', shortest), e.g. `1e+06`, `0.5`, `NaN`, `+Inf`.
 */
export function formatGoFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  const [mantissa = "0", expText = "0"] = n.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/**
 * Formats a value as field.Error.ErrorBody prints a bad value: strings Go-quoted, booleans
 * and integers plain, other numbers as Go's `%v` of a float64, anything else as Go's
 * `json.Marshal` (object keys sorted, HTML-escaped).
 */
export function formatGoValue(value: unknown): string {
  if (typeof value === "string") return quoteGo(value);
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "number") {
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : formatGoFloat(value);
  }
  return marshalGoJson(value);
}

/** JSON as Go's encoding/json writes it: HTML-safe string escapes, map keys sorted. */
function marshalGoJson(value: unknown): string {
  if (value === null || value === undefined || typeof value === "function") return "null";
  if (typeof value === "string") {
    return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
      return `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
    });
  }
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map(marshalGoJson).join(",")}]`;
  if (typeof value === "object") {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === "function") return marshalGoJson(withJson.toJSON());
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${marshalGoJson(k)}:${marshalGoJson(record[k])}`).join(",")}}`;
  }
  return "null";
}
