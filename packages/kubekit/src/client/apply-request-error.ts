/**
 * The error a server-side apply is refused with before anything is sent.
 */

/**
 * Why an apply request was refused client-side:
 * - `MissingFieldManager`: `fieldManager` is absent or empty (the server would answer 422;
 *   client-go's ApplyOptions make it required).
 * - `ManagedFieldsPresent`: the object carries `metadata.managedFields`, which usually means
 *   it was read from the server and would re-apply every field of every manager (client-go
 *   refuses these too; build the configuration from the fields you own instead).
 * - `MissingName`: the object has no `metadata.name` (apply addresses the object by name).
 */
export type ApplyRequestProblem = "MissingFieldManager" | "ManagedFieldsPresent" | "MissingName";

/**
 * What `apply` rejects with, before any request is sent, when the request cannot be a
 * valid server-side apply. Not a `StatusError`: the server was never asked.
 */
export class ApplyRequestError extends Error {
  /** What is wrong with the request. */
  readonly problem: ApplyRequestProblem;

  constructor(problem: ApplyRequestProblem, message: string) {
    super(message);
    this.name = "ApplyRequestError";
    this.problem = problem;
  }
}
