import { storageVersionHash } from "kubekit/apimachinery";
import { formatApiVersion, type JsonObject } from "kubekit";
import { bodyEtag } from "./etag.js";
import { parseAccept } from "../encoding/media-type.js";
import type { ServedGroup, ServedResource, ServedVersion } from "../registry/served-resource.js";

/**
 * The discovery documents of kube-apiserver
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/discovery/`): the legacy APIVersions / APIGroupList
 * / APIGroup / APIResourceList, and aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1),
 * plus the Accept negotiation that picks between them. Pure functions: the server decides which
 * groups go into which document.
 */

/** The aggregated discovery versions the server answers. */
export type AggregatedDiscoveryVersion = "v2" | "v2beta1";

/** The outcome of discovery negotiation: which document format `/api` and `/apis` answer with. */
export type DiscoveryFormat =
  | {
      readonly kind: "aggregated";
      readonly version: AggregatedDiscoveryVersion;
      readonly contentType: string;
    }
  | { readonly kind: "legacy" };

const DISCOVERY_GROUP = "apidiscovery.k8s.io";
const DISCOVERY_KIND = "APIGroupDiscoveryList";

/**
 * `GET /api`: the APIVersions document. It has no `apiVersion` field (a quirk of the real
 * server that clients tolerate) and lists the one core version, `v1`.
 */
export function apiVersionsDocument(serverAddress: string): JsonObject {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

/**
 * `GET /apis`: the APIGroupList of every named group in `groups` (the core group, name `""`,
 * is skipped; so are groups without versions). Versions keep their preference order and the
 * first one is the preferred version.
 */
export function apiGroupListDocument(groups: readonly ServedGroup[]): JsonObject {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.filter((g) => g.name !== "" && g.versions.length > 0).map(groupEntry),
  };
}

/** `GET /apis/{group}`: one APIGroup. A group without versions gets no `preferredVersion`. */
export function apiGroupDocument(group: ServedGroup): JsonObject {
  return { kind: "APIGroup", apiVersion: "v1", ...groupEntry(group) };
}

/**
 * `GET /api/v1` or `GET /apis/{group}/{version}`: the APIResourceList. Resources are sorted by
 * plural name, each followed by its subresources (`deployments/scale`, sorted by name), like the
 * real server's output.
 *
 * - `singularName` is always present and `""` for subresources.
 * - A subresource names its own `group`/`version` only when they differ from its parent's
 *   (`deployments/scale` → autoscaling/v1 `Scale`).
 * - `shortNames` and `categories` appear only when non-empty.
 * - `storageVersionHash` is given for main resources that are stored, recognised by the
 *   `watch` verb (create-only reviews, `bindings` and `componentstatuses` have none, as on a
 *   real server). It is computed from the resource's own version: the server does not track
 *   a separate storage version, so a multi-version CRD gets a different hash per version,
 *   where kube-apiserver would give every version the storage version's hash.
 */
