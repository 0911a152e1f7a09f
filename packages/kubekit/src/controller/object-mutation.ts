/**
 * What {@link createOrUpdate} and {@link createOrPatch} share (controller-runtime's
 * `pkg/controller/controllerutil/controllerutil.go`): the operation results, the mutate
 * function and its rule that the object's name and namespace stay, and the wire-JSON
 * snapshots they compare.
 */
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { JsonObject } from "../core/json.js";

/**
 * What {@link createOrUpdate} or {@link createOrPatch} did (controller-runtime's
 * `OperationResult`, same strings):
 *
 * - `"unchanged"`: the object existed and the mutation changed nothing: nothing was written
 *   (controller-runtime's `OperationResultNone`);
 * - `"created"`: the object did not exist and was created;
 * - `"updated"`: the object was updated (or, by `createOrPatch`, its spec/metadata patched);
 * - `"updatedStatus"` (`createOrPatch` only): the object and its status were patched;
 * - `"updatedStatusOnly"` (`createOrPatch` only): only its status was patched.
 */
export type OperationResult =
  "unchanged" | "created" | "updated" | "updatedStatus" | "updatedStatusOnly";

/**
 * Brings `obj` to the desired state, in place (controller-runtime's `MutateFn`). It is called
 * with the object as it exists on the server (or, when it does not exist, the object given),
 * and must not change its name or namespace.
 */
export type MutateFn<T> = (obj: T) => void | Promise<void>;

/**
 * The mutate function changed the object's name or namespace (controller-runtime's error,
 * same message). `before` and `after` are the keys, `namespace/name`.
 */
export class MutateFnError extends Error {
  /** The object's key before the mutation. */
  readonly before: string;
  /** The object's key after it. */
  readonly after: string;

  constructor(before: string, after: string) {
    super(
      `MutateFn cannot mutate object name and/or object namespace (${JSON.stringify(before)} became ${JSON.stringify(after)})`,
    );
    this.name = "MutateFnError";
    this.before = before;
    this.after = after;
  }
}

/** `namespace/name` of `obj`, with empty parts as they are (a key to compare, not to look up). */
function keyText(obj: ObjectWithMetadata): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

/**
 * Runs `mutate` on `obj` (controller-runtime's `mutate`).
 *
 * @throws {MutateFnError} when it changed the name or namespace; whatever `mutate` throws.
 */
export async function runMutate<T extends ObjectWithMetadata>(
  obj: T,
  mutate: MutateFn<T> | undefined,
): Promise<void> {
  if (mutate === undefined) return;
  const before = keyText(obj);
  const pending = mutate(obj);
  if (pending !== undefined) await pending;
  const after = keyText(obj);
  if (after !== before) throw new MutateFnError(before, after);
}

/**
 * The wire JSON of `obj` as a fresh object: what the server would receive (fields set to
 * `undefined` are absent, as in `JSON.stringify`).
 */
export function wireSnapshot(obj: ObjectWithMetadata): JsonObject {
  return JSON.parse(JSON.stringify(obj)) as JsonObject;
}

/**
 * Whether `a` and `b` have the same wire JSON: deep equality where a property whose value is
 * `undefined` counts as absent and key order does not matter (controller-runtime's
 * `equality.Semantic.DeepEqual` on the objects' JSON form). Without serializing either.
 */
export function wireEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // JSON writes `undefined` array elements as null.
    return a.every((item, i) => wireEqual(item ?? null, b[i] ?? null));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let defined = 0;
  for (const key of Object.keys(left)) {
    const value = left[key];
    if (value === undefined) continue;
    defined++;
    if (!Object.hasOwn(right, key) || !wireEqual(value, right[key])) return false;
  }
  for (const key of Object.keys(right)) if (right[key] !== undefined) defined--;
  return defined === 0;
}

/**
 * Makes `target` hold exactly the fields of `source` (controller-runtime's clients decode the
 * server's answer into the object the caller passed). `source` must be the caller's own
 * copy, never a cached object.
 */
export function replaceContents<T extends object>(target: T, source: T): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}
