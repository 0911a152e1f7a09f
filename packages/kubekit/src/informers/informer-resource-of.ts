/**
 * How the dynamic and metadata factories scope a GroupVersionResource they are asked for.
 */
import type { GroupVersionResource } from "../core/gvk.js";
import { findBuiltinResource } from "../core/resource-table.js";
import type { InformerResource } from "./resource-informer.js";

/**
 * `gvr` with its scope: cluster-scoped when it is a built-in cluster-scoped resource,
 * otherwise namespaced (custom resources are assumed namespaced: the factory's namespace
 * applies to them).
 *
 * @throws {TypeError} when the version or resource is empty, or a part contains `/`.
 */
export function informerResourceOf(gvr: GroupVersionResource): InformerResource {
  for (const [name, value] of Object.entries({
    group: gvr.group,
    version: gvr.version,
    resource: gvr.resource,
  })) {
    if (value.includes("/") || (name !== "group" && value === "")) {
      throw new TypeError(`invalid ${name} ${JSON.stringify(value)} in ${JSON.stringify(gvr)}`);
    }
  }
  const info = findBuiltinResource(gvr.group, gvr.version, gvr.resource);
  return {
    group: gvr.group,
    version: gvr.version,
    resource: gvr.resource,
    namespaced: info?.namespaced ?? true,
  };
}
