/**
 * The rules on one schema node's own keywords (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`: `specStandardValidatorV3.validate`, and
 * the `x-kubernetes-*` checks of `ValidateCustomResourceDefinitionOpenAPISchema` and
 * `validateMapListKeysMapSet`): OpenAPI v3 types only, the keywords kube does not support,
 * defaults only where they can be applied, and the list/map extensions' combinations.
 */
import type { FieldError } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
} from "kubekit/apimachinery";
import {
  hasEntries,
  isSet,
  isTrue,
  itemsSchema,
  schemaEntries,
  stringField,
  stringList,
  type SchemaNode,
} from "../structural/schema-node.js";

/** The OpenAPI v3 types a CRD schema may name (kube's `openapiV3Types`, sorted). */
const OPENAPI_V3_TYPES = ["array", "boolean", "integer", "number", "object", "string"];

/** What the recursion knows about where a node sits (kube's `specStandardValidatorV3`). */
export interface NodeContext {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
  readonly requireValidPropertyType: boolean;
}

/** `specStandardValidatorV3.validate`: types, defaults and unsupported keywords. */
export function validateNodeKeywords(
  node: SchemaNode,
  ctx: NodeContext,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringField(node, "type");
  if (ctx.requireValidPropertyType && type !== "" && !OPENAPI_V3_TYPES.includes(type)) {
    errors.push(fieldNotSupported(`${path}.type`, type, OPENAPI_V3_TYPES));
  }
  if (isSet(node, "default") && !ctx.allowDefaults) {
    const reason = ctx.disallowDefaultsReason;
    errors.push(fieldForbidden(`${path}.default`, `must not be set${reason ? ` ${reason}` : ""}`));
  }
  if (stringField(node, "id") !== "")
    errors.push(fieldForbidden(`${path}.id`, "id is not supported"));
  const unsupported: [string, boolean][] = [
    ["additionalItems", isSet(node, "additionalItems")],
    ["patternProperties", hasEntries(node, "patternProperties")],
    ["definitions", hasEntries(node, "definitions")],
    ["dependencies", isSet(node, "dependencies")],
    ["$ref", isSet(node, "$ref")],
  ];
  for (const [key, present] of unsupported) {
    if (present) errors.push(fieldForbidden(`${path}.${key}`, `${key} is not supported`));
  }
  if (type === "null") {
    errors.push(
      fieldForbidden(`${path}.type`, "type cannot be set to null, use nullable as an alternative"),
    );
  }
  if (Array.isArray(node["items"]) && node["items"].length > 0) {
    errors.push(fieldForbidden(`${path}.items`, "items must be a schema object and not an array"));
  }
  if (ctx.insideResourceMeta && isTrue(node, "x-kubernetes-embedded-resource")) {
    errors.push(
      fieldForbidden(
        `${path}.x-kubernetes-embedded-resource`,
        "must not be used inside of resource meta",
      ),
    );
  }
  return errors;
}

/** `type` must be `expected` when an extension that needs it is set. */
function typeFor(node: SchemaNode, expected: string, detail: string, path: string): FieldError[] {
  const type = stringField(node, "type");
  if (type === expected) return [];
  return [
    type === ""
      ? fieldRequired(`${path}.type`, detail)
      : fieldInvalid(`${path}.type`, type, detail),
  ];
}

/** The value of a `*string` extension: the string, `null` when absent or not a string. */
function optionalString(node: SchemaNode, key: string): string | null {
  const v = node[key];
  return typeof v === "string" ? v : null;
}

/** `x-kubernetes-map-type` and `x-kubernetes-preserve-unknown-fields` values. */
function validateMapTypeAndPreserve(node: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (node["x-kubernetes-preserve-unknown-fields"] === false) {
    errors.push(
      fieldInvalid(
        `${path}.x-kubernetes-preserve-unknown-fields`,
        false,
        "must be true or undefined",
      ),
    );
  }
  const mapType = optionalString(node, "x-kubernetes-map-type");
  if (mapType !== null) {
    errors.push(
      ...typeFor(node, "object", "must be object if x-kubernetes-map-type is specified", path),
    );
    if (mapType !== "atomic" && mapType !== "granular") {
      errors.push(
        fieldNotSupported(`${path}.x-kubernetes-map-type`, mapType, ["atomic", "granular"]),
      );
    }
  }
  return errors;
}

/** A `set` list's items must be atomic (kube's requireAtomicSetType). */
function validateSetItems(items: SchemaNode, path: string): FieldError[] {
  const detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
  const itemListType = optionalString(items, "x-kubernetes-list-type");
  switch (stringField(items, "type")) {
    case "array":
      return itemListType !== null && itemListType !== "atomic"
        ? [fieldInvalid(`${path}.items.x-kubernetes-list-type`, itemListType, detail)]
        : [];
    case "object":
      // kube prints the items' list type here (a nil *string prints as "null"), not their
      // map type.
      return optionalString(items, "x-kubernetes-map-type") !== "atomic"
        ? [fieldInvalid(`${path}.items.x-kubernetes-map-type`, itemListType ?? "null", detail)]
        : [];
    default:
      return [];
  }
}

