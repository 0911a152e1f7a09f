/**
 * The defaults of a structural CRD schema checked as kube's `ValidateDefaults` checks them
 * (apiextensions-apiserver `pkg/apiserver/schema/defaulting/validation.go`): each `default`
 * must be pruned already (no field the schema would drop), valid against its own node's
 * schema, and pass the node's `x-kubernetes-validations` rules. The schema root is treated as
 * a resource root, as kube does.
 *
 * Permissive: a default inside the `metadata`, `apiVersion` or `kind` of an embedded resource
 * is validated against its schema only (kube also checks the metadata it would produce).
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { deepEqual, fieldInvalid, isJsonObject } from "kubekit/apimachinery";
import { pruneUnknownFields } from "../pruning/prune-unknown-fields.js";
import {
  asSchemaProps,
  isSet,
  isTrue,
  itemsSchema,
  schemaEntries,
  type SchemaNode,
} from "../structural/schema-node.js";
import { validateSchemaValue } from "../validation/validate-schema-value.js";

/** Runs a node's CEL rules on a default value; `[]` when the node has none. */
export type DefaultRuleCheck = (node: SchemaNode, value: JsonValue, path: string) => FieldError[];

const META_FIELDS = new Set(["metadata", "kind", "apiVersion"]);

/** Whether pruning `value` with `node` would drop a field. */
function hasUnknownFields(value: JsonValue, node: SchemaNode): boolean {
  if (isTrue(node, "x-kubernetes-embedded-resource") && isJsonObject(value)) {
    return !deepEqual(
      pruneUnknownFields(value, asSchemaProps(node), { isResourceRoot: true }).value,
      value,
    );
  }
  // Any value (a list, a scalar) is pruned as the one property of a wrapping object.
  const wrapper: JsonObject = { type: "object", properties: { v: node } };
  const pruned = pruneUnknownFields({ v: value }, asSchemaProps(wrapper)).value;
  return !deepEqual(pruned["v"], value);
}

/** The errors of the default of `node` itself. */
function validateDefault(
  node: SchemaNode,
  insideMeta: boolean,
  path: string,
  requirePruned: boolean,
  celCheck: DefaultRuleCheck,
): FieldError[] {
  const value = node["default"] as JsonValue;
  const defaultPath = `${path}.default`;
  const embedded = isTrue(node, "x-kubernetes-embedded-resource");
  const errors: FieldError[] = [];
  if (!insideMeta && requirePruned && hasUnknownFields(value, node)) {
    errors.push(fieldInvalid(defaultPath, value, "must not have unknown fields"));
  }
  const schemaErrors = validateSchemaValue(value, asSchemaProps(node), defaultPath, {
    isResourceRoot: embedded && !insideMeta,
  });
  if (schemaErrors.length > 0) return [...errors, ...schemaErrors];
  return [...errors, ...celCheck(node, value, defaultPath)];
}

function walk(
  node: SchemaNode,
  insideMeta: boolean,
  path: string,
  requirePruned: boolean,
  celCheck: DefaultRuleCheck,
): FieldError[] {
  const embedded = isTrue(node, "x-kubernetes-embedded-resource");
  const inMeta = embedded ? false : insideMeta;
  const errors = isSet(node, "default")
    ? validateDefault(node, inMeta, path, requirePruned, celCheck)
    : [];
  // additionalProperties are not followed: defaults are forbidden there.
  const items = itemsSchema(node);
  if (items) errors.push(...walk(items, inMeta, `${path}.items`, requirePruned, celCheck));
  for (const [k, s] of schemaEntries(node, "properties")) {
    const sub = embedded && META_FIELDS.has(k) ? true : inMeta;
    errors.push(...walk(s, sub, `${path}.properties[${k}]`, requirePruned, celCheck));
  }
  return errors;
}

/**
 * The default errors of the structural schema `root` (a version's `openAPIV3Schema`) at
 * `path`. `requirePruned` is false only on updates of a CRD stored with unpruned defaults.
 */
export function validateSchemaDefaults(
  root: SchemaNode,
  path: string,
  requirePruned: boolean,
  celCheck: DefaultRuleCheck,
): FieldError[] {
  const asResource: SchemaNode = { ...root, "x-kubernetes-embedded-resource": true };
  return walk(asResource, false, path, requirePruned, celCheck);
}
