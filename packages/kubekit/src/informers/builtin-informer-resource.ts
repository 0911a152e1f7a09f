/**
 * How the typed factories (eager and lazy) find a built-in resource asked for by
 * GroupVersionResource (`forResource`).
 */
import type { GroupVersionResource } from "../core/gvk.js";
import { findBuiltinResource } from "../core/resource-table.js";
import { gvrKey } from "./gvr-key.js";
import type { InformerResource } from "./resource-informer.js";

/**
 * The built-in resource `gvr` with its scope, as the typed accessor of it names it (so that
 * `forResource` and the accessor share one informer).
 *
 * @throws {RangeError} when `gvr` is not a built-in resource that serves list and watch.
 */
export function builtinInformerResource(gvr: GroupVersionResource): InformerResource {
  const info = findBuiltinResource(gvr.group, gvr.version, gvr.resource);
  if (info === undefined || !info.verbs.includes("list") || !info.verbs.includes("watch")) {
    throw new RangeError(
      `no informer for ${gvrKey(gvr)}: not a built-in resource that serves list and watch`,
    );
  }
  return {
    group: info.group,
    version: info.version,
    resource: info.plural,
    namespaced: info.namespaced,
  };
}
