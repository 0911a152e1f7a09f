/**
 * The item of a metadata-first (lazy) informer: the object's metadata, read from its JSON
 * without parsing the rest, and its body parsed on first access (issue 24 §2).
 */
import type { OwnerReference } from "kubernetes-types/meta/v1.js";

/**
 * The metadata fields a lazy informer reads from each object's JSON bytes, enough for keys,
 * indexes, label and field selection of metadata, ownership and deletion: everything else
 * stays in the body. Absent fields are absent (never `""` or `null`).
 */
export interface LazyObjectMeta {
  readonly namespace?: string;
  readonly name?: string;
  readonly generateName?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
}

/**
 * An object held by a lazy informer: `metadata` is read eagerly (so every `metadata`-based
 * key function, index function, selector and owner lookup works on it unchanged),
 * `object()` parses the body on its first call and returns the same instance afterwards
 * (the bytes are dropped then). Like every cached object it is shared: never mutate it or
 * what `object()` returns.
 */
export interface LazyObject<T> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: LazyObjectMeta;
  /** The whole object, parsed on the first call and cached; the same instance afterwards. */
  object(): T;
  /** Whether `object()` has been called (the body is parsed and the bytes dropped). */
  readonly parsed: boolean;
}
