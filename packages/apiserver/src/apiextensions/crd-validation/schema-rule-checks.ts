/**
 * The CEL side of a CRD schema's validation, from `apiextensions/cel/`: the compile, type and
 * cost errors of every `x-kubernetes-validations` rule, and the rules run on a default value as
 * kube's `ValidateDefaults` runs them (once with the default as its own old value, once as a
 * create, so that ratcheting cannot hide a failing rule).
 */
import { compileSchemaValidations } from "../cel/compile-schema-validations.js";
import { asSchemaProps, hasEntries, schemaHas } from "../structural/schema-node.js";
import type { SchemaRuleChecks } from "./schema-validation.js";

/** The CEL checks a CRD's schemas go through. */
export const celSchemaRuleChecks: SchemaRuleChecks = {
  compile: (schema, basePath) =>
    compileSchemaValidations(asSchemaProps(schema), { basePath }).errors,
  checkDefault: (node, value, path) => {
    if (!schemaHas(node, (s) => hasEntries(s, "x-kubernetes-validations"))) return [];
    // Compile errors were reported on the rules themselves; the rules that compiled run here.
    const { validator } = compileSchemaValidations(asSchemaProps(node));
    return [
      ...validator.validate(value, value, path),
      ...validator.validate(value, undefined, path),
    ];
  },
};
