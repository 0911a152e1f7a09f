/** What an API WebSocket is about, for the messages of errors built from non-Status answers. */
export interface ApiWebSocketTarget {
  /** API group of the resource (`""`, the default, for core). */
  readonly group?: string;
  /** The resource (plural), e.g. `pods`. */
  readonly resource?: string;
  /** The object name. */
  readonly name?: string;
}
