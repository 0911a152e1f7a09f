/**
 * `DiskCachedDiscovery`: discovery cached in files laid out like kubectl's (client-go's
 * `staging/src/k8s.io/client-go/discovery/cached/disk/cached_discovery.go`), so kubectl and kubekit
 * can share `~/.kube/cache/discovery`.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { APIGroupList } from "kubernetes-types/meta/v1.js";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { parseApiVersion } from "../core/gvk.js";
import { isJsonObject } from "../core/json.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import {
  encodeAPIGroupList,
  encodeAPIResourceList,
  groupsFromAPIGroupList,
  resourceListFromAPIResourceList,
} from "./discovery-legacy.js";
import { DEFAULT_DISCOVERY_CONCURRENCY, DiscoveryQueries } from "./discovery-queries.js";
import type {
  CachedDiscoveryInterface,
  DiscoveredResourceList,
  DiscoverySource,
  GroupsAndMaybeResources,
  ServerVersionInfo,
} from "./discovery-types.js";

/** kubectl's discovery cache lifetime: 6 hours. */
export const DEFAULT_DISCOVERY_CACHE_TTL_MS = 6 * 60 * 60 * 1000;

/** The group list file in a host's cache directory. */
const GROUPS_FILE = "servergroups.json";
/** The resource list file in a `<group>/<version>` (or `v1`) folder. */
const RESOURCES_FILE = "serverresources.json";
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;

/**
 * kubectl's default cache directory: `$KUBECACHEDIR` when set and not empty, else
 * `~/.kube/cache`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env["KUBECACHEDIR"];
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : join(homedir(), ".kube", "cache");
}

/**
 * The discovery cache directory of a server, as kubectl computes it:
 * `<cacheDir>/discovery/<host>` where `<host>` is the server URL without its `https://` or
 * `http://` scheme and with every character other than ASCII letters, digits, `_`, `/`, `.`,
 * `(` and `)` replaced by `_`: `https://127.0.0.1:18080` gives `127.0.0.1_18080`. A path in the
 * URL makes nested folders (`/` is kept), as with kubectl.
 */
