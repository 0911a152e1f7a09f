/**
 * One CustomResourceValidation of a CRD (a version's `schema`, or the shared one kube names
 * `spec.validation`) checked as `validateCustomResourceDefinitionValidation` in
 * apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go` checks it: the root
 * restrictions of the status subresource, the structural-schema rules, the defaults, the
 * walk over every node, then the CEL rules compiled against the schema.
 *
 * As kube, the rules of a node are not compiled (their errors not reported) when the walk found
 * a schema error at that node or below it: a broken schema would only produce confusing CEL
 * errors.
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldForbidden, fieldInvalid } from "kubekit/apimachinery";
import { isTrue, type SchemaNode } from "../structural/schema-node.js";
import { structuralConversionError } from "../structural/structural-conversion.js";
import { validateStructural } from "../structural/validate-structural.js";
import { validateSchemaDefaults, type DefaultRuleCheck } from "./default-validation.js";
import { openAPIV3SchemaOf } from "./internal-spec.js";
import { rootContext, walkSchema } from "./openapi-schema-validation.js";
import { validateStatusEnabledRoot } from "./status-root-rule.js";
import type { CrdValidationOptions } from "./validation-options.js";

/** The CEL side of a schema's checks (lane of `apiextensions/cel/`), injected by the caller. */
export interface SchemaRuleChecks {
  /** The compile, type-check and cost errors of every rule in `schema`, paths under `basePath`. */
  readonly compile: (schema: SchemaNode, basePath: string) => FieldError[];
  /** The rule errors of a default value at its node. */
  readonly checkDefault: DefaultRuleCheck;
}

/** The structural checks: conversion errors (kept apart, as kube does), then rules and defaults. */
function structuralChecks(
  schema: SchemaNode,
  path: string,
  opts: CrdValidationOptions,
  rules: SchemaRuleChecks,
): { errors: FieldError[]; initErrors: FieldError[]; celReady: boolean } {
  const conversion = structuralConversionError(schema);
  if (conversion !== undefined) {
    return { errors: [], initErrors: [fieldInvalid(path, "", conversion)], celReady: false };
  }
  const structural = validateStructural(schema, path);
  if (structural.length > 0) return { errors: structural, initErrors: [], celReady: false };
  const defaults = validateSchemaDefaults(
    schema,
    path,
    opts.requirePrunedDefaults,
    rules.checkDefault,
  );
  return { errors: defaults, initErrors: [], celReady: defaults.length === 0 };
}

/** Whether `path` is `node` or a path below it. */
function isWithin(path: string, node: string): boolean {
  return path === node || path.startsWith(`${node}.`) || path.startsWith(`${node}[`);
}

/**
 * The CEL errors of the nodes without schema errors at or below them. An error that belongs to
 * no rule (the schema's total cost) stays only when there is no schema error at all.
 */
function celErrorsOutside(celErrors: FieldError[], schemaErrors: FieldError[]): FieldError[] {
  return celErrors.filter((e) => {
    const at = e.field.indexOf(".x-kubernetes-validations[");
    if (at < 0) return schemaErrors.length === 0;
    const node = e.field.slice(0, at);
    return !schemaErrors.some((s) => isWithin(s.field, node));
  });
}

/**
 * The errors of the CustomResourceValidation `validation` at `path` (`spec.validation` or
 * `spec.versions[i].schema`); `statusEnabled` when the status subresource applies to it.
 */
export function validateCustomResourceValidation(
  validation: JsonObject | undefined,
  statusEnabled: boolean,
  opts: CrdValidationOptions,
  path: string,
  rules: SchemaRuleChecks,
): FieldError[] {
  const schema = openAPIV3SchemaOf(validation);
  if (!schema) return [];
  const schemaPath = `${path}.openAPIV3Schema`;
  const errors: FieldError[] = [];
  if (statusEnabled) errors.push(...validateStatusEnabledRoot(schema, path));
  if (isTrue(schema, "nullable")) {
    errors.push(fieldForbidden(`${schemaPath}.nullable`, "nullable cannot be true at the root"));
  }
  let initErrors: FieldError[] = [];
  let celReady = false;
  if (opts.requireStructuralSchema) {
    const checked = structuralChecks(schema, schemaPath, opts, rules);
    errors.push(...checked.errors);
    initErrors = checked.initErrors;
    celReady = checked.celReady;
  }
  const walked = walkSchema(schema, rootContext(opts), true, schemaPath, opts);
  errors.push(...walked);
  if (celReady) errors.push(...celErrorsOutside(rules.compile(schema, schemaPath), walked));
  // NewStructural's errors overlap the walk's: kube shows them only when nothing else failed.
  if (errors.length === 0) errors.push(...initErrors);
  return errors;
}
