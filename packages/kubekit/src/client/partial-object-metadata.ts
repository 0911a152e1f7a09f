/**
 * Client-side conversion of full objects and lists to their metadata-only forms
 * (PartialObjectMetadata, PartialObjectMetadataList), for servers or proxies that ignore
 * the metadata client's `as=PartialObjectMetadata` Accept clause and answer plain JSON.
 */
import { isJsonObject, type JsonObject } from "../core/json.js";
import { metadataOf } from "../core/object-metadata.js";
import type {
  ListMeta,
  ObjectMeta,
  PartialObjectMetadata,
  PartialObjectMetadataList,
} from "./kube-object.js";

const META_API_VERSION = "meta.k8s.io/v1";

function recordOf(value: unknown, what: string): JsonObject {
  if (!isJsonObject(value)) {
    throw new TypeError(`expected ${what} to be a JSON object, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * `value` as a PartialObjectMetadata: returned as it is when it already is one
 * (`kind: PartialObjectMetadata`), otherwise `{apiVersion: "meta.k8s.io/v1", kind:
 * "PartialObjectMetadata", metadata}` with the object's metadata (the same object, not a
 * copy; `{}` when it has none), as the server would have built it.
 *
 * @throws {TypeError} when `value` is not a JSON object.
 */
export function toPartialObjectMetadata(value: unknown): PartialObjectMetadata {
  const object = recordOf(value, "an object");
  if (object["kind"] === "PartialObjectMetadata") return object as unknown as PartialObjectMetadata;
  const metadata: ObjectMeta = metadataOf(object) ?? {};
  return { apiVersion: META_API_VERSION, kind: "PartialObjectMetadata", metadata };
}

/**
 * `value` as a PartialObjectMetadataList: returned as it is when it already is one,
 * otherwise a PartialObjectMetadataList with the list's metadata (resourceVersion,
 * continue, remainingItemCount) and every item converted by {@link toPartialObjectMetadata}.
 *
 * @throws {TypeError} when `value` is not a JSON object or an item is not one.
 */
export function toPartialObjectMetadataList(value: unknown): PartialObjectMetadataList {
  const list = recordOf(value, "a list");
  if (list["kind"] === "PartialObjectMetadataList") {
    return list as unknown as PartialObjectMetadataList;
  }
  const metadata: ListMeta = metadataOf(list) ?? {};
  const items = Array.isArray(list["items"]) ? list["items"] : [];
  return {
    apiVersion: META_API_VERSION,
    kind: "PartialObjectMetadataList",
    metadata,
    items: items.map(toPartialObjectMetadata),
  };
}
