/**
 * Parsing of the `Accept` and `Content-Type` headers (RFC 9110 media ranges with parameters),
 * as the embedded API server needs them for content negotiation: discovery formats, Table and
 * PartialObjectMetadata, and patch content types.
 */

/** One clause of an `Accept` header. */
export interface MediaRange {
  /** Lowercase type, e.g. `application`; `*` for a wildcard. */
  readonly type: string;
  /** Lowercase subtype, e.g. `json`; `*` for a wildcard. */
  readonly subtype: string;
  /** Parameters other than `q`, names lowercased, values unquoted and kept as sent (`as=Table`). */
  readonly params: Readonly<Record<string, string>>;
  /** The quality value: 1 when absent, 0 when unparseable (so the clause is not acceptable). */
  readonly q: number;
  /** Position of the clause in the header (0-based, counting every comma-separated clause). */
  readonly index: number;
}

/** A parsed `Content-Type` header. */
export interface ContentType {
  /** Lowercase `type/subtype` without parameters, e.g. `application/merge-patch+json`; `""` for an empty header. */
  readonly mediaType: string;
  /** Parameters, names lowercased, values unquoted (`charset` included; callers ignore what they do not need). */
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parses an `Accept` header into its media ranges, sorted by `q` (highest first) and then by
 * their order in the header. Malformed clauses (no `/`, empty type or subtype) are dropped; a
 * bare `*` is read as the full wildcard. Clauses with `q=0` are kept (with `q: 0`) so callers can tell
 * "refused" from "absent". An absent or blank header gives `[]`.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined) return [];
  const ranges: MediaRange[] = [];
  splitOutsideQuotes(header, ",").forEach((clause, index) => {
    const parsed = parseMediaClause(clause);
    if (!parsed) return;
    const { q: rawQ, ...params } = parsed.params;
    ranges.push({
      type: parsed.type,
      subtype: parsed.subtype,
      params,
      q: parseQuality(rawQ),
      index,
    });
  });
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index);
}

/**
 * Parses a `Content-Type` header. Parameters such as `; charset=utf-8` are returned in
 * `params` and never affect `mediaType`. A value without `/` is returned lowercased as is, so
 * callers can reject it by comparing against the types they support.
 */
export function parseContentType(header: string): ContentType {
  const [head = "", ...rest] = splitOutsideQuotes(header, ";");
  const params: Record<string, string> = {};
  for (const part of rest) addParam(params, part);
  return { mediaType: head.trim().toLowerCase(), params };
}

function parseMediaClause(
  clause: string,
): { type: string; subtype: string; params: Record<string, string> } | undefined {
  const [head = "", ...rest] = splitOutsideQuotes(clause, ";");
  const mediaType = head.trim().toLowerCase();
  if (mediaType === "") return undefined;
  let type: string;
  let subtype: string;
  if (mediaType === "*") {
    type = "*";
    subtype = "*";
  } else {
    const slash = mediaType.indexOf("/");
    if (slash <= 0 || slash === mediaType.length - 1) return undefined;
    type = mediaType.slice(0, slash).trim();
    subtype = mediaType.slice(slash + 1).trim();
    if (type === "" || subtype === "" || subtype.includes("/")) return undefined;
  }
  const params: Record<string, string> = {};
  for (const part of rest) addParam(params, part);
  return { type, subtype, params };
}

function addParam(params: Record<string, string>, part: string): void {
  const eq = part.indexOf("=");
  if (eq < 0) return;
  const name = part.slice(0, eq).trim().toLowerCase();
  if (name === "") return;
  params[name] = unquote(part.slice(eq + 1).trim());
}

function parseQuality(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(raw)) return 0;
  const q = Number(raw);
  return Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, "$1");
  }
  return value;
}

/** Splits on `separator`, ignoring separators inside double-quoted strings. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted && ch === "\\" && i + 1 < text.length) {
      current += ch + (text[i + 1] as string);
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}
