/**
 * One CustomResourceDefinition version's schema, compiled once when the CRD is served
 * (kube-apiserver builds the same per version in
 * `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go`
 * getOrCreateServingInfoFor): what the write path does with a custom resource of that
 * version (pruning, defaulting, OpenAPI validation, list-type invariants, CEL rules), what
 * server-side apply sees of its structure, and its selectable fields.
 */
import { newInternalError, type FieldError, type JsonObject, type JsonValue } from "kubekit";
import { fieldInvalid, isJsonObject } from "kubekit/apimachinery";
import type { StructShape } from "../apply/field-shape.js";
import { compileSchemaValidations } from "./cel/compile-schema-validations.js";
import type { SchemaCelValidator } from "./cel/schema-cel-validator.js";
import { applySchemaDefaults } from "./defaulting/apply-schema-defaults.js";
import { customResourceApplyShape } from "./list-types/schema-apply-shape.js";
import { validateListTypes } from "./list-types/validate-list-types.js";
import { pruneUnknownFields, type PruneResult } from "./pruning/prune-unknown-fields.js";
import type { JSONSchemaProps } from "./schema-props.js";
import { validateSchemaValue } from "./validation/validate-schema-value.js";

/** A field a field selector may name (`spec.versions[].selectableFields[].jsonPath`). */
export interface SelectableField {
  /** The field selector's name for it: the JSON path without its leading dot (`spec.color`). */
  readonly name: string;
  /** The path's steps from the object's root. */
  readonly steps: readonly string[];
}

/**
 * Field error types after which kube does not run the CEL rules (`hasBlockingErr` in
 * `pkg/registry/customresource/strategy.go`): the value may not have the schema's types.
 */
const BLOCKING_TYPES: ReadonlySet<FieldError["type"]> = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

/** What kube adds instead of the CEL errors when the object has a blocking error. */
const CEL_SKIPPED: FieldError = fieldInvalid(
  "<nil>",
  "null",
  "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
);

function hasDefaults(schema: JsonValue): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (!isJsonObject(schema)) return false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === "default" || hasDefaults(v)) return true;
  }
  return false;
}

/** What the write path runs of a version's CEL rules. */
type CompiledRules = Pick<SchemaCelValidator, "validate">;

/**
 * The version's CEL rules (undefined without any). Rules that do not compile are the CRD
 * validation's 422 and are left out here. A schema the compiler cannot read at all (one the
 * CRD validation should have refused) makes every write a 500, as kube-apiserver answers
 * when it cannot build a CRD's serving info.
 */
function compileRules(schema: JSONSchemaProps): CompiledRules | undefined {
  let rules: SchemaCelValidator;
  try {
    rules = compileSchemaValidations(schema).validator;
  } catch {
    return UNSERVABLE;
  }
  return rules.ruleCount > 0 ? rules : undefined;
}

/** Stands for the rules of a schema that could not be compiled: every validation fails. */
const UNSERVABLE: CompiledRules = {
  validate(): FieldError[] {
    throw newInternalError("the server could not properly serve the CR schema");
  },
};

function selectableFieldsOf(version: JsonObject): SelectableField[] {
  const list = version["selectableFields"];
  if (!Array.isArray(list)) return [];
  const out: SelectableField[] = [];
  for (const item of list) {
    const path = isJsonObject(item) ? item["jsonPath"] : undefined;
    if (typeof path !== "string") continue;
    const name = path.startsWith(".") ? path.slice(1) : path;
    out.push({ name, steps: name.split(".") });
  }
  return out;
}

/**
 * A CRD version's compiled schema. Without a schema (`x-kubernetes-preserve-unknown-fields`
 * CRDs of old, or a version the CRD validation let through without one) every method
 * accepts the object as it is.
 */
export class CustomResourceSchema {
  /** The version's name (`v1`). */
  readonly version: string;
  /** The version's `schema.openAPIV3Schema`, as the CRD carries it (the OpenAPI documents read it). */
  readonly schema: JSONSchemaProps | undefined;
  /** How server-side apply sees the structure of an object of this version. */
  readonly applyShape: StructShape;
  /** The version's selectable fields, in the CRD's order. */
  readonly selectableFields: readonly SelectableField[];
  readonly #statusSchema: JSONSchemaProps | undefined;
  readonly #hasDefaults: boolean;
  /** The version's `x-kubernetes-validations` rules, compiled once; undefined when it has none. */
  readonly #rules: CompiledRules | undefined;

