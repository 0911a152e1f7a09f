/**
 * Redaction of secrets in renderings: kubectl's placeholders, and a helper that gives a plain
 * object a `toString`, `toJSON` and `util.inspect` rendering that leaves secrets out.
 */
import type { JsonValue } from "../core/json.js";

/** What `kubectl config view` prints instead of a token or password. */
export const REDACTED = "REDACTED";

/** What `kubectl config view` prints instead of `*-data` fields (certificates and keys). */
export const DATA_OMITTED = "DATA+OMITTED";

/** The symbol `util.inspect` calls for a custom rendering. */
export const INSPECT_CUSTOM: unique symbol = Symbol.for("nodejs.util.inspect.custom");

/** The signature of the `util.inspect` function handed to custom inspectors. */
type InspectFunction = (value: unknown, options?: object) => string;

/**
 * Renders `summary` for `util.inspect` under `label`, e.g. `RestConfig { host: … }`, using the
 * inspect function Node hands to custom inspectors (falls back to JSON).
 */
export function inspectSummary(
  label: string,
  summary: JsonValue,
  options: object | undefined,
  inspect: InspectFunction | undefined,
): string {
  const body = inspect === undefined ? JSON.stringify(summary) : inspect(summary, options);
  return `${label} ${body}`;
}

/**
 * Defines non-enumerable `toString`, `toJSON` and `[util.inspect.custom]` on `target` that
 * render `summary()` instead of the object itself, so logging, `String()`, `JSON.stringify`
 * and `util.inspect` never show the secrets `target` holds. The methods are
 * non-enumerable: spreading or `Object.keys` still see only the data fields, and a spread
 * copy loses the protection. Returns `target`.
 */
export function withRedactedRendering<T extends object>(
  target: T,
  label: string,
  summary: () => JsonValue,
): T {
  Object.defineProperties(target, {
    toString: { value: () => `${label} ${JSON.stringify(summary())}` },
    toJSON: { value: () => summary() },
    [INSPECT_CUSTOM]: {
      value: (_depth: number, options: object, inspect: InspectFunction) =>
        inspectSummary(label, summary(), options, inspect),
    },
  });
  return target;
}

/**
 * `url` with any password in its userinfo replaced by {@link REDACTED}
 * (`https://admin:REDACTED@host`). Text that is not a valid URL is redacted too: everything
 * between the first `:` of an authority's userinfo and its last `@` (so a malformed URL in an
 * error message never shows the password).
 */
export function redactUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = REDACTED;
    return parsed.toString();
  } catch {
    return url.replace(
      /^((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/?#@:]*:)[^/?#]*@/,
      (_match, prefix: string) => `${prefix}${REDACTED}@`,
    );
  }
}
