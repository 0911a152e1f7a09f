import type { ServerResponse } from "node:http";
import { stringify as toYaml } from "yaml";
import { formatApiVersion, type JsonObject } from "kubekit";
import type { ResourceEntry } from "../registry/registry.js";
import {
  partialObjectMetadataListHead,
  tableParts,
  toPartialObjectMetadata,
} from "../table/table.js";
import { objectJson, type ListMeta } from "./object-encoding.js";
import type { OutputFormat } from "./output-format.js";
import { StreamedBody } from "./streamed-body.js";

/** An item of a list: an object's stored JSON bytes, or an object (converted for the request). */
export type ListItem = Buffer | JsonObject;

/** How a list writer turns stored bytes into an object when its format needs one. */
export type ParseStored = (json: Buffer) => JsonObject;

const OPEN = Buffer.from("{");
const NEXT_OPEN = Buffer.from(",{");
const COMMA = Buffer.from(",");

/**
 * Writes a list response (status 200) item by item in the negotiated format, with
 * backpressure ({@link StreamedBody}), so that a list of any size streams in bounded memory:
 * JSON from the stored bytes as they are (built-in items without their `apiVersion`/`kind`, as
 * kube's typed lists carry none; custom resources as stored), YAML one item document at a time,
 * a Table row by row, a PartialObjectMetadataList item by item (each parsed with `parse` only
 * when the format needs the object). JSON bodies end with a newline, as kube's serializer writes.
 * Resolves once the last part is handed to the socket (or the client went away).
 */
export async function sendList(
  res: ServerResponse,
  entry: ResourceEntry,
  items: readonly ListItem[],
  listMeta: ListMeta,
  format: OutputFormat,
  now: number,
  parse: ParseStored,
): Promise<void> {
  const contentType = format.kind === "yaml" ? "application/yaml" : "application/json";
  const body = new StreamedBody(res, 200, contentType);
  const objectOf = (item: ListItem): JsonObject => (Buffer.isBuffer(item) ? parse(item) : item);
  let write: (item: ListItem, index: number) => Promise<void> | undefined;
  let tail: string;
  switch (format.kind) {
    case "table": {
      const table = tableParts(entry.info, { includeObject: format.includeObject, listMeta, now });
      body.push(`${openHead(table.head)},"rows":[`);
      write = (item, i) => pushJson(body, i, table.row(objectOf(item)));
      tail = "]}\n";
      break;
    }
    case "metadata":
      body.push(`${openHead(partialObjectMetadataListHead(listMeta))},"items":[`);
      write = (item, i) => pushJson(body, i, toPartialObjectMetadata(objectOf(item)));
      tail = "]}\n";
      break;
    case "yaml": {
      const head = { apiVersion: formatApiVersion(entry.info), kind: entry.info.listKind };
      body.push(toYaml({ ...head, metadata: listMeta }));
      if (items.length === 0) body.push("items: []\n");
      else body.push("items:\n");
      // Each item rendered where the whole document has it (same indentation and folding).
      write = (item) => body.push(toYaml({ items: [objectOf(item)] }).slice("items:\n".length));
      tail = "";
      break;
    }
    default: {
      body.push(
        `{"kind":${JSON.stringify(entry.info.listKind)},"apiVersion":${JSON.stringify(formatApiVersion(entry.info))},` +
          `"metadata":${JSON.stringify(listMeta)},"items":[`,
      );
      const strip = entry.info.custom === undefined;
      write = (item, i) => pushJsonItem(body, i, item, strip);
      tail = "]}\n";
    }
  }
  for (let i = 0; i < items.length && !body.closed; i++) {
    const wait = write(items[i] as ListItem, i);
    if (wait) await wait;
  }
  body.push(tail);
  body.end();
}

/** A JSON object's text without its closing brace, to append more members. */
function openHead(head: JsonObject): string {
  return JSON.stringify(head).slice(0, -1);
}

function pushJson(body: StreamedBody, index: number, value: JsonObject): Promise<void> | undefined {
  return body.push(index === 0 ? JSON.stringify(value) : `,${JSON.stringify(value)}`);
}

/**
 * One item of a JSON list: built-in kinds carry no `apiVersion`/`kind` inside lists (the
 * leading `"apiVersion":…,"kind":…` members of the stored bytes are skipped, no copy), custom
 * resources do (unstructured objects, written as stored).
 */
function pushJsonItem(
  body: StreamedBody,
  index: number,
  item: ListItem,
  strip: boolean,
): Promise<void> | undefined {
  const json = Buffer.isBuffer(item) ? item : Buffer.from(objectJson(item), "utf8");
  const rest = strip ? typeMetaEnd(json) : -1;
  if (rest < 0) {
    if (index > 0) body.push(COMMA);
    return body.push(json);
  }
  body.push(index === 0 ? OPEN : NEXT_OPEN);
  // After the type meta: `,"metadata":…}` → `"metadata":…}`, or `}` for an empty remainder.
  return body.push(json.subarray(json[rest] === 0x2c ? rest + 1 : rest));
}

const API_VERSION_MEMBER = Buffer.from('{"apiVersion":"');
const KIND_MEMBER = Buffer.from(',"kind":"');

/**
 * The offset just after `{"apiVersion":"…","kind":"…"` when the JSON starts with exactly those
 * two members (strings without escapes, as JSON.stringify writes type meta), else -1.
 */
export function typeMetaEnd(json: Buffer): number {
  if (
    json.compare(API_VERSION_MEMBER, 0, API_VERSION_MEMBER.length, 0, API_VERSION_MEMBER.length) !==
    0
  )
    return -1;
  const apiVersionEnd = stringEnd(json, API_VERSION_MEMBER.length);
  if (apiVersionEnd < 0) return -1;
  const kindStart = apiVersionEnd + 1;
  if (
    json.compare(KIND_MEMBER, 0, KIND_MEMBER.length, kindStart, kindStart + KIND_MEMBER.length) !==
    0
  )
    return -1;
  const kindEnd = stringEnd(json, kindStart + KIND_MEMBER.length);
  if (kindEnd < 0) return -1;
  const after = json[kindEnd + 1];
  return after === 0x2c || after === 0x7d ? kindEnd + 1 : -1;
}

/** The offset of the closing quote of a string starting at `from`; -1 at an escape or the end. */
function stringEnd(json: Buffer, from: number): number {
  for (let i = from; i < json.length; i++) {
    const b = json[i];
    if (b === 0x22) return i;
    if (b === 0x5c) return -1;
  }
  return -1;
}
