/**
 * The invariants of a structural schema (`validateStructuralInvariants` and its helpers in
 * apiextensions-apiserver `pkg/apiserver/schema/validation.go`): a `type` on every specified
 * node (except under `x-kubernetes-int-or-string` / `x-kubernetes-preserve-unknown-fields`),
 * value validations (`allOf`, `anyOf`, `oneOf`, `not`) that only restrict and never specify,
 * embedded resources as objects, and `metadata` restricted to `name`/`generateName` at the
 * root and unspecified in nested contexts. Runs on a schema that `structuralConversionError`
 * accepts.
 */
import type { FieldError } from "kubekit";
import {
  deepEqual,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  isJsonObject,
} from "kubekit/apimachinery";
import { compileGoRegexp } from "../go-regexp.js";
import {
  hasEntries,
  isSet,
  isTrue,
  itemsSchema,
  schemaAt,
  schemaEntries,
  schemaList,
  stringField,
  type SchemaNode,
} from "./schema-node.js";

/** Where a node sits: the schema root, an array's items, or an object's field. */
export type SchemaLevel = "root" | "items" | "field";

const EMPTY_TYPE_DETAIL: Readonly<Record<SchemaLevel, string>> = {
  root: "must not be empty at the root",
  items: "must not be empty for specified array items",
  field: "must not be empty for specified object fields",
};

/** Whether a value-validation clause is exactly `{type: <type>}` (kube's intOrStringAnyOf). */
function isOnlyType(clause: SchemaNode | undefined, type: string): boolean {
  if (!clause) return false;
  const { example: _e, externalDocs: _d, ...rest } = clause;
  return deepEqual(rest, { type });
}

/** `anyOf: [{type: integer}, {type: string}]`, the int-or-string exception. */
function isIntOrStringAnyOf(node: SchemaNode | undefined): boolean {
  const anyOf = node ? schemaList(node, "anyOf") : [];
  return anyOf.length === 2 && isOnlyType(anyOf[0], "integer") && isOnlyType(anyOf[1], "string");
}

/** `allOf: [{anyOf: [{type: integer}, {type: string}]}, ...]`, the other exception. */
function isIntOrStringAllOf(node: SchemaNode): boolean {
  return isIntOrStringAnyOf(schemaList(node, "allOf")[0]);
}

/**
 * `validateValueValidation`: the junctors' clauses, and the pattern as a Go regular
 * expression.
 */
function validateValueValidation(
  node: SchemaNode,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!skipAnyOf) {
    schemaList(node, "anyOf").forEach((c, i) =>
      errors.push(...validateNestedValueValidation(c, false, `${path}.anyOf[${i}]`)),
    );
  }
  schemaList(node, "allOf").forEach((c, i) =>
    errors.push(
      ...validateNestedValueValidation(c, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`),
    ),
  );
  schemaList(node, "oneOf").forEach((c, i) =>
    errors.push(...validateNestedValueValidation(c, false, `${path}.oneOf[${i}]`)),
  );
  const not = schemaAt(node, "not");
  if (not) errors.push(...validateNestedValueValidation(not, false, `${path}.not`));
  const pattern = stringField(node, "pattern");
  if (pattern !== "") {
    try {
      compileGoRegexp(pattern);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      errors.push(
        fieldInvalid(
          `${path}.pattern`,
          pattern,
          `must be a valid regular expression, but isn't: ${reason}`,
        ),
      );
    }
  }
  return errors;
}

