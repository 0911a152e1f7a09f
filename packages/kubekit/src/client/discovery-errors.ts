/**
 * Typed failures of API discovery: some group versions could not be read, a group version is
 * stale, a discovery document is malformed.
 */
import type { APIGroup } from "kubernetes-types/meta/v1.js";
import type { DiscoveredResourceList } from "./discovery-types.js";

/**
 * Some group versions could not be discovered (client-go's `ErrGroupDiscoveryFailed`). The
 * call that throws it still did all the work it could: `groups` and `resources` hold what did
 * load, so a caller can carry on with partial results, as kubectl does.
 *
 * The message lists each failed group version with its error, sorted:
 * `unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: <error>`.
 */
export class GroupDiscoveryFailedError extends Error {
  /** The error of each group version that failed, keyed by `v1` / `group/version`. */
  readonly failures: ReadonlyMap<string, Error>;
  /** The groups that were discovered. */
  readonly groups: readonly APIGroup[];
  /** The resource lists that did load (for the preferred-resources calls: the preferred lists). */
  readonly resources: readonly DiscoveredResourceList[];

  constructor(
    failures: ReadonlyMap<string, Error>,
    groups: readonly APIGroup[],
    resources: readonly DiscoveredResourceList[],
  ) {
    const details = [...failures.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([gv, err]) => `${gv}: ${err.message}`)
      .join(", ");
    super(`unable to retrieve the complete list of server APIs: ${details}`);
    this.name = "GroupDiscoveryFailedError";
    this.failures = failures;
    this.groups = groups;
    this.resources = resources;
  }
}

/**
 * Aggregated discovery marked a group version `Stale`: its API server (an aggregated one) did
 * not answer discovery recently, so its resources are unknown. Such group versions are left
 * out of the group list and reported through {@link GroupDiscoveryFailedError}.
 */
export class StaleGroupVersionError extends Error {
  /** `group/version` (or `v1`). */
  readonly groupVersion: string;

  constructor(groupVersion: string) {
    super(`stale GroupVersion discovery: ${groupVersion}`);
    this.name = "StaleGroupVersionError";
    this.groupVersion = groupVersion;
  }
}

/** A discovery response that is not a document of the expected shape (not a JSON object, ...). */
export class InvalidDiscoveryDocumentError extends Error {
  /** The request path the document came from, e.g. `/apis` or `/apis/apps/v1`. */
  readonly path: string;

  constructor(path: string, problem: string) {
    super(`invalid discovery document from ${path}: ${problem}`);
    this.name = "InvalidDiscoveryDocumentError";
    this.path = path;
  }
}
