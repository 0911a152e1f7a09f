/** The namespace index every informer cache has by default (client-go's `NamespaceIndex`). */
import type { ObjectWithMeta } from "./tombstone.js";

/** Name of the namespace index: `byIndex(NAMESPACE_INDEX, "default")` lists one namespace. */
export const NAMESPACE_INDEX = "namespace";

/**
 * client-go's `MetaNamespaceIndexFunc`: files an object under its `metadata.namespace`;
 * cluster-scoped objects (no or empty namespace) are filed under `""`.
 *
 * @throws {TypeError} when the object has no `metadata`, which the indexer reports as an
 * `IndexerError` with reason `IndexFuncFailed`.
 */
export function namespaceIndexFunc(obj: ObjectWithMeta): readonly string[] {
  const meta = obj.metadata;
  if (meta === undefined || meta === null) {
    throw new TypeError("object has no metadata, so it has no namespace");
  }
  const namespace = meta.namespace ?? "";
  let values = namespaceValues.get(namespace);
  if (values === undefined) {
    values = Object.freeze([namespace]);
    namespaceValues.set(namespace, values);
  }
  return values;
}

/** One frozen value list per namespace: the index function runs on every write, allocation-free. */
const namespaceValues = new Map<string, readonly string[]>();