/** What a clause under a junctor must leave undefined (it may only restrict). */
const NESTED_FORBIDDEN: readonly [string, (n: SchemaNode) => boolean, string][] = [
  ["type", (n) => stringField(n, "type") !== "", "must be empty to be structural"],
  [
    "additionalProperties",
    (n) => isJsonObject(n["additionalProperties"]) || n["additionalProperties"] === true,
    "must be undefined to be structural",
  ],
  ["default", (n) => isSet(n, "default"), "must be undefined to be structural"],
  ["title", (n) => stringField(n, "title") !== "", "must be empty to be structural"],
  ["description", (n) => stringField(n, "description") !== "", "must be empty to be structural"],
  ["nullable", (n) => isTrue(n, "nullable"), "must be false to be structural"],
  [
    "x-kubernetes-preserve-unknown-fields",
    (n) => isTrue(n, "x-kubernetes-preserve-unknown-fields"),
    "must be false to be structural",
  ],
  [
    "x-kubernetes-embedded-resource",
    (n) => isTrue(n, "x-kubernetes-embedded-resource"),
    "must be false to be structural",
  ],
  [
    "x-kubernetes-int-or-string",
    (n) => isTrue(n, "x-kubernetes-int-or-string"),
    "must be false to be structural",
  ],
  [
    "x-kubernetes-list-map-keys",
    (n) => hasEntries(n, "x-kubernetes-list-map-keys"),
    "must be empty to be structural",
  ],
  [
    "x-kubernetes-list-type",
    (n) => isSet(n, "x-kubernetes-list-type"),
    "must be undefined to be structural",
  ],
  [
    "x-kubernetes-map-type",
    (n) => isSet(n, "x-kubernetes-map-type"),
    "must be undefined to be structural",
  ],
  [
    "x-kubernetes-validations",
    (n) => hasEntries(n, "x-kubernetes-validations"),
    "must be empty to be structural",
  ],
];

/** `validateNestedValueValidation`: a clause under `allOf`/`anyOf`/`oneOf`/`not`. */
function validateNestedValueValidation(
  clause: SchemaNode,
  skipAnyOf: boolean,
  path: string,
): FieldError[] {
  const errors = validateValueValidation(clause, skipAnyOf, false, path);
  const items = itemsSchema(clause);
  if (items) errors.push(...validateNestedValueValidation(items, false, `${path}.items`));
  for (const [k, s] of schemaEntries(clause, "properties")) {
    errors.push(...validateNestedValueValidation(s, false, `${path}.properties[${k}]`));
  }
  // additionalProperties in a clause is forbidden (kube's AllowNestedAdditionalProperties is
  // false for CRDs), so there is nothing below it to check.
  for (const [key, has, detail] of NESTED_FORBIDDEN) {
    if (has(clause)) errors.push(fieldForbidden(`${path}.${key}`, detail));
  }
  if (isJsonObject(clause["properties"]) && "metadata" in clause["properties"]) {
    errors.push(
      fieldForbidden(`${path}.properties[metadata]`, "must not be specified in a nested context"),
    );
  }
  return errors;
}

/** Keys of a root `metadata` schema that NewStructural drops or the check clears. */
const METADATA_IGNORED = new Set(["type", "default", "example", "externalDocs"]);

/** Whether a root `metadata` schema specifies anything but `name` and `generateName`. */
function metadataSpecifiesMore(metadata: SchemaNode): boolean {
  for (const [key, value] of Object.entries(metadata)) {
    if (METADATA_IGNORED.has(key) || value === null) continue;
    if (key === "properties" && isJsonObject(value)) {
      const names = Object.keys(value);
      if (names.length === 0 || names.every((n) => n === "name" || n === "generateName")) continue;
      return true;
    }
    if (value === false || value === "") continue;
    if (Array.isArray(value) && value.length === 0 && key !== "required") continue;
    return true;
  }
  return false;
}

/** `validateStructuralMetadataInvariants`. */
function validateMetadataInvariants(
  metadata: SchemaNode,
  checkMetadata: boolean,
  level: SchemaLevel,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringField(metadata, "type");
  if (checkMetadata && type !== "object") {
    errors.push(fieldInvalid(`${path}.type`, type, "must be object"));
  }
  if (level === "root" && metadataSpecifiesMore(metadata)) {
    errors.push(
      fieldForbidden(
        path,
        "must not specify anything other than name and generateName, but metadata is implicitly specified",
      ),
    );
  }
  return errors;
}

