/**
 * The development-mode cache mutation detector (the role of client-go's
 * `KUBE_CACHE_MUTATION_DETECTOR`): objects are deep-frozen as they enter an informer's cache,
 * so code that mutates a shared cached object fails at the faulty assignment instead of
 * silently corrupting the cache for every reader.
 */

/**
 * Freezes `value` and every object and array reachable from it (own enumerable properties),
 * in place, and returns it. Primitives are returned as they are.
 *
 * After this, assigning to, adding or deleting a property of any part of the object throws a
 * `TypeError` in strict-mode code (every ES module is strict); in sloppy-mode code it is
 * silently ignored. Meant for wire JSON: the contents of a `Map`, `Set` or typed array
 * are not frozen.
 *
 * Cost: one visit per object, so only enable it in development and tests.
 */
export function deepFreeze<T>(value: T): T {
  freezeAll(value, new Set());
  return value;
}

function freezeAll(value: unknown, seen: Set<object>): void {
  if (typeof value !== "object" || value === null || seen.has(value)) return;
  seen.add(value);
  for (const key of Object.keys(value)) {
    freezeAll((value as Record<string, unknown>)[key], seen);
  }
  Object.freeze(value);
}
