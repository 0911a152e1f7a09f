/**
 * The CEL type of a structural schema node, as kube derives it
 * (`apiextensions-apiserver/pkg/apiserver/schema/cel/model/schemas.go` and
 * `k8s.io/apiserver/pkg/cel/common/schemas.go`): objects with properties are object types (field
 * selection, `has()`), `additionalProperties` maps, arrays lists, `x-kubernetes-int-or-string` and
 * `x-kubernetes-preserve-unknown-fields` without properties `dyn`; strings with format `byte`,
 * `duration`, `date-time`/`date` are bytes, durations and timestamps. The resource root and embedded
 * resources get `apiVersion`, `kind` and `metadata.{name,generateName}`.
 *
 * Size bounds follow kube's estimator: `maxItems`/`maxProperties`/`maxLength` when declared,
 * otherwise how many minimal values fit in one 3 MiB request.
 */
import type { JSONSchemaProps } from "../schema-props.js";
import {
  DECL,
  type DeclType,
  MAX_REQUEST_SIZE_BYTES,
  listDecl,
  mapDecl,
  objectDecl,
  sizedScalar,
} from "./decl-type.js";
import { escapePropertyName } from "./property-names.js";

/** Options of {@link schemaDeclType}. */
export interface SchemaDeclTypeOptions {
  /** The node is a resource root: `apiVersion`, `kind` and `metadata` are added. */
  readonly isResourceRoot?: boolean;
  /** Name of the object type at this node (nested objects append `.field`). */
  readonly typeName?: string;
}

/** The CEL type of `schema`, or `undefined` when the node has no usable type. */
export function schemaDeclType(
  schema: JSONSchemaProps,
  options: SchemaDeclTypeOptions = {},
): DeclType | undefined {
  return declTypeOf(schema, options.typeName ?? "Object", options.isResourceRoot === true, 0);
}

/** Schemas nested deeper than this are typed `dyn` (bounds the work on hostile schemas). */
const MAX_TYPE_DEPTH = 64;

function declTypeOf(
  s: JSONSchemaProps,
  name: string,
  embedded: boolean,
  depth: number,
): DeclType | undefined {
  if (depth > MAX_TYPE_DEPTH) return DECL.DYN;
  if (s["x-kubernetes-int-or-string"] === true) return DECL.DYN;
  switch (s.type) {
    case "array": {
      if (!s.items || Array.isArray(s.items)) return undefined;
      const elem = declTypeOf(
        s.items,
        `${name}.@idx`,
        s.items["x-kubernetes-embedded-resource"] === true,
        depth + 1,
      );
      if (!elem) return undefined;
      return listDecl(
        elem,
        s.maxItems ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(s.items) + 1)),
      );
    }
    case "object":
      return objectType(s, name, embedded || s["x-kubernetes-embedded-resource"] === true, depth);
    case "integer":
      return DECL.INT;
    case "number":
      return DECL.DOUBLE;
    case "boolean":
      return DECL.BOOL;
    case "string":
      switch (s.format) {
        case "byte":
          return sizedScalar(DECL.BYTES, s.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2);
        case "duration":
          return DECL.DURATION;
        case "date":
        case "date-time":
          return DECL.TIMESTAMP;
        default:
          return sizedScalar(DECL.STRING, s.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2);
      }
    default:
      return s["x-kubernetes-preserve-unknown-fields"] === true ? DECL.DYN : undefined;
  }
}

function objectType(s: JSONSchemaProps, name: string, embedded: boolean, depth: number): DeclType {
  const additional = s.additionalProperties;
  if (additional && typeof additional === "object") {
    const value =
      declTypeOf(
        additional,
        `${name}.@elem`,
        additional["x-kubernetes-embedded-resource"] === true,
        depth + 1,
      ) ?? DECL.DYN;
    const maxEntries =
      s.maxProperties ??
      Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(additional) + 6));
    return mapDecl(DECL.STRING, value, maxEntries);
  }
  const properties = typeof s.properties === "object" && s.properties !== null ? s.properties : {};
  if (
    s["x-kubernetes-preserve-unknown-fields"] === true &&
    Object.keys(properties).length === 0 &&
    !embedded
  ) {
    return DECL.DYN;
  }
  const fields = new Map<string, DeclType>();
  if (embedded) {
    fields.set("apiVersion", DECL.STRING);
    fields.set("kind", DECL.STRING);
    fields.set(
      "metadata",
      objectDecl(
        `${name}.metadata`,
        new Map([
          ["name", DECL.STRING],
          ["generateName", DECL.STRING],
        ]),
      ),
    );
  }
  for (const [prop, sub] of Object.entries(properties) as [string, JSONSchemaProps][]) {
    const fieldName = escapePropertyName(prop);
    if (fieldName === undefined || typeof sub !== "object" || sub === null) continue;
    if (embedded && prop === "metadata") continue;
    const t = declTypeOf(
      sub,
      `${name}.${prop}`,
      sub["x-kubernetes-embedded-resource"] === true,
      depth + 1,
    );
    if (t) fields.set(fieldName, t);
  }
  return objectDecl(name, fields);
}

/** kube's minimal JSON size of a value of `s` (`estimateMinSizeJSON`), used to bound unbounded lists and maps. */
function minSerializedSize(s: JSONSchemaProps): number {
  if (s["x-kubernetes-int-or-string"] === true) return 1;
  switch (s.type) {
    case "string":
      return (s.minLength ?? 0) + 2;
    case "boolean":
      return 4;
    case "integer":
    case "number":
      return 1;
    case "array":
    case "object":
      return 2;
    default:
      return 1;
  }
}

/**
 * How many times a rule at a node can run for one object: the product of the size bounds of the
 * lists and maps above it (kube's `MaxCardinality`), capped to avoid overflow.
 */
export function multiplyCardinality(parent: number, size: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, parent * Math.max(size, 1));
}
