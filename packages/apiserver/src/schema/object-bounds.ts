/**
 * The nesting bound of everything the embedded server decodes and stores, and the check of a
 * decoded value against it.
 */

/**
 * The deepest nesting of arrays and objects the embedded server accepts in a body or a stored
 * object (the top-level object is level 1). kube-apiserver accepts 10000 (`maxNestingDepth` of
 * Go's `encoding/json/scanner.go`; go-yaml's `max_flow_level`), but the server's encoders
 * recurse: `JSON.stringify` exhausts Node's default stack at about 4,100 levels and the `yaml`
 * package's `stringify` (YAML responses) at about 640, so 500 keeps every stored object
 * encodable in every output format, with managedFields (which mirror the object's shape a few
 * levels deeper) and Table wrappers. Real objects, CRD schemas included, stay far below it.
 */
export const MAX_OBJECT_DEPTH = 500;

/** Why a decoded value cannot be stored: nested too deeply, or not a JSON value. */
export type ObjectBoundsProblem =
  | { readonly kind: "tooDeep"; readonly limit: number }
  | { readonly kind: "notJson"; readonly what: string };

/**
 * Checks, without recursion, that `value` is a JSON value (plain objects and arrays, strings,
 * finite numbers, booleans, null: what Go's `encoding/json` can marshal; a YAML `.inf` or a
 * `!!binary` value is not) nested at most `maxDepth` levels. Returns the first problem found,
 * or undefined.
 */
export function objectBoundsProblem(
  value: unknown,
  maxDepth = MAX_OBJECT_DEPTH,
): ObjectBoundsProblem | undefined {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { kind: "notJson", what: "a number that is not finite" };
      continue;
    }
    if (typeof v !== "object") return { kind: "notJson", what: `a value of type ${typeof v}` };
    const proto = Object.getPrototypeOf(v) as unknown;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      return { kind: "notJson", what: "a value that is not a plain object" };
    }
    if (depth + 1 > maxDepth) return { kind: "tooDeep", limit: maxDepth };
    for (const child of Object.values(v)) pending.push([child, depth + 1]);
  }
  return undefined;
}
