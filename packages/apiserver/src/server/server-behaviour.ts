/** Tunables of the embedded server's behaviour, with kube-apiserver's defaults. */
export interface ServerBehaviour {
  /** Changes kept for watch replay and consistent pagination (kube's watch cache is ~100 per resource; etcd keeps ~5 min). */
  readonly historySize: number;
  /** Interval of watch bookmarks for watchers that allow them (kube-apiserver: about a minute). */
  readonly bookmarkIntervalMs: number;
  /** A watch whose unsent backlog exceeds this many bytes is dropped (kube closes unresponsive watchers). */
  readonly maxWatchBacklogBytes: number;
  /**
   * The unsent backlog of all watches together past which the most backlogged ones are dropped
   * until the total is back within it (kube's cacher terminates watchers it cannot deliver to).
   */
  readonly maxTotalWatchBacklogBytes: number;
  /** How long a request body may take to arrive in full before a 504 (kube's `--request-timeout`). */
  readonly requestBodyTimeoutMs: number;
  /** How long a read with a resourceVersion newer than the server's waits before 504 (kube: ~3 s). */
  readonly tooLargeResourceVersionWaitMs: number;
  /** What `/version` reports; `minor` selects which kubectl the dispatcher runs. */
  readonly version: { readonly major: string; readonly minor: string; readonly gitVersion: string };
  /** Whether `sendInitialEvents` (WatchList) is served; when false it is rejected with 422. */
  readonly watchList: boolean;
}