/** The checks of a node's own keywords (type, extensions, embedded resources, type meta). */
function validateNodeRules(node: SchemaNode, level: SchemaLevel, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringField(node, "type");
  const intOrString = isTrue(node, "x-kubernetes-int-or-string");
  const preserve = isTrue(node, "x-kubernetes-preserve-unknown-fields");
  const embedded = isTrue(node, "x-kubernetes-embedded-resource");
  if (intOrString && preserve) {
    errors.push(
      fieldInvalid(
        `${path}.x-kubernetes-preserve-unknown-fields`,
        true,
        "must be false if x-kubernetes-int-or-string is true",
      ),
    );
  }
  if (intOrString && embedded) {
    errors.push(
      fieldInvalid(
        `${path}.x-kubernetes-embedded-resource`,
        true,
        "must be false if x-kubernetes-int-or-string is true",
      ),
    );
  }
  errors.push(
    ...validateValueValidation(node, isIntOrStringAnyOf(node), isIntOrStringAllOf(node), path),
  );
  const embeddedDetail = "must be object if x-kubernetes-embedded-resource is true";
  if (embedded && type !== "object") {
    errors.push(
      type === ""
        ? fieldRequired(`${path}.type`, embeddedDetail)
        : fieldInvalid(`${path}.type`, type, embeddedDetail),
    );
  } else if (type === "" && !intOrString && !preserve) {
    errors.push(fieldRequired(`${path}.type`, EMPTY_TYPE_DETAIL[level]));
  }
  if (embedded && isSet(node, "additionalProperties")) {
    errors.push(
      fieldForbidden(
        `${path}.additionalProperties`,
        "must not be used if x-kubernetes-embedded-resource is set",
      ),
    );
  }
  if (level === "root" && type !== "" && type !== "object") {
    errors.push(fieldInvalid(`${path}.type`, type, "must be object at the root"));
  }
  return errors;
}

/** The type meta and metadata rules of a resource root (the schema root or an embedded one). */
function validateResourceMeta(node: SchemaNode, level: SchemaLevel, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const checkMetadata = level === "root" || isTrue(node, "x-kubernetes-embedded-resource");
  const properties = new Map(schemaEntries(node, "properties"));
  for (const key of ["kind", "apiVersion"]) {
    const s = properties.get(key);
    if (s && checkMetadata && stringField(s, "type") !== "string") {
      errors.push(
        fieldInvalid(`${path}.properties[${key}].type`, stringField(s, "type"), "must be string"),
      );
    }
  }
  const metadata = properties.get("metadata");
  if (metadata) {
    errors.push(
      ...validateMetadataInvariants(metadata, checkMetadata, level, `${path}.properties[metadata]`),
    );
  }
  if (
    isTrue(node, "x-kubernetes-embedded-resource") &&
    !isTrue(node, "x-kubernetes-preserve-unknown-fields") &&
    properties.size === 0
  ) {
    errors.push(
      fieldRequired(
        `${path}.properties`,
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
      ),
    );
  }
  return errors;
}

/**
 * `validateStructuralInvariants` of `node` at `level`, recursively through `items`,
 * `properties` and `additionalProperties` (unsorted: the caller sorts as kube does).
 */
export function validateStructuralInvariants(
  node: SchemaNode,
  level: SchemaLevel,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const items = itemsSchema(node);
  if (stringField(node, "type") === "array" && !isSet(node, "items")) {
    errors.push(fieldRequired(`${path}.items`, "must be specified"));
  }
  if (items) errors.push(...validateStructuralInvariants(items, "items", `${path}.items`));
  for (const [k, s] of schemaEntries(node, "properties")) {
    errors.push(...validateStructuralInvariants(s, "field", `${path}.properties[${k}]`));
  }
  if (isSet(node, "additionalProperties")) {
    if (level === "root") {
      errors.push(fieldForbidden(`${path}.additionalProperties`, "must not be used at the root"));
    }
    const additional = schemaAt(node, "additionalProperties");
    if (additional) {
      errors.push(
        ...validateStructuralInvariants(additional, "field", `${path}.additionalProperties`),
      );
    }
  }
  errors.push(...validateNodeRules(node, level, path));
  errors.push(...validateResourceMeta(node, level, path));
  return errors;
}