  private constructor(version: string, schema: JSONSchemaProps | undefined, spec: JsonObject) {
    this.version = version;
    this.schema = schema;
    this.applyShape = customResourceApplyShape(schema);
    this.selectableFields = selectableFieldsOf(spec);
    const status = schema?.properties?.["status"];
    this.#statusSchema = status;
    this.#hasDefaults = schema !== undefined && hasDefaults(schema as JsonValue);
    this.#rules = schema ? compileRules(schema) : undefined;
  }

  /**
   * Compiles the version `versionSpec` (one item of `spec.versions`) of a CRD; the
   * top-level `spec.validation` of old CRDs is not read (apiextensions.k8s.io/v1 has none).
   */
  static compile(versionSpec: JsonObject): CustomResourceSchema {
    const holder = versionSpec["schema"];
    const raw = isJsonObject(holder) ? holder["openAPIV3Schema"] : undefined;
    const schema = isJsonObject(raw) ? (raw as JSONSchemaProps) : undefined;
    return new CustomResourceSchema(String(versionSpec["name"] ?? ""), schema, versionSpec);
  }

  /**
   * The object without the fields the schema does not specify, and their paths as kube's
   * `unknown field "…"` prints them (kube prunes on every decode: request bodies and storage).
   */
  prune(obj: JsonObject): PruneResult {
    if (!this.schema) return { value: obj, unknownFields: [] };
    return pruneUnknownFields(obj, this.schema, { isResourceRoot: true });
  }

  /** The object with the schema's defaults applied (a copy when something was defaulted). */
  applyDefaults(obj: JsonObject): JsonObject {
    if (!this.schema || !this.#hasDefaults) return obj;
    const out = applySchemaDefaults(obj, this.schema);
    return isJsonObject(out) ? out : obj;
  }

  /**
   * The errors of a write of the main resource (`old` undefined on create): OpenAPI
   * validation of the whole object, the list-type invariants (checked on an update only
   * when the old object met them, kube's ratcheting), then the CEL rules unless an earlier
   * error is blocking.
   */
  validate(obj: JsonObject, old: JsonObject | undefined): FieldError[] {
    if (!this.schema) return [];
    // An update ratchets (KEP-4008, on by default since 1.30): a value unchanged from the
    // stored object is not refused for rules it already broke.
    const errors = validateSchemaValue(obj, this.schema, "", {
      isResourceRoot: true,
      ...(old ? { oldValue: old } : {}),
    });
    errors.push(...this.#listTypeErrors(obj, old));
    return this.#withRules(errors, obj, old);
  }

  /**
   * The errors of a `/status` write: the status against the status schema (at `status`),
   * the list-type invariants and the CEL rules of the whole object.
   */
  validateStatus(obj: JsonObject, old: JsonObject): FieldError[] {
    if (!this.schema) return [];
    const status = obj["status"];
    const errors =
      this.#statusSchema && status !== undefined
        ? validateSchemaValue(status, this.#statusSchema, "status", {
            ...(old?.["status"] !== undefined ? { oldValue: old["status"] } : {}),
          })
        : [];
    errors.push(...this.#listTypeErrors(obj, old));
    return this.#withRules(errors, obj, old);
  }

  /** The values of the selectable fields in `obj`, as field selectors compare them. */
  selectableValues(obj: JsonObject): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of this.selectableFields) {
      let cur: JsonValue | undefined = obj;
      for (const step of f.steps) cur = isJsonObject(cur) ? cur[step] : undefined;
      out[f.name] =
        typeof cur === "string" || typeof cur === "number" || typeof cur === "boolean"
          ? String(cur)
          : "";
    }
    return out;
  }

  #listTypeErrors(obj: JsonObject, old: JsonObject | undefined): FieldError[] {
    const schema = this.schema;
    if (!schema) return [];
    if (old !== undefined && validateListTypes(old, schema).length > 0) return [];
    return validateListTypes(obj, schema);
  }

  /**
   * The CEL rules' errors after `errors` (transition rules see `old`); kube does not run the
   * rules after a blocking error, and says so.
   */
  #withRules(errors: FieldError[], obj: JsonObject, old: JsonObject | undefined): FieldError[] {
    const rules = this.#rules;
    if (!rules) return errors;
    if (errors.some((e) => BLOCKING_TYPES.has(e.type))) return [...errors, CEL_SKIPPED];
    return [...errors, ...rules.validate(obj, old)];
  }
}
