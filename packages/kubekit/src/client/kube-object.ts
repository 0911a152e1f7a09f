/**
 * The object shapes the clients work with: unstructured objects and lists (the dynamic
 * client's), the metadata-only forms (the metadata client's), the constraints every typed
 * object and list meets, and apply configurations.
 */
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";

export type { ListMeta, ObjectMeta };

/**
 * What every API object the clients handle has: optional `apiVersion`, `kind` and
 * `metadata` (the types of `kubernetes-types` and {@link KubeObject} all satisfy it).
 */
export interface ObjectWithMetadata {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/**
 * What every list the clients handle has: the items and optional list metadata (the
 * resourceVersion of the list and, for a page, the continue token). `items` is optional
 * because a few kubernetes-types lists declare it so; servers always send it.
 */
export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items?: T[];
}

/**
 * An unstructured object, as the dynamic client reads and writes it: the wire JSON with
 * `apiVersion`, `kind` and `metadata`, and any other fields (`spec`, `status`, `data`, ...)
 * as unknown values to narrow. Works for built-in kinds and custom resources alike.
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** An unstructured list (e.g. `WidgetList`) whose items are `T`. */
export interface KubeObjectList<T = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/**
 * The metadata of an object without its body (meta.k8s.io/v1 PartialObjectMetadata), as
 * the server answers `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`.
 */
export interface PartialObjectMetadata {
  apiVersion: "meta.k8s.io/v1";
  kind: "PartialObjectMetadata";
  metadata: ObjectMeta;
}

/** A list of {@link PartialObjectMetadata} (meta.k8s.io/v1 PartialObjectMetadataList). */
export interface PartialObjectMetadataList {
  apiVersion: "meta.k8s.io/v1";
  kind: "PartialObjectMetadataList";
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

/**
 * An apply configuration of `T`: the object with every field optional at every depth, so
 * that a server-side apply can name only the fields its manager owns. (client-go generates
 * builder types for this; here it is the object shape itself.) `metadata.name` is still
 * required at run time.
 */
export type ApplyConfiguration<T> = T extends readonly (infer U)[]
  ? ApplyConfiguration<U>[]
  : T extends object
    ? { -readonly [K in keyof T]?: ApplyConfiguration<T[K]> }
    : T;
