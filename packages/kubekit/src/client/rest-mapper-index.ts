/**
 * `RESTMapperIndex`: the pure lookup tables of the RESTMapper, built from one discovery
 * snapshot (apimachinery's `PriorityRESTMapper` over per-group-version `DefaultRESTMapper`s,
 * with kubectl's short-name expansion and category expansion).
 */
import type { APIGroup } from "kubernetes-types/meta/v1.js";
import type {
  GroupKind,
  GroupResource,
  GroupVersionKind,
  GroupVersionResource,
} from "../core/gvk.js";
import type { DiscoveredResourceList } from "./discovery-types.js";
import { AmbiguousResourceError, NoMatchError } from "./rest-mapper-errors.js";
import type { PartialResource, RESTMapping, RESTScope } from "./rest-mapper-types.js";

/** One main resource of one group version, with its names normalised for matching. */
interface MappingEntry {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /** Lower-cased; the lower-cased kind when discovery gave no singular name. */
  readonly singular: string;
  /** Lower-cased. */
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly scope: RESTScope;
}

/** The winner of a resource lookup. */
export interface ResourceMatch {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /**
   * Other resources (of lower-ranked groups) the partial resource matched by short name; kubectl
   * warns about them (`short name "x" could also match lower priority resource y`).
   */
  readonly shadowedShortNameMatches: readonly GroupResource[];
}

function sameGroupVersion(
  a: { group: string; version: string },
  b: { group: string; version: string },
): boolean {
  return a.group === b.group && a.version === b.version;
}