/** The keys of a `map` list: item properties, scalar, unique. */
function validateListMapKeys(node: SchemaNode, items: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const keys = stringList(node, "x-kubernetes-list-map-keys");
  const properties = new Map(schemaEntries(items, "properties"));
  const seen = new Set<string>();
  for (const k of keys) {
    const property = properties.get(k);
    if (property) {
      const t = stringField(property, "type");
      if (t === "array" || t === "object") {
        errors.push(
          fieldInvalid(
            `${path}.items.properties[${k}].type`,
            stringField(items, "type"),
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
    } else {
      errors.push(
        fieldInvalid(
          `${path}.x-kubernetes-list-map-keys`,
          keys,
          "entries must all be names of item properties",
        ),
      );
    }
    if (seen.has(k)) {
      errors.push(
        fieldInvalid(
          `${path}.x-kubernetes-list-map-keys`,
          keys,
          "must not contain duplicate entries",
        ),
      );
    }
    seen.add(k);
  }
  return errors;
}

/** The rules of `x-kubernetes-list-type: map`. */
function validateMapList(node: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!hasEntries(node, "x-kubernetes-list-map-keys")) {
    errors.push(
      fieldRequired(
        `${path}.x-kubernetes-list-map-keys`,
        "must not be empty if x-kubernetes-list-type is map",
      ),
    );
  }
  const rawItems = node["items"];
  if (rawItems === undefined || rawItems === null) {
    errors.push(
      fieldRequired(`${path}.items`, "must have a schema if x-kubernetes-list-type is map"),
    );
    return errors;
  }
  if (!isJsonObject(rawItems)) {
    errors.push(
      fieldInvalid(
        `${path}.items`,
        rawItems,
        "must only have a single schema if x-kubernetes-list-type is map",
      ),
    );
    return errors;
  }
  const itemType = stringField(rawItems, "type");
  if (itemType !== "object") {
    errors.push(
      fieldInvalid(
        `${path}.items.type`,
        itemType,
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return errors;
  }
  errors.push(...validateListMapKeys(node, rawItems, path));
  return errors;
}

/**
 * The `x-kubernetes-*` extension rules of one node (map type, list type, list map keys),
 * in kube's order. `requireAtomicSetType` is relaxed only on updates of CRDs stored without it.
 */
export function validateExtensionKeywords(
  node: SchemaNode,
  path: string,
  requireAtomicSetType: boolean,
): FieldError[] {
  const errors = validateMapTypeAndPreserve(node, path);
  const listType = optionalString(node, "x-kubernetes-list-type");
  const items = itemsSchema(node);
  if (listType !== null && stringField(node, "type") !== "array") {
    errors.push(
      ...typeFor(node, "array", "must be array if x-kubernetes-list-type is specified", path),
    );
  } else if (requireAtomicSetType && listType === "set" && items) {
    errors.push(...validateSetItems(items, path));
  }
  if (listType !== null && !["atomic", "set", "map"].includes(listType)) {
    errors.push(
      fieldNotSupported(`${path}.x-kubernetes-list-type`, listType, ["atomic", "set", "map"]),
    );
  }
  if (hasEntries(node, "x-kubernetes-list-map-keys")) {
    const detail = "must be map if x-kubernetes-list-map-keys is non-empty";
    if (listType === null) errors.push(fieldRequired(`${path}.x-kubernetes-list-type`, detail));
    else if (listType !== "map") {
      errors.push(fieldInvalid(`${path}.x-kubernetes-list-type`, listType, detail));
    }
  }
  if (listType === "map") errors.push(...validateMapList(node, path));
  return errors;
}

/**
 * `validateMapListKeysMapSet`: the items of a `set` or `map` list are not nullable, and a map
 * list's keys are required or defaulted and not nullable.
 */
export function validateMapListKeysMapSet(node: SchemaNode, path: string): FieldError[] {
  const items = itemsSchema(node);
  const listType = optionalString(node, "x-kubernetes-list-type");
  if (!items || (listType !== "set" && listType !== "map")) return [];
  const errors: FieldError[] = [];
  if (isTrue(items, "nullable")) {
    errors.push(
      fieldForbidden(
        `${path}.items.nullable`,
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  }
  if (listType !== "map") return errors;
  const required = new Set(stringList(items, "required"));
  const properties = new Map(schemaEntries(items, "properties"));
  for (const k of stringList(node, "x-kubernetes-list-map-keys")) {
    const property = properties.get(k);
    if (!property) continue;
    const keyPath = `${path}.items.properties[${k}]`;
    if (!required.has(k) && !isSet(property, "default")) {
      errors.push(
        fieldRequired(
          `${keyPath}.default`,
          "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
        ),
      );
    }
    if (isTrue(property, "nullable")) {
      errors.push(
        fieldForbidden(
          `${keyPath}.nullable`,
          "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
        ),
      );
    }
  }
  return errors;
}
