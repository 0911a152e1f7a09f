/**
 * The string key of a resource in an informer factory: `group/version/resource`.
 */
import type { GroupVersionResource } from "../core/gvk.js";

/**
 * `group/version/resource`, the key under which an informer factory files an informer, takes
 * per-resource resync periods (`customResyncMs`) and reports `waitForCacheSync` results:
 * `apps/v1/deployments`, and `/v1/pods` for the core group (whose group is `""`).
 */
export function gvrKey(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/**
 * Whether `key` has the shape {@link gvrKey} produces: exactly three `/`-separated parts with
 * a non-empty version and resource (the group may be empty). `v1/pods` does not: the core
 * group's key is `/v1/pods`.
 */
export function isGvrKey(key: string): boolean {
  const parts = key.split("/");
  return parts.length === 3 && parts[1] !== "" && parts[2] !== "";
}
