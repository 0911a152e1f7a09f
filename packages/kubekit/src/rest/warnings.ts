/**
 * Server warnings: the `Warning` response headers kube-apiserver sends (RFC 7234 form,
 * `299 - "text"`, one per warning) for deprecated APIs, unknown fields with
 * `fieldValidation=Warn`, and the like; and the handlers that receive them.
 */
import type { Logger } from "../core/logger.js";

/** One parsed `Warning` header value. */
export interface Warning {
  /** The three-digit warn-code; kube-apiserver always sends 299 ("miscellaneous persistent warning"). */
  readonly code: number;
  /** The warn-agent; kube-apiserver sends `-`. */
  readonly agent: string;
  /** The warning text, unquoted. */
  readonly text: string;
}

/**
 * Receives every warning of a response, in header order, after the response arrived
 * (also for error responses). Called synchronously; a handler must not throw.
 */
export type WarningHandler = (warning: Warning) => void;

/** What {@link parseWarning} read: a warning and the rest of the header value after it. */
interface ParsedWarning {
  readonly warning: Warning;
  readonly rest: string;
}

// Control characters are not allowed in warning text or agent.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Reads a quoted-string (backslash escapes) at the start of `input`; undefined when malformed. */
function readQuoted(input: string): { value: string; rest: string } | undefined {
  if (!input.startsWith('"')) return undefined;
  let value = "";
  let escaping = false;
  for (let i = 1; i < input.length; i++) {
    const ch = input.charAt(i);
    if (escaping) {
      value += ch;
      escaping = false;
    } else if (ch === "\\") {
      escaping = true;
    } else if (ch === '"') {
      return { value, rest: input.slice(i + 1).trim() };
    } else {
      value += ch;
    }
  }
  return undefined;
}

/** Parses the first warning of a header value: `code agent "text" ["date"]`, optionally followed by `, ...`. */
function parseWarning(input: string): ParsedWarning | undefined {
  const header = input.trim();
  const match = /^(\d{3}) ([^ ]+) /.exec(header);
  if (match === null) return undefined;
  const [whole, code = "", agent = ""] = match;
  if (CONTROL.test(agent)) return undefined;
  const text = readQuoted(header.slice(whole.length));
  if (text === undefined || CONTROL.test(text.value)) return undefined;
  let rest = text.rest;
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    if (end < 0) return undefined;
    rest = rest.slice(end + 1).trim();
  }
  if (rest !== "") {
    if (!rest.startsWith(",")) return undefined;
    rest = rest.slice(1).trim();
  }
  return { warning: { code: Number(code), agent, text: text.value }, rest };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A header value as the text the server meant. kube-apiserver writes warning text as UTF-8
 * bytes (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go` keeps any valid
 * UTF-8); Node's HTTP parsers hand header bytes over as Latin-1 characters. A value with
 * bytes >= 0x80 that form valid UTF-8 is decoded as UTF-8; anything else is kept as it is.
 */
function headerText(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0080-\u00ff]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value;
  try {
    return utf8.decode(Buffer.from(value, "latin1"));
  } catch {
    return value;
  }
}

/**
 * Parses `Warning` header values. Each value may hold several comma-separated warnings
 * (`299 - "a", 299 - "b"`); an optional quoted warn-date after the text is skipped. A
 * malformed value yields the warnings before the malformed part and nothing after it (as
 * client-go); text or agent with control characters counts as malformed. Values are read as
 * Node's HTTP clients deliver them (one Latin-1 character per byte): UTF-8 text is decoded.
 */
export function parseWarningHeaders(values: readonly string[]): Warning[] {
  const warnings: Warning[] = [];
  for (const value of values) {
    let rest = headerText(value).trim();
    while (rest !== "") {
      const parsed = parseWarning(rest);
      if (parsed === undefined) break;
      warnings.push(parsed.warning);
      rest = parsed.rest;
    }
  }
  return warnings;
}

/** Options of {@link createWarningLogger}. */
export interface WarningLoggerOptions {
  /** Log each distinct text only once over the handler's lifetime (default true). */
  readonly deduplicate?: boolean;
}

/**
 * A handler that logs warnings with code 299 and non-empty text at level warn, as
 * `Warning: <text>` (client-go's WarningLogger; other codes are ignored). With
 * `deduplicate` (the default) each distinct text is logged once per handler; the set of
 * seen texts grows with the number of distinct warnings.
 */
export function createWarningLogger(
  logger: Logger,
  options: WarningLoggerOptions = {},
): WarningHandler {
  const deduplicate = options.deduplicate ?? true;
  const seen = new Set<string>();
  return (warning) => {
    if (warning.code !== 299 || warning.text === "") return;
    if (deduplicate) {
      if (seen.has(warning.text)) return;
      seen.add(warning.text);
    }
    logger.warn(`Warning: ${warning.text}`, { agent: warning.agent });
  };
}

/** A handler that drops every warning (client-go's NoWarnings). */
export const ignoreWarnings: WarningHandler = () => undefined;
