/**
 * Cache keys of objects: `namespace/name`, or `name` for cluster-scoped objects
 * (client-go's MetaNamespaceKeyFunc and SplitMetaNamespaceKey).
 */

/** Why an object key could not be built or split. */
export type ObjectKeyErrorReason = "NoMetadata" | "NoName" | "MalformedKey";

/** Thrown by {@link objectKey} and {@link splitObjectKey}; `reason` says what is missing or wrong. */
export class ObjectKeyError extends Error {
  /** What is missing (`NoMetadata`, `NoName`) or wrong (`MalformedKey`). */
  readonly reason: ObjectKeyErrorReason;
  /** The key that failed to split; `undefined` when building a key failed. */
  readonly key: string | undefined;

  constructor(reason: ObjectKeyErrorReason, message: string, key?: string) {
    super(message);
    this.name = "ObjectKeyError";
    this.reason = reason;
    this.key = key;
  }
}

/**
 * The key of an object: `"ns/name"`, or `"name"` when the namespace is absent or empty.
 *
 * @throws {ObjectKeyError} with reason `NoMetadata` when `metadata` is absent, or `NoName`
 * when `metadata.name` is absent or empty (an object created with only `generateName` has
 * no key until the server names it).
 */
export function objectKey(obj: { metadata?: { name?: string; namespace?: string } }): string {
  const meta = obj.metadata;
  if (meta === undefined || meta === null) {
    throw new ObjectKeyError("NoMetadata", "object has no metadata, so it has no key");
  }
  const { name, namespace } = meta;
  if (typeof name !== "string" || name === "") {
    throw new ObjectKeyError("NoName", "object has no metadata.name, so it has no key");
  }
  return typeof namespace === "string" && namespace !== "" ? `${namespace}/${name}` : name;
}

/**
 * Splits a key made by {@link objectKey}: `"name"` gives namespace `""`, `"ns/name"` gives
 * both parts. Like client-go it does not check that the parts are non-empty (`"/x"` gives
 * namespace `""`, name `"x"`).
 *
 * @throws {ObjectKeyError} with reason `MalformedKey` when the key has more than one `/`.
 */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const parts = key.split("/");
  if (parts.length === 1) return { namespace: "", name: key };
  if (parts.length === 2) return { namespace: parts[0] ?? "", name: parts[1] ?? "" };
  throw new ObjectKeyError("MalformedKey", `unexpected key format: ${JSON.stringify(key)}`, key);
}
