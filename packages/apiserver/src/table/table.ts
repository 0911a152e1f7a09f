import { formatApiVersion, type JsonObject, type JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import {
  CREATION_TIMESTAMP_DESCRIPTION,
  NAME_DESCRIPTION,
  type PrintedRow,
  type TableColumn,
  type TablePrinter,
} from "./builtin-table-printers.js";
import { humanDuration, parseTimestamp } from "./human-duration.js";
import { compileJsonPath, type JsonPathEvaluator } from "./json-path.js";
import { strategyFor } from "../kinds/strategies.js";
import type { PrinterColumn, ServedResource } from "../registry/served-resource.js";

/**
 * Server-side printing (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go`): the
 * `Table` kubectl asks for with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, and the
 * PartialObjectMetadata forms. A watch event's Table is `toTable([object], …)`.
 */

/** What `rows[].object` holds: nothing, a PartialObjectMetadata (the default), or the object. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** List metadata copied into a Table or PartialObjectMetadataList (empty values are omitted). */
export interface TableListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** Options of `toTable`. */
export interface TableOptions {
  readonly includeObject: IncludeObject;
  /** The list's metadata; for a single object (get, watch event) leave it out. */
  readonly listMeta?: TableListMeta;
  /** The current time (ms since the epoch) that ages are computed from. */
  readonly now: number;
}

const META_API_VERSION = "meta.k8s.io/v1";

/**
 * Renders objects of one resource as a `meta.k8s.io/v1` Table, one row per object in order.
 *
 * Columns: kube's printer columns for the common built-ins (each kind's strategy, `kinds/*.ts`); for a
 * custom resource `Name` followed by its CRD `additionalPrinterColumns` (or `Age`, type date,
 * when it has none), evaluated with the CRD JSONPath subset and converted to the column's type
 * as apiextensions-apiserver does (a path that matches nothing, or an uncompilable path, gives
 * a `null` cell); for every other resource `Name` and `Created At` (type date, RFC 3339 cells).
 * Every column is always present (the server prints the wide form; kubectl hides
 * `priority > 0` columns).
 *
 * `metadata` is `options.listMeta` without empty fields; without `listMeta`, and for exactly one
 * object, it is that object's resourceVersion, as kube does for a single object. Rows carry
 * `object` per `includeObject` (the full object gets `apiVersion`/`kind` filled in when
 * missing) and, for finished pods, `conditions` (`Completed`).
 */
export function toTable(
  objects: readonly JsonObject[],
  resource: ServedResource,
  options: TableOptions,
): JsonObject {
  const { head, row } = tableParts(resource, options);
  return { ...head, metadata: tableMetadata(objects, options.listMeta), rows: objects.map(row) };
}

/** A Table in parts, for writing a list's Table row by row (see {@link tableParts}). */
export interface TableParts {
  /** The Table's `kind`, `apiVersion` and `metadata` (from `listMeta`) and `columnDefinitions`. */
  readonly head: JsonObject;
  /** The row of one object (what {@link toTable} puts in `rows`). */
  row(obj: JsonObject): JsonObject;
}

/**
 * {@link toTable} in parts: the Table without `rows` (`head`, its keys in the Table's order,
 * `rows` last) and the row of each object, so that a list's Table can be written row by row.
 * `head.metadata` is `options.listMeta` without empty fields.
 */
export function tableParts(resource: ServedResource, options: TableOptions): TableParts {
  const printer = printerFor(resource);
  return {
    head: {
      kind: "Table",
      apiVersion: META_API_VERSION,
      metadata: listMetadata(options.listMeta ?? {}),
      columnDefinitions: printer.columns.map((c) => ({ ...c })),
    },
    row(obj) {
      const printed: PrintedRow = printer.row(obj, options.now);
      const row: JsonObject = { cells: printed.cells };
      if (printed.conditions) row["conditions"] = printed.conditions;
      const included = rowObject(obj, resource, options.includeObject);
      if (included) row["object"] = included;
      return row;
    },
  };
}

/**
 * The PartialObjectMetadata of an object: `{kind, apiVersion: meta.k8s.io/v1, metadata}` with
 * the object's whole ObjectMeta. The metadata is shared with `obj`, not copied; serialize the
 * result before `obj` changes (stored objects never do).
 */
export function toPartialObjectMetadata(obj: JsonObject): JsonObject {
  const metadata = obj["metadata"];
  return {
    kind: "PartialObjectMetadata",
    apiVersion: META_API_VERSION,
    metadata: isJsonObject(metadata) ? metadata : {},
  };
}

/**
 * A PartialObjectMetadataList without its `items` (which come last, each the
 * {@link toPartialObjectMetadata} of an object): its metadata is `listMeta` without empty fields.
 */
export function partialObjectMetadataListHead(listMeta: TableListMeta = {}): JsonObject {
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: META_API_VERSION,
    metadata: listMetadata(listMeta),
  };
}

