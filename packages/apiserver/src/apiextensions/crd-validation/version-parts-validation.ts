/**
 * The parts of a CRD version besides its schema (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`): the scale subresource's JSON paths
 * (`ValidateCustomResourceDefinitionSubresources`), printer columns
 * (`ValidateCustomResourceColumnDefinition`), selectable fields
 * (`ValidateCustomResourceSelectableFields`) and the deprecation warning.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldDuplicate,
  fieldInvalid,
  fieldRequired,
  fieldTooMany,
  isJsonObject,
} from "kubekit/apimachinery";
import { resolveFieldPath } from "../structural/field-path.js";
import { stringField, type SchemaNode } from "../structural/schema-node.js";

const PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const PRINTER_COLUMN_FORMATS = [
  "byte",
  "date",
  "date-time",
  "double",
  "float",
  "int32",
  "int64",
  "password",
];
/** At most this many selectable fields per version (kube's `MaxSelectableFields`). */
const MAX_SELECTABLE_FIELDS = 8;
/** The longest deprecation warning, in bytes. */
const MAX_DEPRECATION_WARNING = 256;

/** kube's `validateSimpleJSONPath`. */
function validateSimpleJsonPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [fieldInvalid(path, s, "must not be empty")];
  if (!s.startsWith("."))
    return [fieldInvalid(path, s, "must be a simple json path starting with .")];
  return [];
}

/** A scale path: a simple JSON path under one of `prefixes`. */
function validateScalePath(
  value: string,
  path: string,
  prefixes: readonly string[],
  detail: string,
): FieldError[] {
  const errs = validateSimpleJsonPath(value, path);
  if (errs.length > 0) return errs;
  return prefixes.some((p) => value.startsWith(p)) ? [] : [fieldInvalid(path, value, detail)];
}

/** The errors of `subresources` at `path` (the scale subresource's paths). */
export function validateSubresources(
  subresources: JsonObject | undefined,
  path: string,
): FieldError[] {
  const scale = subresources?.["scale"];
  if (!isJsonObject(scale)) return [];
  const errors: FieldError[] = [];
  const spec = stringField(scale, "specReplicasPath");
  if (spec === "") errors.push(fieldRequired(`${path}.scale.specReplicasPath`, ""));
  else {
    errors.push(
      ...validateScalePath(
        spec,
        `${path}.scale.specReplicasPath`,
        [".spec."],
        "should be a json path under .spec",
      ),
    );
  }
  const status = stringField(scale, "statusReplicasPath");
  if (status === "") errors.push(fieldRequired(`${path}.scale.statusReplicasPath`, ""));
  else {
    errors.push(
      ...validateScalePath(
        status,
        `${path}.scale.statusReplicasPath`,
        [".status."],
        "should be a json path under .status",
      ),
    );
  }
  const selector = stringField(scale, "labelSelectorPath");
  if (selector !== "") {
    errors.push(
      ...validateScalePath(
        selector,
        `${path}.scale.labelSelectorPath`,
        [".spec.", ".status."],
        "should be a json path under either .spec or .status",
      ),
    );
  }
  return errors;
}

/** The errors of one printer column at `path`. */
export function validatePrinterColumn(column: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (stringField(column, "name") === "") errors.push(fieldRequired(`${path}.name`, ""));
  const type = stringField(column, "type");
  const typeDetail = `must be one of ${PRINTER_COLUMN_TYPES.join(",")}`;
  if (type === "") errors.push(fieldRequired(`${path}.type`, typeDetail));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) {
    errors.push(fieldInvalid(`${path}.type`, type, typeDetail));
  }
  const format = stringField(column, "format");
  if (format !== "" && !PRINTER_COLUMN_FORMATS.includes(format)) {
    errors.push(
      fieldInvalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(",")}`),
    );
  }
  const jsonPath = stringField(column, "jsonPath");
  if (jsonPath === "") errors.push(fieldRequired(`${path}.JSONPath`, ""));
  else errors.push(...validateSimpleJsonPath(jsonPath, `${path}.JSONPath`));
  return errors;
}

/** The errors of a version's selectable fields at `path`, resolved in its schema. */
export function validateSelectableFields(
  fields: readonly JsonObject[],
  schema: SchemaNode,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const jsonPathField = `${path}[${i}].jsonPath`;
    const jsonPath = stringField(f, "jsonPath");
    if (jsonPath === "") {
      errors.push(fieldRequired(jsonPathField, ""));
      return;
    }
    const resolved = resolveFieldPath(jsonPath, schema, { allowArrayNotation: false });
    if ("error" in resolved) {
      errors.push(fieldInvalid(jsonPathField, jsonPath, `is an invalid path: ${resolved.error}`));
      return;
    }
    if (resolved.root === "metadata") {
      errors.push(fieldInvalid(jsonPathField, jsonPath, "must not point to fields in metadata"));
    }
    const type = resolved.schema ? stringField(resolved.schema, "type") : "";
    if (type !== "string" && type !== "boolean" && type !== "integer") {
      errors.push(
        fieldInvalid(
          jsonPathField,
          jsonPath,
          "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
        ),
      );
    }
    if (unique.has(resolved.path)) errors.push(fieldDuplicate(jsonPathField, jsonPath));
    else unique.add(resolved.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) {
    errors.push(fieldTooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  }
  return errors;
}

/** Whether a code point is printable as Go's `unicode.IsPrint` judges it (approximately). */
function isPrintable(c: string): boolean {
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c);
}

/** The details of an invalid `deprecationWarning` (kube's `validateDeprecationWarning`). */
export function deprecationWarningErrors(
  deprecated: boolean,
  warning: JsonValue | undefined,
): string[] {
  if (typeof warning !== "string") return [];
  if (!deprecated) return ["can only be set for deprecated versions"];
  const errors: string[] = [];
  if (Buffer.byteLength(warning, "utf8") > MAX_DEPRECATION_WARNING) {
    errors.push(`must be <= ${MAX_DEPRECATION_WARNING} characters long`);
  }
  if (warning.length === 0) errors.push("must not be an empty string");
  let index = 0;
  for (const c of warning) {
    // kube tests IsPrint before IsControl, so a control character reads as non-printable.
    if (!isPrintable(c)) {
      errors.push(
        `must only contain printable UTF-8 characters; non-printable character found at index ${index}`,
      );
      break;
    }
    index += Buffer.byteLength(c, "utf8");
  }
  return errors;
}
