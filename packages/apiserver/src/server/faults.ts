import type { ResourceRequestInfo } from "../endpoints/request-info.js";

/** An injected error answer for upcoming requests. */
export interface InjectedFailure {
  /** 429, 500 or 503 (any 4xx/5xx is accepted). */
  readonly code: number;
  /** Sent as `Retry-After` and `details.retryAfterSeconds` when set. */
  readonly retryAfterSeconds?: number;
  /** Only requests with these verbs are failed (default: every resource request). */
  readonly verbs?: readonly string[];
  /** Only requests for this resource (plural, e.g. `configmaps`) are failed (default: any). */
  readonly resource?: string;
  /**
   * Only requests in this namespace are failed (default: any). A request across all
   * namespaces (`/api/v1/configmaps`) is in none: with the simulated cluster on, its
   * components' cluster-wide lists and watches are spared a failure meant for a test's client.
   */
  readonly namespace?: string;
}

/** Operations the server performs for {@link ServerFaults}. */
export interface FaultTarget {
  closeWatches(): void;
  stallWatches(): void;
  compactHistory(): void;
  restart(): Promise<void>;
}

/**
 * Fault injection for tests of clients and informers: cut or stall watches, compact
 * history (older resourceVersions get 410), fail the next requests with 429/5xx, add
 * latency, restart the server (state kept, every connection dropped).
 */
export class ServerFaults {
  #failures: { failure: InjectedFailure; remaining: number }[] = [];
  #latency = 0;

  readonly #target: FaultTarget;

  /** @internal */
  constructor(target: FaultTarget) {
    this.#target = target;
  }

  /** Ends every open watch now, cleanly (clients re-watch from their last resourceVersion). */
  closeWatches(): void {
    this.#target.closeWatches();
  }

  /** Stops sending on every open watch without closing it: a half-open connection. */
  stallWatches(): void {
    this.#target.stallWatches();
  }

  /** Forgets all history: every resourceVersion older than the current one answers 410 Expired. */
  compactHistory(): void {
    this.#target.compactHistory();
  }

  /** Answers the next `count` matching resource requests with `failure.code`. */
  failNext(count: number, failure: InjectedFailure): void {
    if (count > 0) this.#failures.push({ failure, remaining: count });
  }

  /** Delays every request by `ms` before it is handled (0 turns it off). */
  setLatency(ms: number): void {
    this.#latency = Math.max(0, ms);
  }

  /** The current added latency in ms. */
  get latencyMs(): number {
    return this.#latency;
  }

  /** Drops every connection and listens again on the same port; stored objects are kept. */
  restart(): Promise<void> {
    return this.#target.restart();
  }

  /** Removes all pending injected failures and latency. */
  clear(): void {
    this.#failures = [];
    this.#latency = 0;
  }

  /** @internal The failure to answer this request with, consuming one count. */
  takeFailure(info: ResourceRequestInfo): InjectedFailure | undefined {
    for (const f of this.#failures) {
      if (f.failure.verbs && !f.failure.verbs.includes(info.verb)) continue;
      if (f.failure.resource !== undefined && f.failure.resource !== info.resource) continue;
      if (f.failure.namespace !== undefined && f.failure.namespace !== info.namespace) continue;
      f.remaining--;
      if (f.remaining <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
      return f.failure;
    }
    return undefined;
  }
}