function printerFor(resource: ServedResource): TablePrinter {
  if (resource.custom) return customResourcePrinter(resource.custom.printerColumns);
  return strategyFor(resource).printer ?? DEFAULT_PRINTER;
}

const NAME_COLUMN: TableColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description: NAME_DESCRIPTION,
  priority: 0,
};

/** kube's default table convertor: Name and Created At (the creation time in RFC 3339). */
const DEFAULT_PRINTER: TablePrinter = {
  columns: [
    NAME_COLUMN,
    {
      name: "Created At",
      type: "date",
      format: "",
      description: CREATION_TIMESTAMP_DESCRIPTION,
      priority: 0,
    },
  ],
  row(obj) {
    const metadata = obj["metadata"];
    const name =
      isJsonObject(metadata) && typeof metadata["name"] === "string" ? metadata["name"] : "";
    const created = parseTimestamp(
      isJsonObject(metadata) ? metadata["creationTimestamp"] : undefined,
    );
    return { cells: [name, rfc3339Seconds(created ?? ZERO_TIME)] };
  },
};

/** Go's zero time, which kube prints for an object without a creationTimestamp. */
const ZERO_TIME = -62135596800000; // 0001-01-01T00:00:00Z

/** The CRD's default column when it declares none (apiextensions-apiserver). */
const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description: CREATION_TIMESTAMP_DESCRIPTION,
};

function customResourcePrinter(printerColumns: readonly PrinterColumn[]): TablePrinter {
  const declared = printerColumns.length > 0 ? printerColumns : [AGE_COLUMN];
  const evaluators: (JsonPathEvaluator | undefined)[] = declared.map((c) => {
    try {
      return compileJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  return {
    columns: [
      NAME_COLUMN,
      ...declared.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description:
          c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    row(obj, now) {
      const metadata = obj["metadata"];
      const name =
        isJsonObject(metadata) && typeof metadata["name"] === "string" ? metadata["name"] : "";
      const cells: JsonValue[] = [name];
      declared.forEach((c, i) => {
        const results = evaluators[i]?.(obj) ?? [];
        cells.push(results.length === 0 ? null : customCell(c.type, results[0] as JsonValue, now));
      });
      return { cells };
    },
  };
}

/** apiextensions-apiserver's cell conversion of a printer column value by the column type. */
function customCell(type: string, value: JsonValue, now: number): JsonValue {
  if (value === null) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "string":
      return printedValue(value);
    case "date": {
      if (typeof value !== "string") return null;
      if (value === "" || value === "null") return "<unknown>";
      const at = parseTimestamp(value);
      return at === undefined ? "<invalid>" : humanDuration(now - at);
    }
    default:
      return null;
  }
}

/** How kubectl's JSONPath prints a value: strings as is, scalars as text, objects and arrays as JSON with sorted keys. */
function printedValue(value: JsonValue): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys(value[key] as JsonValue);
  return sorted;
}

function rowObject(
  obj: JsonObject,
  resource: ServedResource,
  include: IncludeObject,
): JsonObject | undefined {
  switch (include) {
    case "None":
      return undefined;
    case "Object":
      if (typeof obj["apiVersion"] === "string" && typeof obj["kind"] === "string") return obj;
      return {
        apiVersion: formatApiVersion(resource),
        kind: resource.kind,
        ...obj,
      };
    default:
      return toPartialObjectMetadata(obj);
  }
}

function tableMetadata(
  objects: readonly JsonObject[],
  listMeta: TableListMeta | undefined,
): JsonObject {
  if (listMeta) return listMetadata(listMeta);
  const only = objects.length === 1 ? objects[0] : undefined;
  const metadata = only?.["metadata"];
  const rv = isJsonObject(metadata) ? metadata["resourceVersion"] : undefined;
  return typeof rv === "string" && rv !== "" ? { resourceVersion: rv } : {};
}

function listMetadata(listMeta: TableListMeta): JsonObject {
  const metadata: JsonObject = {};
  if (listMeta.resourceVersion) metadata["resourceVersion"] = listMeta.resourceVersion;
  if (listMeta.continue) metadata["continue"] = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined)
    metadata["remainingItemCount"] = listMeta.remainingItemCount;
  return metadata;
}

function rfc3339Seconds(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}Z`;
}