export function discoveryCacheDirectory(cacheDir: string, host: string): string {
  const schemeless = host.replace(/^https:\/\//, "").replace(/^http:\/\//, "");
  const safe = schemeless.replace(/[^\w/.()]/gu, "_");
  return join(cacheDir, "discovery", safe);
}

/** Options of a {@link DiskCachedDiscovery}. */
export interface DiskCachedDiscoveryOptions {
  /** The cache root (default {@link defaultCacheDir}); files go under `discovery/<host>`. */
  readonly cacheDir?: string;
  /** How long a file is used after it was written, in ms (default 6 h, as kubectl). */
  readonly ttlMs?: number;
  /** The time source for file ages; written files get their mtime from it (default: real). */
  readonly clock?: Clock;
  /** Where unreadable or unwritable cache files are reported (default: the console). */
  readonly logger?: Logger;
  /** At most this many per-group-version reads or requests at once (default 16). */
  readonly concurrency?: number;
}

/** Whether a group or version may be used as one path segment inside the cache directory. */
function isSafeSegment(segment: string): boolean {
  return segment !== "" && segment !== "." && segment !== ".." && !/[/\\\0]/.test(segment);
}

/**
 * Discovery cached on disk, readable and writable by kubectl:
 * `<cacheDir>/discovery/<host>/servergroups.json` (an `APIGroupList` that includes the core
 * group) and `<cacheDir>/discovery/<host>/<group>/<version>/serverresources.json` (an
 * `APIResourceList`; `v1/serverresources.json` for the core group).
 *
 * - A file is used while `clock.now()` is before its mtime plus the TTL. Files are written with
 *   their mtime set to `clock.now()`, so a fake clock controls expiry.
 * - Missing, expired, unreadable or corrupt files (not JSON, or not the expected document) are
 *   ignored and replaced by a fresh answer from the delegate; cache write failures are logged
 *   and otherwise ignored. Only the delegate's errors fail a call.
 * - Files are written atomically (a temporary file renamed over the target) with mode 0600,
 *   in folders created with mode 0700 (existing folders keep their mode).
 * - {@link invalidate} makes the cache ignore every file it did not write itself since then
 *   (client-go's semantics); nothing is deleted, so other processes are unaffected.
 * - {@link fresh} is false once an answer came from a file this instance did not write since
 *   the last invalidation (a file of another process, or of an earlier run).
 * - `serverVersion` is never cached. Groups or versions that are not safe path segments are
 *   never cached either.
 */
export class DiskCachedDiscovery
  extends DiscoveryQueries
  implements CachedDiscoveryInterface, DiscoverySource
{
  /** `<cacheDir>/discovery/<host>`. */
  readonly directory: string;
  readonly #delegate: DiscoverySource;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  protected readonly queryConcurrency: number;
  /** Files this instance wrote since the last invalidation. */
  #ourFiles = new Set<string>();
  #invalidated = false;
  #fresh = true;

  /** @throws {RangeError} for a negative TTL or a `concurrency` below 1. */
  constructor(delegate: DiscoverySource, options: DiskCachedDiscoveryOptions = {}) {
    super();
    const ttlMs = options.ttlMs ?? DEFAULT_DISCOVERY_CACHE_TTL_MS;
    if (!(ttlMs >= 0)) throw new RangeError(`ttlMs must be >= 0, got ${ttlMs}`);
    const concurrency = options.concurrency ?? DEFAULT_DISCOVERY_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
    }
    this.#delegate = delegate;
    this.directory = discoveryCacheDirectory(options.cacheDir ?? defaultCacheDir(), delegate.host);
    this.#ttlMs = ttlMs;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.queryConcurrency = concurrency;
  }

  /** The delegate's server URL. */
  get host(): string {
    return this.#delegate.host;
  }

  /** Whether every answer since the last invalidation came from the server through this instance. */
  fresh(): boolean {
    return this.#fresh;
  }

  /** Ignores every file this instance did not write from now on (and invalidates a caching delegate). */
  invalidate(): void {
    this.#invalidated = true;
    this.#fresh = true;
    this.#ourFiles = new Set();
    this.#delegate.invalidate?.();
  }

  /** `GET /version` through the delegate (not cached). */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    return this.#delegate.serverVersion(signal);
  }

  /**
   * The groups from `servergroups.json` when it is usable (resources are then read per group
   * version); otherwise the delegate's answer, written to the group file and, for the resources
   * that came with it, to the resource files.
   */
  async groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources> {
    const file = join(this.directory, GROUPS_FILE);
    const cached = await this.#read(file, (doc) => {
      if (!isJsonObject(doc) || !Array.isArray(doc["groups"])) return undefined;
      return encodeAPIGroupList(groupsFromAPIGroupList(doc, file));
    });
    if (cached !== undefined) return { groups: cached, resources: new Map(), failures: new Map() };
    const live = await this.#delegate.groupsAndMaybeResources(signal);
    await this.#write(file, live.groups);
    await Promise.all(
      [...live.resources.values()].map(async (list) => {
        const target = this.#resourcesFile(list.groupVersion);
        if (target !== undefined) await this.#write(target, encodeAPIResourceList(list));
      }),
    );
    return live;
  }

  /** The groups (see {@link groupsAndMaybeResources}). */
  async serverGroups(signal?: AbortSignal): Promise<APIGroupList> {
    return (await this.groupsAndMaybeResources(signal)).groups;
  }

  /** The list from the group version's file when usable, else the delegate's (then written). */
  async serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList> {
    const file = this.#resourcesFile(groupVersion);
    if (file === undefined) {
      return this.#delegate.serverResourcesForGroupVersion(groupVersion, signal);
    }
    const cached = await this.#read(file, (doc) => {
      if (!isJsonObject(doc) || !Array.isArray(doc["resources"])) return undefined;
      if (doc["groupVersion"] !== undefined && doc["groupVersion"] !== groupVersion) {
        return undefined;
      }
      return resourceListFromAPIResourceList(doc, groupVersion, file);
    });
    if (cached !== undefined) return cached;
    const live = await this.#delegate.serverResourcesForGroupVersion(groupVersion, signal);
    await this.#write(file, encodeAPIResourceList(live));
    return live;
  }

  /** The resource file of a group version, or `undefined` when it cannot be cached safely. */
  #resourcesFile(groupVersion: string): string | undefined {
    let gv: { group: string; version: string };
    try {
      gv = parseApiVersion(groupVersion);
    } catch {
      return undefined;
    }
    if (!isSafeSegment(gv.version) || (gv.group !== "" && !isSafeSegment(gv.group))) {
      return undefined;
    }
    return gv.group === ""
      ? join(this.directory, gv.version, RESOURCES_FILE)
      : join(this.directory, gv.group, gv.version, RESOURCES_FILE);
  }

  /**
   * A cached document decoded by `decode`, or `undefined` when the file is to be ignored:
   * invalidated and not ours, missing, expired, unreadable, not JSON, or rejected by `decode`.
   */
  async #read<T>(file: string, decode: (doc: unknown) => T | undefined): Promise<T | undefined> {
    const ours = this.#ourFiles.has(file);
    if (this.#invalidated && !ours) return undefined;
    let text: string;
    try {
      const info = await stat(file);
      // Rounded: an mtime set from a millisecond clock reads back with float noise.
      if (this.#clock.now() > Math.round(info.mtimeMs) + this.#ttlMs) return undefined;
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        this.#logger.debug("discovery cache file unreadable", { file, error: String(err) });
      }
      return undefined;
    }
    let value: T | undefined;
    try {
      value = decode(JSON.parse(text));
    } catch {
      value = undefined;
    }
    if (value === undefined) {
      this.#logger.debug("discovery cache file corrupt, ignored", { file });
      return undefined;
    }
    if (!ours) this.#fresh = false;
    return value;
  }

  /** Writes `document` as JSON atomically (temp file + rename), mode 0600, mtime `clock.now()`. */
  async #write(file: string, document: object): Promise<void> {
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true, mode: DIRECTORY_MODE });
      await writeFile(temp, JSON.stringify(document), { mode: FILE_MODE, flag: "wx" });
      const seconds = this.#clock.now() / 1000;
      await utimes(temp, seconds, seconds);
      await rename(temp, file);
      this.#ourFiles.add(file);
    } catch (err) {
      this.#logger.warn("failed to write discovery cache file", { file, error: String(err) });
      await unlink(temp).catch(() => undefined);
    }
  }
}
