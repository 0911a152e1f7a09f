import { stringify as toYaml } from "yaml";
import type { JsonObject } from "kubekit";
import type { OutputFormat } from "./output-format.js";
import type { ResourceEntry } from "../registry/registry.js";
import { toPartialObjectMetadata, toTable } from "../table/table.js";

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

/** A JSON body ends with a newline, as kube's serializer (`json.Encoder.Encode`) writes it. */
function json(value: unknown): { body: string; contentType: string } {
  return { body: `${JSON.stringify(value)}\n`, contentType: "application/json" };
}
