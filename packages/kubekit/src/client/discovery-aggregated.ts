/**
 * Conversion of aggregated discovery documents (`APIGroupDiscoveryList` of
 * `apidiscovery.k8s.io` v2 / v2beta1, KEP-3352 aggregated discovery) into the typed discovery
 * model shared with the legacy documents.
 */
import type { APIGroup, GroupVersionForDiscovery } from "kubernetes-types/meta/v1.js";
import type { JsonObject } from "../core/json.js";
import { isJsonObject } from "../core/json.js";
import { formatApiVersion } from "../core/gvk.js";
import { InvalidDiscoveryDocumentError, StaleGroupVersionError } from "./discovery-errors.js";
import { objectArrayField, objectField, stringArrayField, stringField } from "./discovery-json.js";
import type {
  DiscoveredResource,
  DiscoveredResourceList,
  DiscoveredSubresource,
} from "./discovery-types.js";

/** The content of one aggregated discovery document, in the typed model. */
export interface AggregatedDiscovery {
  /** The groups in document order, each with its non-stale versions in preference order. */
  readonly groups: APIGroup[];
  /** The resources of every non-stale group version, keyed by `v1` / `group/version`. */
  readonly resources: Map<string, DiscoveredResourceList>;
  /** A {@link StaleGroupVersionError} per stale group version. */
  readonly failures: Map<string, Error>;
}

/** The group, version and kind a `responseKind` names, `undefined` when it is missing. */
function responseKindOf(
  entry: JsonObject,
  group: string,
  version: string,
): { group: string; version: string; kind: string } | undefined {
  const responseKind = objectField(entry, "responseKind");
  if (responseKind === undefined) return undefined;
  const kind = stringField(responseKind, "kind");
  const kindVersion = stringField(responseKind, "version");
  // Built-in resources send group and version "" when they equal the containing group version.
  if (kindVersion === "") return { group, version, kind };
  return { group: stringField(responseKind, "group"), version: kindVersion, kind };
}

function convertSubresource(
  entry: JsonObject,
  group: string,
  version: string,
): DiscoveredSubresource | undefined {
  const target = responseKindOf(entry, group, version);
  if (target === undefined) return undefined;
  return {
    name: stringField(entry, "subresource"),
    ...target,
    verbs: stringArrayField(entry, "verbs"),
  };
}

function convertResource(
  entry: JsonObject,
  group: string,
  version: string,
): DiscoveredResource | undefined {
  const target = responseKindOf(entry, group, version);
  if (target === undefined) return undefined;
  const subresources: DiscoveredSubresource[] = [];
  for (const sub of objectArrayField(entry, "subresources")) {
    const converted = convertSubresource(sub, group, version);
    if (converted !== undefined) subresources.push(converted);
  }
  return {
    name: stringField(entry, "resource"),
    singularName: stringField(entry, "singularResource"),
    namespaced: stringField(entry, "scope") === "Namespaced",
    ...target,
    verbs: stringArrayField(entry, "verbs"),
    shortNames: stringArrayField(entry, "shortNames"),
    categories: stringArrayField(entry, "categories"),
    subresources,
  };
}

/**
 * Converts an `APIGroupDiscoveryList` (from `/api`, whose one item is the core group with no
 * name, or from `/apis`) into groups, per-group-version resource lists and stale failures.
 *
 * - Versions keep their order; the first non-stale one is the group's `preferredVersion`.
 * - A version with `freshness: Stale` is left out of the group and reported as a
 *   {@link StaleGroupVersionError}; a group left with no version is dropped.
 * - `responseKind` group/version `""` mean the containing group version.
 * - A resource or subresource without `responseKind` is dropped (a resource together with its
 *   subresources), since its kind is unknown.
 * - `scope` is namespaced only for `Namespaced`.
 *
 * @param path the request path, for error messages.
 * @throws {InvalidDiscoveryDocumentError} when `document` is not a JSON object.
 */
export function convertAggregatedDiscovery(document: unknown, path: string): AggregatedDiscovery {
  if (!isJsonObject(document)) {
    throw new InvalidDiscoveryDocumentError(path, "an APIGroupDiscoveryList must be an object");
  }
  const result: AggregatedDiscovery = { groups: [], resources: new Map(), failures: new Map() };
  for (const item of objectArrayField(document, "items")) {
    const metadata = objectField(item, "metadata");
    const name = metadata === undefined ? "" : stringField(metadata, "name");
    const versions: GroupVersionForDiscovery[] = [];
    for (const versionEntry of objectArrayField(item, "versions")) {
      const version = stringField(versionEntry, "version");
      if (version === "") continue;
      const groupVersion = formatApiVersion({ group: name, version });
      if (stringField(versionEntry, "freshness") === "Stale") {
        result.failures.set(groupVersion, new StaleGroupVersionError(groupVersion));
        continue;
      }
      versions.push({ groupVersion, version });
      const resources: DiscoveredResource[] = [];
      for (const resourceEntry of objectArrayField(versionEntry, "resources")) {
        const converted = convertResource(resourceEntry, name, version);
        if (converted !== undefined) resources.push(converted);
      }
      result.resources.set(groupVersion, { groupVersion, group: name, version, resources });
    }
    const preferred = versions[0];
    if (preferred === undefined) continue;
    result.groups.push({ name, versions, preferredVersion: { ...preferred } });
  }
  return result;
}
