/**
 * The recursive walk of `ValidateCustomResourceDefinitionOpenAPISchema` (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`) over a CRD version's schema: each node's
 * keywords and extensions, `uniqueItems`, `additionalProperties` next to `properties`, defaults
 * forbidden in top-level metadata and inside metadata maps, and the static checks of
 * `x-kubernetes-validations`. CEL compilation is the caller's, after this walk found nothing.
 */
import type { FieldError } from "kubekit";
import { fieldForbidden, isJsonObject } from "kubekit/apimachinery";
import {
  hasEntries,
  isTrue,
  schemaAt,
  schemaEntries,
  schemaList,
  type SchemaNode,
} from "../structural/schema-node.js";
import {
  validateExtensionKeywords,
  validateMapListKeysMapSet,
  validateNodeKeywords,
  type NodeContext,
} from "./schema-keyword-rules.js";
import { validateValidationRuleFields } from "./validation-rule-fields.js";

/** The options of the walk that depend on create vs update (kube's `validationOptions`). */
export interface SchemaWalkOptions {
  readonly requireValidPropertyType: boolean;
  readonly requireAtomicSetType: boolean;
  readonly requireMapListKeysMapSetValidation: boolean;
}

const META_FIELDS = new Set(["metadata", "kind", "apiVersion"]);

function withForbiddenDefaults(ctx: NodeContext, reason: string): NodeContext {
  return { ...ctx, allowDefaults: false, disallowDefaultsReason: reason };
}

/** `additionalProperties` next to `properties`, and the walk below `additionalProperties`. */
function walkAdditionalProperties(
  node: SchemaNode,
  ctx: NodeContext,
  path: string,
  opts: SchemaWalkOptions,
): FieldError[] {
  const additional = node["additionalProperties"];
  if (additional === undefined || additional === null) return [];
  const errors: FieldError[] = [];
  if (hasEntries(node, "properties") && (additional === false || isJsonObject(additional))) {
    errors.push(
      fieldForbidden(
        `${path}.additionalProperties`,
        "additionalProperties and properties are mutual exclusive",
      ),
    );
  }
  if (isJsonObject(additional)) {
    // Defaults inside a map applying to metadata would make pruning ambiguous.
    const sub = ctx.insideResourceMeta
      ? withForbiddenDefaults(ctx, "inside additionalProperties applying to object metadata")
      : ctx;
    errors.push(...walkSchema(additional, sub, false, `${path}.additionalProperties`, opts));
  }
  return errors;
}

/** The walk into `properties`, `not`, the junctors, `definitions`, `items`, `dependencies`. */
function walkChildren(
  node: SchemaNode,
  ctx: NodeContext,
  isRoot: boolean,
  path: string,
  opts: SchemaWalkOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  const resourceRoot = isRoot || isTrue(node, "x-kubernetes-embedded-resource");
  for (const [k, s] of schemaEntries(node, "properties")) {
    let sub = ctx;
    if (resourceRoot && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${k}`);
    }
    errors.push(...walkSchema(s, sub, false, `${path}.properties[${k}]`, opts));
  }
  const not = schemaAt(node, "not");
  if (not) errors.push(...walkSchema(not, ctx, false, `${path}.not`, opts));
  for (const key of ["allOf", "oneOf", "anyOf"]) {
    schemaList(node, key).forEach((s, i) =>
      errors.push(...walkSchema(s, ctx, false, `${path}.${key}[${i}]`, opts)),
    );
  }
  for (const [k, s] of schemaEntries(node, "definitions")) {
    errors.push(...walkSchema(s, ctx, false, `${path}.definitions[${k}]`, opts));
  }
  const items = node["items"];
  if (isJsonObject(items)) errors.push(...walkSchema(items, ctx, false, `${path}.items`, opts));
  else if (Array.isArray(items)) {
    items.forEach((s, i) => {
      if (isJsonObject(s)) errors.push(...walkSchema(s, ctx, false, `${path}.items[${i}]`, opts));
    });
  }
  for (const [k, s] of schemaEntries(node, "dependencies")) {
    errors.push(...walkSchema(s, ctx, false, `${path}.dependencies[${k}]`, opts));
  }
  return errors;
}

/**
 * The schema errors of `node` and everything below it, in kube's order. `isRoot` marks the
 * `openAPIV3Schema` root (where `metadata`, `kind` and `apiVersion` take no defaults).
 */
export function walkSchema(
  node: SchemaNode,
  ctx: NodeContext,
  isRoot: boolean,
  path: string,
  opts: SchemaWalkOptions,
): FieldError[] {
  const errors = validateNodeKeywords(node, ctx, path);
  if (isTrue(node, "uniqueItems")) {
    errors.push(
      fieldForbidden(
        `${path}.uniqueItems`,
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
      ),
    );
  }
  errors.push(...walkAdditionalProperties(node, ctx, path, opts));
  errors.push(...walkChildren(node, ctx, isRoot, path, opts));
  errors.push(...validateExtensionKeywords(node, path, opts.requireAtomicSetType));
  if (opts.requireMapListKeysMapSetValidation) {
    errors.push(...validateMapListKeysMapSet(node, path));
  }
  errors.push(...validateValidationRuleFields(node, path));
  return errors;
}

/** The context at the schema root. */
export function rootContext(opts: SchemaWalkOptions): NodeContext {
  return {
    allowDefaults: true,
    disallowDefaultsReason: "",
    insideResourceMeta: false,
    requireValidPropertyType: opts.requireValidPropertyType,
  };
}
