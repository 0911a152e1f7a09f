/**
 * The static checks of `x-kubernetes-validations` entries, before any CEL is compiled
 * (`ValidateCustomResourceDefinitionOpenAPISchema` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`): a rule is given, a message has no line
 * breaks, a multi-line rule has a message, the reason is one kube supports and the fieldPath
 * resolves in the node's schema.
 */
import type { FieldError } from "kubekit";
import { fieldInvalid, fieldNotSupported, fieldRequired, isJsonObject } from "kubekit/apimachinery";
import { resolveFieldPath } from "../structural/field-path.js";
import type { SchemaNode } from "../structural/schema-node.js";

/** The reasons a rule may name (kube's `supportedValidationReason`, sorted). */
const SUPPORTED_REASONS = [
  "FieldValueDuplicate",
  "FieldValueForbidden",
  "FieldValueInvalid",
  "FieldValueRequired",
];

/** Line breaks as the CEL grammar knows them (kube's `newlineMatcher`). */
function hasNewlines(s: string): boolean {
  return /[\n\r]/.test(s);
}

function stringOf(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * kube's `pathValid`: a fieldPath resolves in the node's schema. (kube skips the check for a
 * node that is not structural; such a schema is refused anyway, so kubekit resolves the path
 * in the node as given and keeps the check linear in the path.)
 */
function pathValid(node: SchemaNode, fieldPath: string): boolean {
  return !("error" in resolveFieldPath(fieldPath, node));
}

/** The message and rule checks of one entry (kube's if/else chain). */
function ruleAndMessage(rule: Record<string, unknown>, path: string): FieldError[] {
  const trimmedRule = stringOf(rule["rule"]).trim();
  const message = stringOf(rule["message"]);
  const trimmedMsg = message.trim();
  if (trimmedRule.length === 0) return [fieldRequired(`${path}.rule`, "rule is not specified")];
  if (message.length > 0 && trimmedMsg.length === 0) {
    return [fieldInvalid(`${path}.message`, message, "message must be non-empty if specified")];
  }
  if (hasNewlines(trimmedMsg)) {
    return [fieldInvalid(`${path}.message`, message, "message must not contain line breaks")];
  }
  if (hasNewlines(trimmedRule) && trimmedMsg.length === 0) {
    return [
      fieldRequired(`${path}.message`, "message must be specified if rule contains line breaks"),
    ];
  }
  return [];
}

/** The static errors of the `x-kubernetes-validations` of `node` at `path`. */
export function validateValidationRuleFields(node: SchemaNode, path: string): FieldError[] {
  const rules = node["x-kubernetes-validations"];
  if (!Array.isArray(rules)) return [];
  const errors: FieldError[] = [];
  rules.forEach((rule, i) => {
    if (!isJsonObject(rule)) return;
    const rulePath = `${path}.x-kubernetes-validations[${i}]`;
    errors.push(...ruleAndMessage(rule, rulePath));
    const messageExpression = stringOf(rule["messageExpression"]);
    if (messageExpression.length > 0 && messageExpression.trim().length === 0) {
      errors.push(
        fieldRequired(
          `${rulePath}.messageExpression`,
          "messageExpression must be non-empty if specified",
        ),
      );
    }
    const reason = rule["reason"];
    if (typeof reason === "string" && !SUPPORTED_REASONS.includes(reason)) {
      errors.push(fieldNotSupported(`${rulePath}.reason`, reason, SUPPORTED_REASONS));
    }
    const fieldPath = stringOf(rule["fieldPath"]);
    if (fieldPath.length > 0 && fieldPath.trim().length === 0) {
      errors.push(
        fieldInvalid(
          `${rulePath}.fieldPath`,
          fieldPath,
          "fieldPath must be non-empty if specified",
        ),
      );
    }
    if (hasNewlines(fieldPath)) {
      errors.push(
        fieldInvalid(`${rulePath}.fieldPath`, fieldPath, "fieldPath must not contain line breaks"),
      );
    }
    if (fieldPath.length > 0 && !pathValid(node, fieldPath)) {
      errors.push(
        fieldInvalid(`${rulePath}.fieldPath`, fieldPath, "fieldPath must be a valid path"),
      );
    }
  });
  return errors;
}
