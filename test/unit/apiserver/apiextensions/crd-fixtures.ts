/**
 * What the CRD validation tests share: a v1 CustomResourceDefinition built around one schema,
 * run through the strategy's create (prepare, defaults) as the server runs it, and its field
 * errors as kube-apiserver prints them.
 */
import type { JsonObject } from "kubekit";
import { validateCustomResourceDefinition } from "../../../../packages/apiserver/src/apiextensions/crd-validation/validate-crd.js";
import { customResourceDefinitionStrategy } from "../../../../packages/apiserver/src/kinds/custom-resource-definition.js";
import { formatFieldError } from "../../../../packages/kubekit/src/core/field-errors.js";

/** A CRD `widgets.example.com` with one version v1 whose schema is `schema` (none if undefined). */
export function crdWithSchema(schema: JsonObject | undefined, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          ...(schema === undefined ? {} : { schema: { openAPIV3Schema: schema } }),
        },
      ],
      ...spec,
    },
  };
}

/** A root schema with one property `spec` of schema `spec`. */
export function withSpec(spec: JsonObject): JsonObject {
  return { type: "object", properties: { spec } };
}

/** The CRD as the server would store it on create (prepared and defaulted). */
export function prepared(crd: JsonObject): JsonObject {
  const s = customResourceDefinitionStrategy;
  const obj = s.prepareForCreate ? s.prepareForCreate(crd) : crd;
  return s.applyDefaults ? s.applyDefaults(obj) : obj;
}

/** The create errors of `crd`, as kube prints them. */
export function createErrors(crd: JsonObject): string[] {
  return validateCustomResourceDefinition(prepared(crd)).map(formatFieldError);
}

/** The update errors of `next` over the stored `old`. */
export function updateErrors(next: JsonObject, old: JsonObject): string[] {
  return validateCustomResourceDefinition(next, old).map(formatFieldError);
}

/** The create errors of a CRD whose only version has the root schema `schema`. */
export function schemaErrors(schema: JsonObject, spec: JsonObject = {}): string[] {
  return createErrors(crdWithSchema(schema, spec));
}

/** The path prefix of a schema shared by every version (kube's internal `spec.validation`). */
export const ROOT = "spec.validation.openAPIV3Schema";
