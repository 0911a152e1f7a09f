import { stringify as toYaml } from "yaml";
import { formatApiVersion, type JsonObject } from "kubekit";
import type { OutputFormat } from "./output-format.js";
import type { ResourceEntry } from "../registry/registry.js";
import { toPartialObjectMetadata, toPartialObjectMetadataList, toTable } from "../table/table.js";

const jsonCache = new WeakMap<JsonObject, string>();

/**
 * The JSON text of a stored object, computed once per stored instance (stored objects are
 * immutable, so lists and every watcher share one serialization).
 */
export function objectJson(obj: JsonObject): string {
  let text = jsonCache.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    jsonCache.set(obj, text);
  }
  return text;
}

/**
 * The JSON of a list item: built-in kinds carry no apiVersion/kind inside lists, custom
 * resources do (they are unstructured objects, encoded as stored).
 */
function listItemJson(entry: ResourceEntry, obj: JsonObject): string {
  const text = objectJson(obj);
  if (entry.info.custom) return text;
  const typePrefix = `{"apiVersion":${JSON.stringify(obj["apiVersion"])},"kind":${JSON.stringify(obj["kind"])}`;
  if (!text.startsWith(typePrefix)) return text;
  const rest = text.slice(typePrefix.length);
  return rest.startsWith(",") ? `{${rest.slice(1)}` : `{${rest}`;
}

/** List metadata: resourceVersion, continue, remainingItemCount. */
export interface ListMeta {
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/**
 * The body and Content-Type of a response for one object in the negotiated format; JSON
 * bodies end with the newline kube's serializer writes (`json.Encoder.Encode`).
 */
export function encodeObject(
  entry: ResourceEntry,
  obj: JsonObject,
  format: OutputFormat,
  now: number,
): { body: string; contentType: string } {
  switch (format.kind) {
    case "table":
      return json(toTable([obj], entry.info, { includeObject: format.includeObject, now }));
    case "metadata":
      return json(toPartialObjectMetadata(obj));
    case "yaml":
      return { body: toYaml(obj), contentType: "application/yaml" };
    default:
      return { body: `${objectJson(obj)}\n`, contentType: "application/json" };
  }
}

/** The body and Content-Type of a list response in the negotiated format (JSON ends with a newline). */
export function encodeList(
  entry: ResourceEntry,
  items: readonly JsonObject[],
  listMeta: ListMeta,
  format: OutputFormat,
  now: number,
): { body: string; contentType: string } {
  switch (format.kind) {
    case "table":
      return json(
        toTable(items, entry.info, { includeObject: format.includeObject, listMeta, now }),
      );
    case "metadata":
      return json(toPartialObjectMetadataList(items, listMeta));
    case "yaml":
      return {
        body: toYaml({
          apiVersion: formatApiVersion(entry.info),
          kind: entry.info.listKind,
          metadata: listMeta,
          items,
        }),
        contentType: "application/yaml",
      };
    default: {
      const parts: string[] = new Array<string>(items.length);
      for (let i = 0; i < items.length; i++) parts[i] = listItemJson(entry, items[i] as JsonObject);
      const body =
        `{"kind":${JSON.stringify(entry.info.listKind)},"apiVersion":${JSON.stringify(formatApiVersion(entry.info))},` +
        `"metadata":${JSON.stringify(listMeta)},"items":[${parts.join(",")}]}\n`;
      return { body, contentType: "application/json" };
    }
  }
}

/** A JSON body ends with a newline, as kube's serializer (`json.Encoder.Encode`) writes it. */
function json(value: unknown): { body: string; contentType: string } {
  return { body: `${JSON.stringify(value)}\n`, contentType: "application/json" };
}
