/**
 * Completeness of a structural schema (`validateStructuralCompleteness` in apiextensions-apiserver
 * `pkg/apiserver/schema/complete.go`): every field or array a value validation (`allOf`,
 * `anyOf`, `oneOf`, `not`) mentions must also be specified in the structural part of the
 * schema, so that each value validation applies to a value of a known shape.
 */
import type { FieldError } from "kubekit";
import { fieldRequired } from "kubekit/apimachinery";
import {
  itemsSchema,
  schemaAt,
  schemaEntries,
  schemaList,
  type SchemaNode,
} from "./schema-node.js";

/** The junctor clauses of `node` with the path segment of each. */
function clausesOf(node: SchemaNode): [string, SchemaNode][] {
  const out: [string, SchemaNode][] = [];
  const not = schemaAt(node, "not");
  if (not) out.push(["not", not]);
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    schemaList(node, key).forEach((c, i) => out.push([`${key}[${i}]`, c]));
  }
  return out;
}

/** `validateNestedValueValidationCompleteness` of `clause` against the structural `node`. */
function nestedCompleteness(
  clause: SchemaNode,
  node: SchemaNode | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (!node) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errors = valueValidationCompleteness(clause, node, sPath, vPath);
  const items = itemsSchema(clause);
  if (items) {
    errors.push(
      ...nestedCompleteness(items, itemsSchema(node), `${sPath}.items`, `${vPath}.items`),
    );
  }
  const structural = new Map(schemaEntries(node, "properties"));
  for (const [k, s] of schemaEntries(clause, "properties")) {
    const sPathK = `${sPath}.properties[${k}]`;
    const vPathK = `${vPath}.properties[${k}]`;
    const field = structural.get(k);
    if (!field) errors.push(fieldRequired(sPathK, `because it is defined in ${vPathK}`));
    else errors.push(...nestedCompleteness(s, field, sPathK, vPathK));
  }
  return errors;
}

/** `validateValueValidationCompleteness`: the clauses of `valueNode` against `node`. */
function valueValidationCompleteness(
  valueNode: SchemaNode,
  node: SchemaNode,
  sPath: string,
  vPath: string,
): FieldError[] {
  return clausesOf(valueNode).flatMap(([segment, clause]) =>
    nestedCompleteness(clause, node, sPath, `${vPath}.${segment}`),
  );
}

/** The completeness errors of the structural schema `node` at `path` (unsorted). */
export function validateStructuralCompleteness(node: SchemaNode, path: string): FieldError[] {
  return valueValidationCompleteness(node, node, path, path);
}
