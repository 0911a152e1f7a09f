/**
 * A v1 CustomResourceDefinition's spec as kube-apiserver validates it: converted to the
 * internal apiextensions type first (`Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_
 * CustomResourceDefinitionSpec` in apiextensions-apiserver `pkg/apis/apiextensions/v1/
 * conversion.go`). The conversion moves a per-version schema, subresources, printer columns or
 * selectable fields that are identical in every version to the top level, which is why kube's
 * errors name `spec.validation.openAPIV3Schema...` for a CRD whose versions share one schema
 * (one version included), and `spec.versions[i].schema.openAPIV3Schema...` otherwise.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { deepEqual, isJsonObject } from "kubekit/apimachinery";

/** One entry of `spec.versions` after the conversion. */
export interface InternalVersion {
  /** The version as the request carried it. */
  readonly raw: JsonObject;
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  /** `schema` (a CustomResourceValidation) unless moved to the top level. */
  readonly schema: JsonObject | undefined;
  /** `subresources` unless moved to the top level. */
  readonly subresources: JsonObject | undefined;
  /** `additionalPrinterColumns` unless moved to the top level. */
  readonly additionalPrinterColumns: JsonObject[];
  /** `selectableFields` unless moved to the top level. */
  readonly selectableFields: JsonObject[];
}

/** The internal spec: the top-level fields the conversion fills, and the versions. */
export interface InternalSpec {
  readonly raw: JsonObject;
  readonly group: string;
  readonly scope: string;
  readonly names: JsonObject;
  /** `spec.preserveUnknownFields` (a v1 bool: absent is false). */
  readonly preserveUnknownFields: boolean;
  readonly conversion: JsonObject | undefined;
  /** `spec.version`: the first version's name (`""` without versions). */
  readonly version: string;
  readonly validation: JsonObject | undefined;
  readonly subresources: JsonObject | undefined;
  readonly additionalPrinterColumns: JsonObject[];
  readonly selectableFields: JsonObject[];
  readonly versions: InternalVersion[];
}

function objectOrUndefined(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

function objects(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function stringOf(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

/**
 * Whether every version carries the same value (apimachinery's semantic DeepEqual, which
 * treats a missing and an empty list alike).
 */
function identical<T>(values: T[]): boolean {
  const first = values[0];
  return values.every((v) => deepEqual(v as JsonValue, first as JsonValue));
}

/** The internal view of a v1 `spec` (a value of an unexpected JSON type reads as absent). */
export function internalSpecOf(spec: JsonObject): InternalSpec {
  const rawVersions = objects(spec["versions"]);
  const schemas = rawVersions.map((v) => objectOrUndefined(v["schema"]));
  const subresources = rawVersions.map((v) => objectOrUndefined(v["subresources"]));
  const columns = rawVersions.map((v) => objects(v["additionalPrinterColumns"]));
  const selectable = rawVersions.map((v) => objects(v["selectableFields"]));
  const hoist = {
    schema: rawVersions.length > 0 && identical(schemas),
    subresources: rawVersions.length > 0 && identical(subresources),
    columns: rawVersions.length > 0 && identical(columns),
    selectable: rawVersions.length > 0 && identical(selectable),
  };
  const versions = rawVersions.map((v, i): InternalVersion => ({
    raw: v,
    name: stringOf(v["name"]),
    served: v["served"] === true,
    storage: v["storage"] === true,
    schema: hoist.schema ? undefined : schemas[i],
    subresources: hoist.subresources ? undefined : subresources[i],
    additionalPrinterColumns: hoist.columns ? [] : (columns[i] ?? []),
    selectableFields: hoist.selectable ? [] : (selectable[i] ?? []),
  }));
  return {
    raw: spec,
    group: stringOf(spec["group"]),
    scope: stringOf(spec["scope"]),
    names: objectOrUndefined(spec["names"]) ?? {},
    preserveUnknownFields: spec["preserveUnknownFields"] === true,
    conversion: objectOrUndefined(spec["conversion"]),
    version: versions[0]?.name ?? "",
    validation: hoist.schema ? schemas[0] : undefined,
    subresources: hoist.subresources ? subresources[0] : undefined,
    additionalPrinterColumns: hoist.columns ? (columns[0] ?? []) : [],
    selectableFields: hoist.selectable ? (selectable[0] ?? []) : [],
    versions,
  };
}

/** The schema root of a CustomResourceValidation (`openAPIV3Schema`), if any. */
export function openAPIV3SchemaOf(validation: JsonObject | undefined): JsonObject | undefined {
  return objectOrUndefined(validation?.["openAPIV3Schema"]);
}

/** Every schema root of the spec, top-level and per version. */
export function schemaRootsOf(spec: InternalSpec): JsonObject[] {
  return [spec.validation, ...spec.versions.map((v) => v.schema)]
    .map(openAPIV3SchemaOf)
    .filter((s): s is JsonObject => s !== undefined);
}

/** Whether `subresources.status` is set (kube's `hasStatusEnabled`). */
export function hasStatusEnabled(subresources: JsonObject | undefined): boolean {
  return subresources?.["status"] !== undefined && subresources["status"] !== null;
}

/** The subresources that apply to a version (kube's `getSubresourcesForVersion`). */
export function subresourcesForVersion(
  spec: InternalSpec,
  version: InternalVersion,
): JsonObject | undefined {
  const perVersion = spec.versions.some((v) => v.subresources !== undefined);
  return perVersion ? version.subresources : spec.subresources;
}
