/**
 * The vocabulary of the RESTMapper (apimachinery's `meta.RESTMapper`): partially specified
 * resources, scopes and the mapping between a kind and the resource that serves it.
 */
import type { GroupVersionKind, GroupVersionResource } from "../core/gvk.js";

/**
 * A resource as a user names it: the plural (`deployments`), the singular (`deployment`) or a
 * short name (`deploy`), case-insensitive, optionally narrowed to a group and/or version.
 * An absent or empty `group` means any group (as in client-go, so the core group cannot be
 * singled out by `""`); an absent or empty `version` means any version.
 */
export interface PartialResource {
  readonly resource: string;
  readonly group?: string;
  readonly version?: string;
}

/** Where objects of a resource live: in a namespace, or at the cluster level (`root`). */
export type RESTScope = "namespace" | "root";

/** How objects of one kind are served: the resource, the exact kind and the scope. */
export interface RESTMapping {
  readonly resource: GroupVersionResource;
  readonly gvk: GroupVersionKind;
  readonly scope: RESTScope;
}
