/**
 * The REST layer's request metrics hook (client-go's `tools/metrics` `RequestResult` and
 * `RequestLatency`, recorded in `rest/request.go`).
 */

/**
 * Receives one call per attempt of every request a {@link RESTClient} sends: each try of a
 * retried request is an attempt, as client-go counts them. Off unless a client is given one;
 * it must not throw and should not allocate (it runs on every request).
 */
export interface RequestMetrics {
  /**
   * @param method the HTTP method (`GET`, `POST`, ...).
   * @param host the API server's `host[:port]` as in the client's URL.
   * @param code the response's status code as a string (`"200"`), or `"<error>"` when no
   *   response arrived (a transport error), as client-go labels it.
   * @param seconds from sending the attempt to its response headers (or its failure), on the
   *   client's clock.
   */
  observe(method: string, host: string, code: string, seconds: number): void;
}

/** The code of an attempt that got no response (client-go's label for it). */
export const NO_RESPONSE_CODE = "<error>";
