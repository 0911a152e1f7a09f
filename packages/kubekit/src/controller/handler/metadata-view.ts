/**
 * What the controller toolkit's handlers and predicates read of a watched object: its
 * metadata, whether the object is a parsed one or a lazy informer's item (issue 24 §2).
 */
import type { LazyObjectMeta } from "../../cache/lazy-object.js";

/**
 * An object as the built-in handlers (`enqueueForObject`, `enqueueForOwner`,
 * `enqueueFromMap`'s callers) and predicates (`generationChanged`, `labelsChanged`,
 * `labelSelectorPredicate`, ...) read it: `apiVersion`, `kind` and the metadata fields of
 * {@link LazyObjectMeta}, read-only. Every typed or unstructured object satisfies it, and so
 * does a lazy informer's `LazyObject<T>`, so the same handlers and predicates watch eager and
 * lazy informers alike, and never parse a lazy object's body.
 */
export interface MetadataView {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: LazyObjectMeta;
}