function gvrKey(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/**
 * Lookup tables over the main resources of a discovery snapshot, ranked: groups in discovery
 * order (the core group first), within a group the preferred version first, then the other
 * versions in discovery order, within a version the server's order. Subresources are not
 * mapped; resources without a kind are skipped.
 *
 * Immutable; every lookup is synchronous and throws {@link NoMatchError} or
 * {@link AmbiguousResourceError}.
 */
export class RESTMapperIndex {
  readonly #entries: readonly MappingEntry[];

  private constructor(entries: readonly MappingEntry[]) {
    this.#entries = entries;
  }

  /** Builds the index of `groups` and the resource `lists` discovered for their versions. */
  static fromDiscovery(
    groups: readonly APIGroup[],
    lists: readonly DiscoveredResourceList[],
  ): RESTMapperIndex {
    const byGroupVersion = new Map(lists.map((l) => [l.groupVersion, l]));
    const entries: MappingEntry[] = [];
    for (const group of groups) {
      const preferred = group.preferredVersion?.version;
      const versions = [
        ...group.versions.filter((v) => v.version === preferred),
        ...group.versions.filter((v) => v.version !== preferred),
      ];
      for (const v of versions) {
        const list = byGroupVersion.get(v.groupVersion);
        if (list === undefined) continue;
        for (const r of list.resources) {
          if (r.kind === "" || r.name === "") continue;
          entries.push({
            resource: { group: group.name, version: v.version, resource: r.name },
            kind: { group: group.name, version: v.version, kind: r.kind },
            singular: (r.singularName !== "" ? r.singularName : r.kind).toLowerCase(),
            shortNames: r.shortNames.map((s) => s.toLowerCase()),
            categories: r.categories,
            scope: r.namespaced ? "namespace" : "root",
          });
        }
      }
    }
    return new RESTMapperIndex(entries);
  }

  /**
   * Every resource `partial` matches, best first, without duplicates. Plural and singular
   * names are tried first; only when none matches are short names tried (kubectl's order).
   * Names compare case-insensitively; group and version exactly.
   *
   * @throws {NoMatchError} when nothing matches.
   */
  resourcesFor(partial: PartialResource): GroupVersionResource[] {
    return this.#matches(partial).map((e) => e.resource);
  }

  /** The kinds of {@link resourcesFor}, best first, without duplicates. */
  kindsFor(partial: PartialResource): GroupVersionKind[] {
    const seen = new Set<string>();
    const kinds: GroupVersionKind[] = [];
    for (const e of this.#matches(partial)) {
      const key = `${e.kind.group}/${e.kind.version}/${e.kind.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      kinds.push(e.kind);
    }
    return kinds;
  }

  /**
   * The best match of `partial`: the first of {@link resourcesFor}. Matches in lower-ranked
   * groups or versions lose silently (`events` is the core group's, not events.k8s.io's).
   *
   * @throws {NoMatchError} when nothing matches.
   * @throws {AmbiguousResourceError} when the best-ranked group version holds more than one
   *   matching resource.
   */
  resourceFor(partial: PartialResource): ResourceMatch {
    const matches = this.#matches(partial);
    const [best] = matches;
    if (best === undefined) throw new NoMatchError({ type: "resource", resource: partial });
    const rivals = matches.filter((m) => m !== best && sameGroupVersion(m.resource, best.resource));
    if (rivals.length > 0) {
      throw new AmbiguousResourceError(
        partial,
        matches.map((m) => m.resource),
        matches.map((m) => m.kind),
      );
    }
    const name = partial.resource.toLowerCase();
    const byShortName = best.resource.resource !== name && best.singular !== name;
    const shadowed: GroupResource[] = [];
    if (byShortName) {
      for (const m of matches) {
        const gr = { group: m.resource.group, resource: m.resource.resource };
        const same = gr.group === best.resource.group && gr.resource === best.resource.resource;
        if (!same && !shadowed.some((s) => s.group === gr.group && s.resource === gr.resource)) {
          shadowed.push(gr);
        }
      }
    }
    return { resource: best.resource, kind: best.kind, shadowedShortNameMatches: shadowed };
  }

  /**
   * The mappings of a kind (exact, or given in lower case), best first. With `versions`, the
   * first listed version that serves the kind is the only answer (apimachinery's rule); empty
   * strings in `versions` are ignored.
   *
   * @throws {NoMatchError} when no (listed) version serves the kind.
   */
  restMappings(groupKind: GroupKind, versions: readonly string[] = []): RESTMapping[] {
    const wanted = versions.filter((v) => v !== "");
    const seen = new Set<string>();
    const all: RESTMapping[] = [];
    for (const e of this.#entries) {
      if (e.kind.group !== groupKind.group) continue;
      if (e.kind.kind !== groupKind.kind && e.kind.kind.toLowerCase() !== groupKind.kind) continue;
      if (seen.has(e.kind.version)) continue;
      seen.add(e.kind.version);
      all.push({ resource: e.resource, gvk: e.kind, scope: e.scope });
    }
    let result = all;
    if (wanted.length > 0) {
      const first = wanted
        .map((version) => all.find((m) => m.gvk.version === version))
        .find((m) => m !== undefined);
      result = first === undefined ? [] : [first];
    }
    if (result.length === 0) {
      throw new NoMatchError({ type: "kind", groupKind, versions: wanted });
    }
    return result;
  }

  /**
   * The group resources in a category (e.g. `all`), in rank order without duplicates; `[]`
   * for a category no resource declares.
   */
  expandCategory(category: string): GroupResource[] {
    const result: GroupResource[] = [];
    for (const e of this.#entries) {
      if (!e.categories.includes(category)) continue;
      const { group, resource } = e.resource;
      if (!result.some((r) => r.group === group && r.resource === resource)) {
        result.push({ group, resource });
      }
    }
    return result;
  }

  #matches(partial: PartialResource): MappingEntry[] {
    const name = partial.resource.toLowerCase();
    const group = partial.group ?? "";
    const version = partial.version ?? "";
    const candidates = this.#entries.filter(
      (e) =>
        (group === "" || e.resource.group === group) &&
        (version === "" || e.resource.version === version),
    );
    let matches = candidates.filter((e) => e.resource.resource === name || e.singular === name);
    if (matches.length === 0) matches = candidates.filter((e) => e.shortNames.includes(name));
    const seen = new Set<string>();
    const unique = matches.filter((e) => {
      const key = gvrKey(e.resource);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (unique.length === 0) throw new NoMatchError({ type: "resource", resource: partial });
    return unique;
  }
}
