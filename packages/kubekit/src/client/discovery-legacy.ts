/**
 * The legacy (unaggregated) discovery documents
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/discovery/`): `APIVersions` from `/api`,
 * `APIGroupList` from `/apis`, `APIResourceList` from `/api/v1` and `/apis/{group}/{version}`.
 * Decoding into the typed discovery model, and encoding back into the wire form (the form kubectl's
 * disk cache stores).
 */
import type {
  APIGroup,
  APIGroupList,
  APIResource,
  APIResourceList,
  GroupVersionForDiscovery,
} from "kubernetes-types/meta/v1.js";
import type { JsonObject } from "../core/json.js";
import { isJsonObject } from "../core/json.js";
import { formatApiVersion, parseApiVersion } from "../core/gvk.js";
import { InvalidDiscoveryDocumentError } from "./discovery-errors.js";
import {
  objectArrayField,
  objectField,
  optionalStringField,
  stringArrayField,
  stringField,
} from "./discovery-json.js";
import type {
  DiscoveredResource,
  DiscoveredResourceList,
  DiscoveredSubresource,
} from "./discovery-types.js";

function requireObject(document: unknown, path: string, kind: string): JsonObject {
  if (!isJsonObject(document)) {
    throw new InvalidDiscoveryDocumentError(path, `an ${kind} must be an object`);
  }
  return document;
}

/**
 * The core group from an `APIVersions` document: name `""`, one version entry per listed
 * version (`groupVersion` equal to the version), the first preferred. `undefined` when it lists
 * no version.
 *
 * @throws {InvalidDiscoveryDocumentError} when `document` is not a JSON object.
 */
export function coreGroupFromAPIVersions(document: unknown, path: string): APIGroup | undefined {
  const object = requireObject(document, path, "APIVersions");
  const versions = stringArrayField(object, "versions")
    .filter((v) => v !== "")
    .map((version) => ({ groupVersion: version, version }));
  const preferred = versions[0];
  return preferred === undefined
    ? undefined
    : { name: "", versions, preferredVersion: { ...preferred } };
}

function decodeGroup(entry: JsonObject): APIGroup | undefined {
  const name = stringField(entry, "name");
  const versions: GroupVersionForDiscovery[] = [];
  for (const v of objectArrayField(entry, "versions")) {
    const version = stringField(v, "version");
    if (version === "") continue;
    versions.push({ groupVersion: formatApiVersion({ group: name, version }), version });
  }
  const first = versions[0];
  if (first === undefined) return undefined;
  const preferredEntry = objectField(entry, "preferredVersion");
  const preferredVersion = preferredEntry ? stringField(preferredEntry, "version") : "";
  const preferred = versions.find((v) => v.version === preferredVersion) ?? first;
  return { name, versions, preferredVersion: { ...preferred } };
}

/**
 * The groups of an `APIGroupList`, in document order. `groupVersion` is recomputed from the
 * group name and version; a `preferredVersion` that is not among the versions is replaced by
 * the first version; a group with no version is dropped. A missing `groups` field reads as no
 * groups (an aggregated body under a plain JSON Content-Type reads this way, as in client-go).
 *
 * @throws {InvalidDiscoveryDocumentError} when `document` is not a JSON object.
 */
export function groupsFromAPIGroupList(document: unknown, path: string): APIGroup[] {
  const object = requireObject(document, path, "APIGroupList");
  const groups: APIGroup[] = [];
  for (const entry of objectArrayField(object, "groups")) {
    const group = decodeGroup(entry);
    if (group !== undefined) groups.push(group);
  }
  return groups;
}

/**
 * Decodes an `APIResourceList` for `groupVersion` (the requested one is authoritative).
 * Entries named `parent/sub` become subresources of the parent entry of the same list; a
 * subresource whose parent is not listed is dropped. An entry's `group`/`version` default to the
 * list's. A missing `resources` field reads as no resources.
 *
 * @throws {InvalidDiscoveryDocumentError} when `document` is not a JSON object.
 * @throws {Error} when `groupVersion` is not a valid `v1` / `group/version` string.
 */
