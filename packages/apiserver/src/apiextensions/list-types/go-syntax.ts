/**
 * Go's `%#v` of an unstructured JSON value (`map[string]interface{}`, `[]interface{}`,
 * `int64`, `float64`, `string`, `bool`, nil), as apimachinery's field errors print a bad
 * value that is neither a string nor a number: `map[string]interface {}{"name":"a"}`
 * (keys sorted), `[]interface {}{"a", 1}`, `interface {}(nil)`.
 */
import type { JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";

function formatInner(value: JsonValue): string {
  if (value === null) return "interface {}(nil)";
  return formatGoSyntax(value);
}

/** `value` as Go's `%#v` prints its unstructured form. */
export function formatGoSyntax(value: JsonValue): string {
  if (value === null) return "<nil>";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(formatInner).join(", ")}}`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    const entries = keys.map((k) => `${JSON.stringify(k)}:${formatInner(value[k] as JsonValue)}`);
    return `map[string]interface {}{${entries.join(", ")}}`;
  }
  return String(value);
}
