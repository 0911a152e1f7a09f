/**
 * The error a reconciler throws when retrying cannot help (controller-runtime's
 * `reconcile.TerminalError`, `pkg/reconcile/reconcile.go`).
 */

/**
 * Thrown by a reconciler to say that the failure is permanent: the controller logs it and
 * forgets the key (no rate-limited requeue). The key is reconciled again only when a watched
 * object changes or it is enqueued again. `cause` keeps the underlying error.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** How deep {@link isTerminalError} follows `cause` links (guards against cycles). */
const MAX_CAUSE_DEPTH = 32;

/**
 * Whether `err` is a {@link TerminalError} or wraps one through its `cause` chain (Go's
 * `errors.Is(err, reconcile.TerminalError(nil))` follows wrapping the same way).
 */
export function isTerminalError(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (current instanceof TerminalError) return true;
    current = current.cause;
  }
  return false;
}
