/**
 * The subset of Go's `fmt.Sprintf` that event messages use (client-go's `Eventf` formats its
 * message with `fmt.Sprintf`): `%s` and `%v` (strings as they are, other values as JSON),
 * `%d` (integers), `%q` (Go-quoted strings), `%%`. As in Go, a verb without an argument
 * prints `%!v(MISSING)`, an unknown verb `%!z(value)`, and arguments left over are appended
 * as `%!(EXTRA value, ...)`; formatting never throws.
 */
import { quoteGo } from "../../core/go-format.js";

function plain(value: unknown): string {
  if (typeof value === "string") return value;
  if (
    value === undefined ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    typeof value === "bigint" ||
    typeof value === "symbol" ||
    typeof value === "function"
  ) {
    return String(value);
  }
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function formatVerb(verb: string, value: unknown): string {
  switch (verb) {
    case "s":
    case "v":
      return plain(value);
    case "d":
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "number" && Number.isInteger(value)) return String(value);
      return `%!d(${plain(value)})`;
    case "q":
      return typeof value === "string" ? quoteGo(value) : `%!q(${plain(value)})`;
    default:
      return `%!${verb}(${plain(value)})`;
  }
}

/** `format` with its verbs replaced by `args`, Go-style (see the module comment). */
export function sprintf(format: string, args: readonly unknown[]): string {
  let next = 0;
  const out = format.replace(/%(.?)/gs, (_match, verb: string) => {
    if (verb === "%") return "%";
    if (verb === "") return "%!(NOVERB)";
    if (next >= args.length) return `%!${verb}(MISSING)`;
    return formatVerb(verb, args[next++]);
  });
  if (next >= args.length) return out;
  return `${out}%!(EXTRA ${args.slice(next).map(plain).join(", ")})`;
}