export function resourceListFromAPIResourceList(
  document: unknown,
  groupVersion: string,
  path: string,
): DiscoveredResourceList {
  const object = requireObject(document, path, "APIResourceList");
  const { group, version } = parseApiVersion(groupVersion);
  const entries = objectArrayField(object, "resources");
  const mains = new Map<string, { resource: DiscoveredResource; subs: DiscoveredSubresource[] }>();
  const order: string[] = [];
  for (const entry of entries) {
    const name = stringField(entry, "name");
    if (name === "" || name.includes("/") || mains.has(name)) continue;
    const subs: DiscoveredSubresource[] = [];
    const storageVersionHash = optionalStringField(entry, "storageVersionHash");
    const resource: DiscoveredResource = {
      name,
      singularName: stringField(entry, "singularName"),
      namespaced: entry["namespaced"] === true,
      group: optionalStringField(entry, "group") ?? group,
      version: optionalStringField(entry, "version") ?? version,
      kind: stringField(entry, "kind"),
      verbs: stringArrayField(entry, "verbs"),
      shortNames: stringArrayField(entry, "shortNames"),
      categories: stringArrayField(entry, "categories"),
      subresources: subs,
      ...(storageVersionHash !== undefined ? { storageVersionHash } : {}),
    };
    mains.set(name, { resource, subs });
    order.push(name);
  }
  for (const entry of entries) {
    const name = stringField(entry, "name");
    const slash = name.indexOf("/");
    if (slash <= 0) continue;
    const parent = mains.get(name.slice(0, slash));
    if (parent === undefined) continue;
    parent.subs.push({
      name: name.slice(slash + 1),
      group: optionalStringField(entry, "group") ?? group,
      version: optionalStringField(entry, "version") ?? version,
      kind: stringField(entry, "kind"),
      verbs: stringArrayField(entry, "verbs"),
    });
  }
  const resources = order.flatMap((name) => {
    const main = mains.get(name);
    return main === undefined ? [] : [main.resource];
  });
  return { groupVersion, group, version, resources };
}

/** The wire `APIGroupList` of `groups` (as `/apis` serves it, here with the core group too). */
export function encodeAPIGroupList(groups: readonly APIGroup[]): APIGroupList {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.map((g) => ({
      name: g.name,
      versions: g.versions.map((v) => ({ groupVersion: v.groupVersion, version: v.version })),
      ...(g.preferredVersion !== undefined
        ? {
            preferredVersion: {
              groupVersion: g.preferredVersion.groupVersion,
              version: g.preferredVersion.version,
            },
          }
        : {}),
    })),
  };
}

/**
 * The wire `APIResourceList` of a list, as the server serves it: each resource followed by its
 * subresources as `parent/sub` entries with an empty `singularName`; `group`/`version` only where
 * they differ from the list's; empty `shortNames`/`categories` left out. Decoding the result
 * with {@link resourceListFromAPIResourceList} gives back an equal list.
 */
export function encodeAPIResourceList(list: DiscoveredResourceList): APIResourceList {
  const resources: APIResource[] = [];
  const differs = (g: string, v: string): boolean => g !== list.group || v !== list.version;
  for (const r of list.resources) {
    resources.push({
      name: r.name,
      singularName: r.singularName,
      namespaced: r.namespaced,
      ...(differs(r.group, r.version) ? { group: r.group, version: r.version } : {}),
      kind: r.kind,
      verbs: [...r.verbs],
      ...(r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories.length > 0 ? { categories: [...r.categories] } : {}),
      ...(r.storageVersionHash !== undefined ? { storageVersionHash: r.storageVersionHash } : {}),
    });
    for (const sub of r.subresources) {
      resources.push({
        name: `${r.name}/${sub.name}`,
        singularName: "",
        namespaced: r.namespaced,
        ...(differs(sub.group, sub.version) ? { group: sub.group, version: sub.version } : {}),
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: list.groupVersion, resources };
}
