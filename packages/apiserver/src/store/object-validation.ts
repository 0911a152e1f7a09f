import type { JsonObject, FieldError } from "kubekit";
import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validatePathSegmentName,
  fieldInvalid,
  fieldRequired,
  fieldTooLong,
} from "kubekit/apimachinery";
import type { ResourcePolicy } from "../registry/resource-policy.js";

/** kube-apiserver's limit on the total size of annotations (256 KiB). */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function nameErrors(rule: ResourcePolicy["nameRule"], name: string): string[] {
  switch (rule) {
    case "label":
      return isDns1123Label(name);
    case "dns1035":
      return isDns1035Label(name);
    case "path-segment":
      return validatePathSegmentName(name);
    default:
      return isDns1123Subdomain(name);
  }
}

/**
 * Validates the client-settable parts of ObjectMeta as kube-apiserver's ValidateObjectMeta
 * does: name (by the type's rule), labels, annotations, finalizers. Returns field errors for
 * a 422 Invalid.
 */
export function validateObjectMeta(
  meta: JsonObject,
  policy: ResourcePolicy,
  namespaced: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const name = meta["name"];
  if (typeof name !== "string" || name === "") {
    errors.push(fieldRequired("metadata.name", "name or generateName is required"));
  } else {
    for (const msg of nameErrors(policy.nameRule, name))
      errors.push(fieldInvalid("metadata.name", name, msg));
  }
  if (namespaced) {
    const ns = meta["namespace"];
    if (typeof ns !== "string" || ns === "") errors.push(fieldRequired("metadata.namespace", ""));
  }
  const labels = meta["labels"];
  if (labels !== undefined && labels !== null) {
    if (typeof labels !== "object" || Array.isArray(labels)) {
      errors.push(fieldInvalid("metadata.labels", labels, "must be a map of strings"));
    } else {
      for (const [k, v] of Object.entries(labels)) {
        for (const msg of isQualifiedName(k)) errors.push(fieldInvalid("metadata.labels", k, msg));
        if (typeof v !== "string")
          errors.push(fieldInvalid(`metadata.labels`, v, "must be a string"));
        else
          for (const msg of isValidLabelValue(v))
            errors.push(fieldInvalid("metadata.labels", v, msg));
      }
    }
  }
  const annotations = meta["annotations"];
  if (annotations !== undefined && annotations !== null) {
    if (typeof annotations !== "object" || Array.isArray(annotations)) {
      errors.push(fieldInvalid("metadata.annotations", annotations, "must be a map of strings"));
    } else {
      let total = 0;
      for (const [k, v] of Object.entries(annotations)) {
        for (const msg of isQualifiedName(k.toLowerCase()))
          errors.push(fieldInvalid("metadata.annotations", k, msg));
        total += k.length + (typeof v === "string" ? v.length : 0);
      }
      if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
        errors.push(fieldTooLong("metadata.annotations", "", TOTAL_ANNOTATION_SIZE_LIMIT));
      }
    }
  }
  const finalizers = meta["finalizers"];
  if (Array.isArray(finalizers)) {
    finalizers.forEach((f, i) => {
      if (typeof f !== "string") {
        errors.push(fieldInvalid(`metadata.finalizers[${i}]`, f, "must be a string"));
        return;
      }
      for (const msg of isQualifiedName(f))
        errors.push(fieldInvalid(`metadata.finalizers[${i}]`, f, msg));
    });
  }
  return errors;
}
