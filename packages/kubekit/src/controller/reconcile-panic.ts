/**
 * What a {@link Controller} counts as a panic (controller-runtime recovers Go panics in
 * `Reconcile` and counts them in `controller_runtime_reconcile_panics_total`,
 * `pkg/internal/controller/controller.go`).
 *
 * JavaScript has no panics: every throw is an exception. The Go panics a reconciler meets are
 * runtime faults (a nil dereference, an index out of range, a failed type assertion) and
 * explicit `panic(value)`. Their JavaScript counterparts are the errors the engine itself
 * throws for programming faults, and throwing something that is not an `Error`. So a reconcile
 * "panics" when it throws (or rejects with):
 *
 * - a value that is not an `Error` (`throw "boom"`, `throw { code: 1 }`, `undefined`), or
 * - an ECMAScript programming error: `TypeError` (`undefined.x`), `ReferenceError`,
 *   `RangeError`, `SyntaxError`, `EvalError` or `URIError` (subclasses included).
 *
 * Any other error (API errors, `TerminalError`, aborts, your own `Error`s) is an ordinary
 * reconcile error. A panic is handled as an error (logged, requeued with backoff, counted in
 * the errors) and counted as a panic too. Every throw of a source's predicate, handler or map
 * function counts as a panic, whatever it threw (controller-runtime does not expect errors
 * there at all).
 */
const PROGRAMMING_ERRORS = [
  TypeError,
  ReferenceError,
  RangeError,
  SyntaxError,
  EvalError,
  URIError,
];

/** Whether a reconcile that threw `error` panicked (see the module comment). */
export function isReconcilePanic(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  return PROGRAMMING_ERRORS.some((type) => error instanceof type);
}