export function apiResourceListDocument(
  groupVersion: string,
  resources: readonly ServedResource[],
): JsonObject {
  const entries: JsonObject[] = [];
  for (const r of sortedByPlural(resources)) {
    const main: JsonObject = {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
    };
    if (r.shortNames.length > 0) main["shortNames"] = [...r.shortNames];
    if (r.categories.length > 0) main["categories"] = [...r.categories];
    if (r.verbs.includes("watch"))
      main["storageVersionHash"] = storageVersionHash(r.group, r.version, r.kind);
    entries.push(main);
    for (const sub of sortedByName(r.subresources)) {
      const entry: JsonObject = {
        name: `${r.plural}/${sub.name}`,
        singularName: "",
        namespaced: r.namespaced,
      };
      if (sub.group !== r.group || sub.version !== r.version) {
        entry["group"] = sub.group;
        entry["version"] = sub.version;
      }
      entry["kind"] = sub.kind;
      entry["verbs"] = [...sub.verbs];
      entries.push(entry);
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources: entries };
}

/**
 * The aggregated discovery document (APIGroupDiscoveryList) for exactly `groups`: pass the
 * core group alone for `/api` (its item has no `metadata.name`) and the named groups for
 * `/apis`. Every version is `freshness: Current`, in preference order.
 *
 * `responseKind` of a built-in resource, and of a built-in subresource returning the parent's
 * kind, carries `group`/`version` `""` when they equal the containing group version; custom
 * resources (and subresources returning another group's kind, like `Scale`) carry them
 * filled, as kube-apiserver does. There is no `storageVersionHash` in this format.
 */
export function aggregatedDiscoveryDocument(
  groups: readonly ServedGroup[],
  version: AggregatedDiscoveryVersion,
): JsonObject {
  return {
    kind: DISCOVERY_KIND,
    apiVersion: `${DISCOVERY_GROUP}/${version}`,
    metadata: {},
    items: groups
      .filter((g) => g.versions.length > 0)
      .map((g): JsonObject => {
        const metadata: JsonObject = g.name === "" ? {} : { name: g.name };
        return { metadata, versions: g.versions.map((v) => aggregatedVersion(g.name, v)) };
      }),
  };
}

/**
 * Chooses the discovery format from an `Accept` header, like kube-apiserver: clauses are tried
 * by quality, then in order; the first acceptable one wins.
 *
 * - `application/json;g=apidiscovery.k8s.io;v=v2|v2beta1;as=APIGroupDiscoveryList` (parameters
 *   in any order, with no `profile` or `profile=nopeer`) selects the aggregated document;
 * - plain `application/json`, `application/*` or the full wildcard select the legacy document;
 * - anything else (protobuf, Table, unknown versions) is skipped.
 *
 * When nothing is acceptable, or the header is absent, the answer is legacy: discovery never
 * answers 406 (kubectl has no fallback from it). The aggregated Content-Type is exactly
 * `application/json;g=apidiscovery.k8s.io;v=<version>;as=APIGroupDiscoveryList`, which
 * client-go requires to recognise the format.
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat {
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    const { type, subtype, params } = range;
    const hasDiscoveryParams =
      params["as"] !== undefined || params["g"] !== undefined || params["v"] !== undefined;
    if (type === "application" && subtype === "json" && hasDiscoveryParams) {
      const v = params["v"];
      const profile = params["profile"];
      if (
        params["g"] === DISCOVERY_GROUP &&
        params["as"] === DISCOVERY_KIND &&
        (v === "v2" || v === "v2beta1") &&
        (profile === undefined || profile === "nopeer")
      ) {
        return { kind: "aggregated", version: v, contentType: aggregatedDiscoveryContentType(v) };
      }
      continue;
    }
    if ((type === "application" && subtype === "json") || (type === "*" && subtype === "*"))
      return { kind: "legacy" };
    if (type === "application" && subtype === "*") return { kind: "legacy" };
  }
  return { kind: "legacy" };
}

/** The exact Content-Type of an aggregated discovery response. */
export function aggregatedDiscoveryContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`;
}

/**
 * The `ETag` of a discovery response body (a quoted hex hash); equal bodies give equal tags,
 * so an `If-None-Match` carrying it can be answered 304 (see `matchesIfNoneMatch`).
 */
export function discoveryEtag(body: string): string {
  return bodyEtag(body);
}

function groupEntry(group: ServedGroup): JsonObject {
  const versions = group.versions.map((v) => versionEntry(group.name, v.version));
  const entry: JsonObject = { name: group.name, versions };
  const preferred = versions[0];
  if (preferred) entry["preferredVersion"] = { ...preferred };
  return entry;
}

function versionEntry(group: string, version: string): JsonObject {
  return { groupVersion: formatApiVersion({ group, version }), version };
}

function aggregatedVersion(group: string, served: ServedVersion): JsonObject {
  return {
    version: served.version,
    resources: sortedByPlural(served.resources).map((r) =>
      aggregatedResource(group, served.version, r),
    ),
    freshness: "Current",
  };
}

function aggregatedResource(group: string, version: string, r: ServedResource): JsonObject {
  const entry: JsonObject = {
    resource: r.plural,
    responseKind: responseKind(group, version, r.group, r.version, r.kind, r.custom !== undefined),
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: [...r.verbs],
  };
  if (r.shortNames.length > 0) entry["shortNames"] = [...r.shortNames];
  if (r.categories.length > 0) entry["categories"] = [...r.categories];
  if (r.subresources.length > 0) {
    entry["subresources"] = sortedByName(r.subresources).map((sub) => ({
      subresource: sub.name,
      responseKind: responseKind(
        group,
        version,
        sub.group,
        sub.version,
        sub.kind,
        r.custom !== undefined,
      ),
      verbs: [...sub.verbs],
    }));
  }
  return entry;
}

function responseKind(
  containingGroup: string,
  containingVersion: string,
  group: string,
  version: string,
  kind: string,
  custom: boolean,
): JsonObject {
  if (!custom && group === containingGroup && version === containingVersion)
    return { group: "", version: "", kind };
  return { group, version, kind };
}

function sortedByPlural(resources: readonly ServedResource[]): ServedResource[] {
  return [...resources].sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
}

function sortedByName<T extends { readonly name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
