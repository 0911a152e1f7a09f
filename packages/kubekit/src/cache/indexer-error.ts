/** Why an {@link Indexer} operation failed. */

/**
 * - `UnknownIndex`: a query named an index that does not exist.
 * - `IndexerConflict`: `addIndexers` named an index that already exists.
 * - `IndexFuncFailed`: an index function threw (or did not return an array of strings).
 */
export type IndexerErrorReason = "UnknownIndex" | "IndexerConflict" | "IndexFuncFailed";

/**
 * Thrown by indexers. Whenever it is thrown by a write (`add`, `update`, `replace`,
 * `addIndexers`) the indexer was left exactly as it was before the call.
 */
export class IndexerError extends Error {
  /** What went wrong. */
  readonly reason: IndexerErrorReason;
  /** The index concerned; for `IndexerConflict`, every conflicting name. */
  readonly indexNames: readonly string[];
  /** For `IndexFuncFailed`, the key of the object being indexed, when it could be computed. */
  readonly key: string | undefined;

  constructor(
    reason: IndexerErrorReason,
    message: string,
    details: { indexNames: readonly string[]; key?: string; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "IndexerError";
    this.reason = reason;
    this.indexNames = details.indexNames;
    this.key = details.key;
  }
}
