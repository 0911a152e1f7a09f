/**
 * Group, version, kind and resource identifiers (k8s.io/apimachinery/pkg/runtime/schema).
 * The core ("legacy") group is the empty string.
 */

/** An API group and version; `group` is `""` for the core group. */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** A type identifier: group, version and kind (e.g. `apps`, `v1`, `Deployment`). */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A resource identifier: group, version and plural resource name (e.g. `apps`, `v1`, `deployments`). */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** A resource without a version, as kube-apiserver names it in error messages. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind without a version, as kube-apiserver names it in validation errors. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/**
 * Parses an `apiVersion` string: `"v1"` is the core group, `"apps/v1"` the `apps` group.
 *
 * Stricter than apimachinery's ParseGroupVersion, which maps `""` and `"/"` to an empty
 * GroupVersion: here an empty string, an empty version, an empty group before a `/`, or
 * more than one `/` throws an `Error` naming the input.
 */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const parts = apiVersion.split("/");
  if (parts.length > 2) throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  if (parts.length === 1) {
    if (apiVersion === "") throw new Error("invalid apiVersion: empty string");
    return { group: "", version: apiVersion };
  }
  const [group = "", version = ""] = parts;
  if (group === "") {
    throw new Error(`invalid apiVersion ${JSON.stringify(apiVersion)}: empty group before "/"`);
  }
  if (version === "") {
    throw new Error(`invalid apiVersion ${JSON.stringify(apiVersion)}: empty version after "/"`);
  }
  return { group, version };
}

/** Formats a group and version as an `apiVersion`: `version` for the core group, `group/version` otherwise. */
export function formatApiVersion(gv: GroupVersion): string {
  return gv.group === "" ? gv.version : `${gv.group}/${gv.version}`;
}

/**
 * The GroupVersionKind of an object from its `apiVersion` and `kind`, or `undefined` when
 * either is missing or empty or the `apiVersion` does not parse. Items of built-in lists
 * carry neither field, so `undefined` is normal for them.
 */
export function gvkFromObject(obj: {
  apiVersion?: string;
  kind?: string;
}): GroupVersionKind | undefined {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || kind === "") return undefined;
  let gv: GroupVersion;
  try {
    gv = parseApiVersion(apiVersion);
  } catch {
    return undefined;
  }
  return { group: gv.group, version: gv.version, kind };
}

/**
 * The qualified resource as kube-apiserver writes it in messages: `pods` for the core
 * group, `deployments.apps`, `foos.example.com`.
 */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** The qualified kind as kube-apiserver writes it in messages: `Pod`, `Deployment.apps`. */
export function qualifiedKind(gk: GroupKind): string {
  return gk.group === "" ? gk.kind : `${gk.kind}.${gk.group}`;
}
