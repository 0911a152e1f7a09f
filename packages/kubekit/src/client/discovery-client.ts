/**
 * `DiscoveryClient`: what the API server serves, asked live (client-go's
 * `discovery.DiscoveryClient`), aggregated discovery first with the legacy fallback.
 */
import type { APIGroup, APIGroupList } from "kubernetes-types/meta/v1.js";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { isJsonObject } from "../core/json.js";
import type { Logger } from "../core/logger.js";
import { isForbidden, isNotFound } from "../core/status.js";
import { parseApiVersion } from "../core/gvk.js";
import type { RestConfig } from "../config/rest-config.js";
import { defaultRateLimiter, RESTClient } from "../rest/rest-client.js";
import type { RequestBuilder } from "../rest/request-builder.js";
import type { RestResponse } from "../rest/rest-response.js";
import { Transport } from "../rest/transport.js";
import { convertAggregatedDiscovery } from "./discovery-aggregated.js";
import { InvalidDiscoveryDocumentError } from "./discovery-errors.js";
import { stringField } from "./discovery-json.js";
import {
  coreGroupFromAPIVersions,
  encodeAPIGroupList,
  groupsFromAPIGroupList,
  resourceListFromAPIResourceList,
} from "./discovery-legacy.js";
import {
  AGGREGATED_DISCOVERY_ACCEPT,
  aggregatedDiscoveryVersion,
  LEGACY_DISCOVERY_ACCEPT,
} from "./discovery-media-type.js";
import { DEFAULT_DISCOVERY_CONCURRENCY, DiscoveryQueries } from "./discovery-queries.js";
import type {
  DiscoveredResourceList,
  DiscoveryInterface,
  DiscoverySource,
  GroupsAndMaybeResources,
  ServerVersionInfo,
} from "./discovery-types.js";

/** client-go's discovery request timeout (`defaultTimeout`), sent as `?timeout=32s`. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 32_000;
/** client-go's discovery burst (`defaultBurst`), used when the config sets none. */
export const DEFAULT_DISCOVERY_BURST = 300;

/** Options of a {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /**
   * Ask `/api` and `/apis` for aggregated discovery (default true). With false the client
   * sends a plain JSON Accept, gets the legacy documents and fetches every group version on its
   * own, as client-go does against servers older than aggregated discovery.
   */
  readonly aggregated?: boolean;
  /** At most this many per-group-version requests at once in legacy discovery (default 16). */
  readonly concurrency?: number;
  /**
   * Timeout of each discovery request in ms, also sent as `?timeout=` (default: the config's
   * `timeoutMs`, else 32 s as client-go).
   */
  readonly timeoutMs?: number;
  /** For a client built from a RestConfig: the RESTClient's clock (default: real). */
  readonly clock?: Clock;
  /** For a client built from a RestConfig: the RESTClient's logger. */
  readonly logger?: Logger;
}

/** The answer of `/api` or `/apis` in the typed model. */
interface RootAnswer {
  readonly groups: APIGroup[];
  /** Present for aggregated answers. */
  readonly resources?: ReadonlyMap<string, DiscoveredResourceList>;
  readonly failures?: ReadonlyMap<string, Error>;
}

/**
 * Asks the API server what it serves. Nothing is cached: each call sends requests (wrap it in
 * {@link MemoryCachedDiscovery} or {@link DiskCachedDiscovery} to cache).
 *
 * - `/api` and `/apis` are requested with `AGGREGATED_DISCOVERY_ACCEPT` (aggregated v2,
 *   then v2beta1, then plain JSON); the response Content-Type alone decides the format. An
 *   aggregated answer holds every resource, so `serverGroupsAndResources()` costs exactly
 *   two requests; a legacy answer makes the client fetch `/api/v1` and each `/apis/G/V`
 *   (in parallel, at most `concurrency` at once).
 * - A 404 on `/api` means the server has no core group; a 404 on `/apis` is an error.
 * - `serverResourcesForGroupVersion("v1")` answers an empty list on 404/403 (client-go's
 *   tolerance of very old servers); other group versions throw the `StatusError`.
 * - Every request carries `?timeout=` (32 s unless configured) and honours the call's signal.
 *
 * Built from a `RestConfig`, it uses the config's shared transport and a rate limiter with
 * client-go's discovery burst (300 when the config's burst is unset); built from a
 * `RESTClient`, it uses that client as it is.
 */
