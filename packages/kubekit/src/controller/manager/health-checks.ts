/**
 * Named health checks answered as Kubernetes components answer `/healthz` and `/readyz`
 * (`k8s.io/apiserver/pkg/server/healthz/healthz.go`, controller-runtime's `pkg/healthz`).
 */
import type { Logger } from "../../core/logger.js";

/**
 * One check: returns (or resolves) when healthy, throws (or rejects) when not. `signal`
 * aborts when the prober hangs up. Errors are logged, never sent to the prober.
 */
export type HealthCheck = (signal: AbortSignal) => void | Promise<void>;

/** An answer to a probe. */
export interface ProbeResponse {
  readonly status: 200 | 404 | 500;
  readonly body: string;
}

/**
 * A set of named checks and the probe endpoint over them (`/healthz` or `/readyz`):
 *
 * - `GET /<endpoint>` runs every check (concurrently): 200 `ok` when all pass; otherwise 500
 *   with one line per check (`[+]name ok`, `[-]name failed: reason withheld`) and
 *   `<endpoint> check failed`. `?verbose` lists the checks on success too; `?exclude=name`
 *   (repeatable) skips a check.
 * - `GET /<endpoint>/<name>` runs one check: 200 `ok`, 500, or 404 for an unknown name.
 * - With no checks, the endpoint answers 200 `ok`.
 */
export class HealthChecks {
  /** The endpoint's name, e.g. `healthz`. */
  readonly endpoint: string;
  readonly #checks = new Map<string, HealthCheck>();
  readonly #logger: Logger;

  constructor(endpoint: string, logger: Logger) {
    this.endpoint = endpoint;
    this.#logger = logger;
  }

  /**
   * Adds a check.
   *
   * @throws {TypeError} when `name` is empty, contains `/`, or is taken.
   */
  add(name: string, check: HealthCheck): void {
    if (name === "" || name.includes("/")) {
      throw new TypeError(
        `${this.endpoint} check name must be non-empty without "/", got ${JSON.stringify(name)}`,
      );
    }
    if (this.#checks.has(name)) {
      throw new TypeError(`${this.endpoint} check ${JSON.stringify(name)} is already added`);
    }
    this.#checks.set(name, check);
  }

  /** The names of the checks, in the order they were added. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /**
   * Answers a probe of `/<endpoint>` (`subpath` empty) or `/<endpoint>/<name>` (`subpath`
   * the name), with the query parameters of the request.
   */
  async probe(
    subpath: string,
    query: URLSearchParams,
    signal: AbortSignal,
  ): Promise<ProbeResponse> {
    if (subpath !== "") {
      const check = this.#checks.get(subpath);
      if (check === undefined)
        return { status: 404, body: `${this.endpoint} check ${subpath} not found\n` };
      const healthy = await this.#run(subpath, check, signal);
      return healthy
        ? { status: 200, body: "ok" }
        : { status: 500, body: `internal server error: ${subpath} check failed\n` };
    }
    const excluded = new Set(query.getAll("exclude"));
    const selected = [...this.#checks].filter(([name]) => !excluded.has(name));
    const results = await Promise.all(
      selected.map(async ([name, check]) => [name, await this.#run(name, check, signal)] as const),
    );
    const allHealthy = results.every(([, healthy]) => healthy);
    if (allHealthy && !query.has("verbose")) return { status: 200, body: "ok" };
    const lines = results.map(([name, healthy]) =>
      healthy ? `[+]${name} ok` : `[-]${name} failed: reason withheld`,
    );
    for (const name of excluded) if (this.#checks.has(name)) lines.push(`[+]${name} excluded: ok`);
    lines.push(`${this.endpoint} check ${allHealthy ? "passed" : "failed"}`);
    return { status: allHealthy ? 200 : 500, body: lines.join("\n") + "\n" };
  }

  async #run(name: string, check: HealthCheck, signal: AbortSignal): Promise<boolean> {
    try {
      await check(signal);
      return true;
    } catch (error) {
      this.#logger.info(`${this.endpoint} check failed`, { check: name, error });
      return false;
    }
  }
}
