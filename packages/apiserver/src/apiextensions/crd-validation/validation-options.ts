/**
 * What a CRD's validation requires, on create and on update (kube's `validationOptions` in
 * apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`). An update only
 * tightens a rule the stored CRD already met, so that a CRD accepted under looser rules stays
 * updatable ("don't tighten validation on existing persisted data").
 */
import type { JsonObject } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import {
  isSet,
  itemsSchema,
  schemaHas,
  stringField,
  type SchemaNode,
} from "../structural/schema-node.js";
import { isNonStructural } from "../structural/validate-structural.js";
import { openAPIV3SchemaOf, schemaRootsOf, type InternalSpec } from "./internal-spec.js";
import { isValidCABundle } from "./ca-bundle.js";
import { validateMapListKeysMapSet } from "./schema-keyword-rules.js";
import type { SchemaWalkOptions } from "./openapi-schema-validation.js";

/** The switches of one validation run. */
export interface CrdValidationOptions extends SchemaWalkOptions {
  readonly requireRecognizedConversionReviewVersion: boolean;
  /** scope and names.kind are immutable once the CRD is Established. */
  readonly requireImmutableNames: boolean;
  readonly requireOpenAPISchema: boolean;
  readonly requireStructuralSchema: boolean;
  readonly requirePrunedDefaults: boolean;
  /** An invalid conversion caBundle is accepted (on create, and until the CRD is Established). */
  readonly allowInvalidCABundle: boolean;
}

/** The options of a create: every rule applies. */
export const CREATE_OPTIONS: CrdValidationOptions = {
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
  requireOpenAPISchema: true,
  requireValidPropertyType: true,
  requireStructuralSchema: true,
  requirePrunedDefaults: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
  allowInvalidCABundle: true,
};

const OPENAPI_V3_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/** A `set` list with items that are not atomic (kube's `hasNonAtomicSetType`). */
function hasNonAtomicSetType(s: SchemaNode): boolean {
  const items = itemsSchema(s);
  if (s["x-kubernetes-list-type"] !== "set" || !items) return false;
  switch (stringField(items, "type")) {
    case "array":
      return isSet(items, "x-kubernetes-list-type") && items["x-kubernetes-list-type"] !== "atomic";
    case "object":
      return items["x-kubernetes-map-type"] !== "atomic";
    default:
      return false;
  }
}

function anySchemaHas(spec: InternalSpec, pred: (s: SchemaNode) => boolean): boolean {
  return schemaRootsOf(spec).some((root) => schemaHas(root, pred));
}

/** kube's `allVersionsSpecifyOpenAPISchema`. */
function allVersionsSpecifySchema(spec: InternalSpec): boolean {
  if (openAPIV3SchemaOf(spec.validation)) return true;
  return spec.versions.every((v) => openAPIV3SchemaOf(v.schema) !== undefined);
}

/** Whether the condition `type` of a CRD's status is True (kube's `IsCRDConditionTrue`). */
export function isConditionTrue(crd: JsonObject, type: string): boolean {
  const status = crd["status"];
  const conditions = isJsonObject(status) ? status["conditions"] : undefined;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isJsonObject(c) && c["type"] === type && c["status"] === "True")
  );
}

/** Whether old conversion review versions are empty or include one kube recognizes. */
function hasValidConversionReviewVersionOrEmpty(oldSpec: InternalSpec): boolean {
  const webhook = oldSpec.conversion?.["webhook"];
  const versions = isJsonObject(webhook) ? webhook["conversionReviewVersions"] : undefined;
  if (!Array.isArray(versions) || versions.length === 0) return true;
  return versions.some((v) => v === "v1" || v === "v1beta1");
}

/** The conversion webhook's caBundle, `""` when none. */
export function caBundleOf(spec: InternalSpec): string {
  const webhook = spec.conversion?.["webhook"];
  const config = isJsonObject(webhook) ? webhook["clientConfig"] : undefined;
  const bundle = isJsonObject(config) ? config["caBundle"] : undefined;
  return typeof bundle === "string" ? bundle : "";
}

/** The options of an update of the stored `oldCrd` (with its internal spec `oldSpec`). */
export function updateOptions(oldCrd: JsonObject, oldSpec: InternalSpec): CrdValidationOptions {
  return {
    requireRecognizedConversionReviewVersion: hasValidConversionReviewVersionOrEmpty(oldSpec),
    requireImmutableNames: isConditionTrue(oldCrd, "Established"),
    requireOpenAPISchema: allVersionsSpecifySchema(oldSpec),
    requireValidPropertyType: !anySchemaHas(oldSpec, (s) => {
      const t = stringField(s, "type");
      return t !== "" && !OPENAPI_V3_TYPES.has(t);
    }),
    requireStructuralSchema: !schemaRootsOf(oldSpec).some(isNonStructural),
    // kube also relaxes this when the stored defaults were unpruned; kubekit's stored CRDs
    // passed this check when they were written.
    requirePrunedDefaults: true,
    requireAtomicSetType: !anySchemaHas(oldSpec, hasNonAtomicSetType),
    // kube's allowInvalidCABundle: an Established CRD keeps an invalid bundle only if it had one.
    allowInvalidCABundle:
      !isConditionTrue(oldCrd, "Established") ||
      (caBundleOf(oldSpec) !== "" && !isValidCABundle(caBundleOf(oldSpec))),
    requireMapListKeysMapSetValidation: !anySchemaHas(
      oldSpec,
      (s) => validateMapListKeysMapSet(s, "").length > 0,
    ),
  };
}