export class DiscoveryClient
  extends DiscoveryQueries
  implements DiscoveryInterface, DiscoverySource
{
  /** The REST client requests go through. */
  readonly restClient: RESTClient;
  readonly #aggregated: boolean;
  protected readonly queryConcurrency: number;
  readonly #timeoutMs: number;

  /**
   * @throws {RangeError} for a `concurrency` below 1 or a non-positive `timeoutMs`.
   * @throws as `new RESTClient(config)` for an invalid config.
   */
  constructor(config: RestConfig | RESTClient, options: DiscoveryClientOptions = {}) {
    super();
    const concurrency = options.concurrency ?? DEFAULT_DISCOVERY_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
    }
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be positive, got ${options.timeoutMs}`);
    }
    this.restClient = config instanceof RESTClient ? config : discoveryRestClient(config, options);
    this.#aggregated = options.aggregated ?? true;
    this.queryConcurrency = concurrency;
    this.#timeoutMs =
      options.timeoutMs ?? this.restClient.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  }

  /** The server URL, `restClient.config.host`. */
  get host(): string {
    return this.restClient.config.host;
  }

  /** `GET /version`; fields the server left out read as `""`. */
  async serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    const { body } = await this.#get(signal, "/version").do<unknown>();
    if (!isJsonObject(body)) {
      throw new InvalidDiscoveryDocumentError("/version", "version info must be an object");
    }
    return {
      major: stringField(body, "major"),
      minor: stringField(body, "minor"),
      gitVersion: stringField(body, "gitVersion"),
      gitCommit: stringField(body, "gitCommit"),
      gitTreeState: stringField(body, "gitTreeState"),
      buildDate: stringField(body, "buildDate"),
      goVersion: stringField(body, "goVersion"),
      compiler: stringField(body, "compiler"),
      platform: stringField(body, "platform"),
    };
  }

  /**
   * `GET /api` then `GET /apis`: the groups, the core group first, and, for aggregated
   * answers, every resource with them. Stale group versions are left out of the groups and
   * reported in `failures`.
   *
   * @throws {StatusError} for a failed `/api` (except 404) or `/apis`.
   * @throws {InvalidDiscoveryDocumentError} for a body that is not a JSON object.
   */
  async groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources> {
    const core = await this.#root("/api", signal);
    const named = await this.#root("/apis", signal);
    const resources = new Map<string, DiscoveredResourceList>();
    const failures = new Map<string, Error>();
    for (const answer of [core, named]) {
      for (const [gv, list] of answer.resources ?? []) resources.set(gv, list);
      for (const [gv, err] of answer.failures ?? []) failures.set(gv, err);
    }
    return {
      groups: encodeAPIGroupList([...core.groups, ...named.groups]),
      resources,
      failures,
    };
  }

  /** Every group, the core group first (as `kubectl api-versions` sees them). */
  async serverGroups(signal?: AbortSignal): Promise<APIGroupList> {
    return (await this.groupsAndMaybeResources(signal)).groups;
  }

  /**
   * `GET /api/v1` or `GET /apis/{group}/{version}` (always the legacy `APIResourceList`).
   *
   * @throws {Error} when `groupVersion` is not `version` or `group/version`.
   * @throws {StatusError} when the request fails (404/403 for `v1` give an empty list).
   */
  async serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList> {
    const { group, version } = parseApiVersion(groupVersion);
    const segments = group === "" ? ["/api", version] : ["/apis", group, version];
    const path = segments.join("/");
    try {
      const { body } = await this.#get(signal, ...segments).do<unknown>();
      return resourceListFromAPIResourceList(body, groupVersion, path);
    } catch (err) {
      if (groupVersion === "v1" && (isNotFound(err) || isForbidden(err))) {
        return { groupVersion, group, version, resources: [] };
      }
      throw err;
    }
  }

  #get(signal: AbortSignal | undefined, ...path: string[]): RequestBuilder {
    const builder = this.restClient
      .get()
      .absPath(...path)
      .timeout(this.#timeoutMs);
    return signal === undefined ? builder : builder.signal(signal);
  }

  async #root(path: "/api" | "/apis", signal: AbortSignal | undefined): Promise<RootAnswer> {
    const accept = this.#aggregated ? AGGREGATED_DISCOVERY_ACCEPT : LEGACY_DISCOVERY_ACCEPT;
    let response: RestResponse<unknown>;
    try {
      response = await this.#get(signal, path).accept(accept).do<unknown>();
    } catch (err) {
      if (path === "/api" && isNotFound(err)) return { groups: [] };
      throw err;
    }
    if (aggregatedDiscoveryVersion(response.headers["content-type"]) !== undefined) {
      return convertAggregatedDiscovery(response.body, path);
    }
    if (path === "/api") {
      const core = coreGroupFromAPIVersions(response.body, path);
      return { groups: core === undefined ? [] : [core] };
    }
    return { groups: groupsFromAPIGroupList(response.body, path) };
  }
}

/** The RESTClient of a discovery client built from a config (see {@link DiscoveryClient}). */
function discoveryRestClient(config: RestConfig, options: DiscoveryClientOptions): RESTClient {
  const burst = config.burst > 0 ? config.burst : DEFAULT_DISCOVERY_BURST;
  const clock = options.clock ?? realClock;
  const rateLimiter = defaultRateLimiter({ ...config, burst }, clock);
  return new RESTClient(config, {
    transport: Transport.forConfig(config),
    clock,
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(rateLimiter !== undefined ? { rateLimiter } : {}),
  });
}
