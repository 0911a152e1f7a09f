/**
 * The message of a thrown value, as logs and error messages quote a cause (Go's
 * `err.Error()`): an `Error`'s `message`, anything else as `String(value)`.
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
