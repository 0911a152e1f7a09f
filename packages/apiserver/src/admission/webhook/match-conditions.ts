/**
 * A webhook's `matchConditions` (kube's `admission/plugin/webhook/matchconditions/matcher.go`):
 * CEL expressions over `object`, `oldObject` and `request`, compiled once per configuration
 * version. The webhook is called only when every condition is true; any false skips it; an
 * error (compile or evaluation) with no false condition fails the request under failurePolicy
 * Fail and skips the webhook under Ignore.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { CelProgram } from "../../apiextensions/cel/compile-expression.js";
import { compilePolicyExpression, policyInput, requestInput } from "../policy/policy-cel.js";

/** One compiled condition, or its compile error. */
type CompiledCondition =
  | { readonly name: string; readonly program: CelProgram }
  | { readonly name: string; readonly error: string };

/** The compiled conditions of one webhook and its failure policy. */
export interface CompiledMatchConditions {
  readonly conditions: readonly CompiledCondition[];
  readonly failurePolicy: "Fail" | "Ignore";
}

/** The outcome of {@link evaluateMatchConditions}: call, skip, or the error that fails the request. */
export type MatchConditionsOutcome =
  { readonly matches: boolean } | { readonly matches: false; readonly error: string };

/** Compiles `matchConditions[]` as stored (never throws; errors surface on evaluation). */
export function compileMatchConditions(
  value: JsonValue | undefined,
  failurePolicy: "Fail" | "Ignore",
): CompiledMatchConditions {
  const items = Array.isArray(value) ? value.filter(isJsonObject) : [];
  const conditions = items.map((c): CompiledCondition => {
    const name = String(c["name"] ?? "");
    const compiled = compilePolicyExpression(String(c["expression"] ?? ""), "bool", {
      hasParams: false,
    });
    return compiled.ok ? { name, program: compiled.program } : { name, error: compiled.error };
  });
  return { conditions, failurePolicy };
}

/** The variables a condition sees: the objects (`null` when absent) and the AdmissionRequest. */
export interface MatchConditionInput {
  readonly object: JsonObject | undefined;
  readonly oldObject: JsonObject | undefined;
  /** The AdmissionRequest as sent to the webhook (without object and oldObject). */
  readonly request: JsonObject;
}

/** Evaluates the conditions in order (kube's `matcher.Match`). */
export function evaluateMatchConditions(
  compiled: CompiledMatchConditions,
  input: MatchConditionInput,
): MatchConditionsOutcome {
  if (compiled.conditions.length === 0) return { matches: true };
  const bindings = {
    object: policyInput(input.object),
    oldObject: policyInput(input.oldObject),
    namespaceObject: null,
    request: requestInput(input.request),
  };
  const errors: string[] = [];
  for (const condition of compiled.conditions) {
    if ("error" in condition) {
      errors.push(condition.error);
      continue;
    }
    const result = condition.program.evaluate(bindings);
    if (!result.ok) {
      errors.push(`expression '${condition.program.source}' resulted in error: ${result.error}`);
    } else if (result.value === false) {
      return { matches: false };
    } else if (result.value !== true) {
      errors.push(
        `expression '${condition.program.source}' resulted in error: must evaluate to bool`,
      );
    }
  }
  if (errors.length === 0) return { matches: true };
  if (compiled.failurePolicy === "Ignore") return { matches: false };
  return {
    matches: false,
    error: errors.length === 1 ? (errors[0] as string) : `[${errors.join(", ")}]`,
  };
}
