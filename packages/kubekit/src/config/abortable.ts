/**
 * Waiting on a shared promise with a caller's abort signal: the caller stops waiting when its
 * signal aborts, while the shared work (a token file read, an exec plugin run) goes on for
 * the other waiters.
 */

/**
 * Resolves or rejects like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts (immediately when it already has). The listener is removed once settled.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
