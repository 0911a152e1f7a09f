/** The errors of `installCrds` and `uninstallCrds` beyond the API's own. */

/**
 * CRDs that did not get where they were awaited in time: Established and served in discovery
 * (`installCrds`), or gone (`uninstallCrds`). `pending` names each CRD with what it lacked.
 */
export class CrdWaitTimeoutError extends Error {
  override name = "CrdWaitTimeoutError";
  /** Each CRD still waited for, by name, with what it lacked. */
  readonly pending: ReadonlyMap<string, string>;
  readonly timeoutMs: number;

  constructor(
    action: "installed" | "uninstalled",
    timeoutMs: number,
    pending: Map<string, string>,
  ) {
    const list = [...pending].map(([name, why]) => `${name} (${why})`).join(", ");
    super(`CustomResourceDefinitions not ${action} after ${timeoutMs} ms: ${list}`);
    this.pending = pending;
    this.timeoutMs = timeoutMs;
  }
}
