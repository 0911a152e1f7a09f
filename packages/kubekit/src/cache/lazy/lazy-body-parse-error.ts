/**
 * The error of a lazy object whose body bytes are not valid JSON (issue 24 §2): the metadata
 * scanner only delimits what it skips, so a malformed body surfaces when it is parsed.
 */
import type { LazyObjectMeta } from "../lazy-object.js";

/**
 * Thrown by `LazyObject.object()` when the object's JSON bytes do not parse. Names the object
 * (`kind namespace/name`, from the metadata read when it was received) and keeps the
 * `SyntaxError` of JSON.parse as its `cause`.
 */
export class LazyBodyParseError extends Error {
  /** `namespace/name`, or `name` for a cluster-scoped object ("" when it has none). */
  readonly objectKey: string;

  constructor(kind: string | undefined, metadata: LazyObjectMeta, cause: unknown) {
    const key =
      metadata.namespace !== undefined && metadata.namespace !== ""
        ? `${metadata.namespace}/${metadata.name ?? ""}`
        : (metadata.name ?? "");
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`cannot parse the JSON body of ${kind ?? "object"} "${key}": ${detail}`, { cause });
    this.name = "LazyBodyParseError";
    this.objectKey = key;
  }
}
