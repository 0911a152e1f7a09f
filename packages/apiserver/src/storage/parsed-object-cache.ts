import type { JsonObject } from "kubekit";

/**
 * A bounded cache of parsed stored objects, keyed by the stored bytes themselves (each
 * committed version of an object has its own Buffer, never modified, so a hit is always
 * current for that version, and a replaced version simply ages out).
 *
 * Two generations instead of a strict LRU (a Map's delete + set per hit costs tens of µs on a
 * large Map in V8): objects enter the young generation; once its JSON exceeds half the budget
 * it becomes the old generation and the previous old one is dropped whole; a hit in the old
 * generation moves the object back to the young one. What is read again within a generation
 * survives, a scan or a burst of writes evicts in O(1). At most about `budgetBytes` of JSON is
 * cached (a parsed object costs roughly two to four times its JSON on the heap).
 *
 * Handed-out objects are shared between readers and must never be mutated.
 */
export class ParsedObjectCache {
  #young = new Map<Buffer, JsonObject>();
  #old = new Map<Buffer, JsonObject>();
  #youngBytes = 0;
  readonly #generationBytes: number;

  constructor(budgetBytes: number) {
    this.#generationBytes = budgetBytes / 2;
  }

  /** The cached object of these bytes (kept young), or undefined. */
  get(json: Buffer): JsonObject | undefined {
    const young = this.#young.get(json);
    if (young !== undefined) return young;
    const old = this.#old.get(json);
    if (old !== undefined) this.set(json, old);
    return old;
  }

  /** The cached object of these bytes without keeping it (scans must not promote). */
  peek(json: Buffer): JsonObject | undefined {
    return this.#young.get(json) ?? this.#old.get(json);
  }

  /** Caches `obj` as the parsed form of `json`. */
  set(json: Buffer, obj: JsonObject): void {
    if (json.length > this.#generationBytes || this.#young.has(json)) return;
    this.#young.set(json, obj);
    this.#youngBytes += json.length;
    if (this.#youngBytes > this.#generationBytes) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngBytes = 0;
    }
  }
}
