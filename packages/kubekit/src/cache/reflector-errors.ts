/**
 * Errors a Reflector reports (to its watch error handler and as `lastError`) for conditions
 * that are not an error answer of the server.
 */

/**
 * A watch ended cleanly less than a second after it was opened without delivering a single
 * event (client-go's `VeryShortWatchError`): most likely a server or proxy that closes
 * watches at once. The reflector backs off and relists instead of re-watching in a loop.
 */
export class VeryShortWatchError extends Error {
  /** How long the watch lasted, in ms (on the reflector's clock). */
  readonly durationMs: number;

  constructor(reflector: string, durationMs: number) {
    super(
      `${reflector}: very short watch: the watch lasted less than a second (${durationMs}ms) and no events were received`,
    );
    this.name = "VeryShortWatchError";
    this.durationMs = durationMs;
  }
}

/**
 * A WatchList (streaming list) did not deliver the bookmark annotated
 * `k8s.io/initial-events-end: "true"`: the stream ended before it (`reason` `"ended"`), or
 * it did not arrive within the reflector's `watchListEndTimeoutMs` (`"timeout"`). The
 * reflector falls back to a paginated list.
 */
export class WatchListIncompleteError extends Error {
  readonly reason: "ended" | "timeout";
  /** The initial events received (and discarded) before giving up. */
  readonly eventsReceived: number;

  constructor(
    reflector: string,
    reason: "ended" | "timeout",
    eventsReceived: number,
    timeoutMs: number,
  ) {
    super(
      reason === "timeout"
        ? `${reflector}: the WatchList stream sent no initial-events-end bookmark within ${timeoutMs}ms (${eventsReceived} events received)`
        : `${reflector}: the WatchList stream ended before the initial-events-end bookmark (${eventsReceived} events received)`,
    );
    this.name = "WatchListIncompleteError";
    this.reason = reason;
    this.eventsReceived = eventsReceived;
  }
}

/**
 * A list answer that is not a list of the reflector's objects (client-go's "unsupported list
 * gvk"): a `meta.k8s.io` `Table` (the ListerWatcher asked for Table output, as kubectl does),
 * or, when the reflector has an `expectedKind`, a list of another kind. The reflector fails
 * the list loudly and retries after its backoff instead of syncing an empty cache.
 */
export class UnsupportedListKindError extends Error {
  /** The list answer's `apiVersion`, when it had one. */
  readonly apiVersion: string | undefined;
  /** The list answer's `kind`. */
  readonly kind: string;

  constructor(reflector: string, apiVersion: string | undefined, kind: string, expected: string) {
    super(
      `${reflector}: unsupported list gvk: the list answer is a ${apiVersion ?? "(no apiVersion)"} ${kind}, expected ${expected}` +
        (kind === "Table" ? " (does the ListerWatcher's Accept header ask for a Table?)" : ""),
    );
    this.name = "UnsupportedListKindError";
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}
