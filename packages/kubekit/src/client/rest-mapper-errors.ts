/**
 * Typed failures of the RESTMapper: nothing matches (apimachinery's `NoResourceMatchError` /
 * `NoKindMatchError`), or a partial resource matches several resources equally well
 * (`AmbiguousResourceError`).
 */
import type { GroupKind, GroupVersionKind, GroupVersionResource } from "../core/gvk.js";
import { formatApiVersion } from "../core/gvk.js";
import type { PartialResource } from "./rest-mapper-types.js";

/** What a failed lookup asked for: a resource by name, or a kind. */
export type NoMatchTarget =
  | { readonly type: "resource"; readonly resource: PartialResource }
  | { readonly type: "kind"; readonly groupKind: GroupKind; readonly versions: readonly string[] };

function noMatchMessage(target: NoMatchTarget): string {
  if (target.type === "resource") {
    return `the server doesn't have a resource type ${JSON.stringify(target.resource.resource)}`;
  }
  const { groupKind, versions } = target;
  const searched = [
    ...new Set(versions.map((version) => formatApiVersion({ group: groupKind.group, version }))),
  ].sort();
  const kind = JSON.stringify(groupKind.kind);
  if (searched.length === 0) {
    return `no matches for kind ${kind} in group ${JSON.stringify(groupKind.group)}`;
  }
  if (searched.length === 1) {
    return `no matches for kind ${kind} in version ${JSON.stringify(searched[0])}`;
  }
  return `no matches for kind ${kind} in versions [${searched.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/**
 * Discovery has no resource or kind matching the lookup, even after the RESTMapper refreshed
 * it. Messages follow kubectl and apimachinery:
 * `the server doesn't have a resource type "wd"`,
 * `no matches for kind "Widget" in group "example.com"`,
 * `no matches for kind "Widget" in version "example.com/v1"`.
 */
export class NoMatchError extends Error {
  /** What was looked up. */
  readonly target: NoMatchTarget;

  constructor(target: NoMatchTarget) {
    super(noMatchMessage(target));
    this.name = "NoMatchError";
    this.target = target;
  }
}

function formatResource(gvr: GroupVersionResource): string {
  return `${gvr.resource} (${formatApiVersion(gvr)})`;
}

/**
 * A partial resource matches more than one resource in the group version that ranks first, so
 * no single answer is right (`AmbiguousResourceError` of apimachinery). `matchingResources` and
 * `matchingKinds` list every match, best first.
 */
export class AmbiguousResourceError extends Error {
  readonly partialResource: PartialResource;
  readonly matchingResources: readonly GroupVersionResource[];
  readonly matchingKinds: readonly GroupVersionKind[];

  constructor(
    partialResource: PartialResource,
    matchingResources: readonly GroupVersionResource[],
    matchingKinds: readonly GroupVersionKind[],
  ) {
    super(
      `${JSON.stringify(partialResource.resource)} matches multiple resources: ` +
        matchingResources.map(formatResource).join(", "),
    );
    this.name = "AmbiguousResourceError";
    this.partialResource = partialResource;
    this.matchingResources = matchingResources;
    this.matchingKinds = matchingKinds;
  }
}
