/**
 * A ValidatingAdmissionPolicy compiled for admission (kube's `compilePolicy` in
 * `k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go`): its variables in order
 * (each seeing the ones before it), match conditions, validations with their message
 * expressions, and audit annotations. An expression that fails to compile is kept with its
 * error: evaluating it is an evaluation error (`compilation error: compilation failed: …`) that
 * the policy's failurePolicy decides, as kube does.
 */
import type { JsonObject } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { CelProgram } from "../../apiextensions/cel/compile-expression.js";
import { DECL, type DeclType } from "../../apiextensions/cel/decl-type.js";
import {
  compilePolicyExpression,
  type PolicyCelDeclarations,
  type PolicyExpressionResult,
} from "./policy-cel.js";

/** One expression of a policy: its program, or why it did not compile. */
export interface CompiledExpression {
  readonly source: string;
  readonly program?: CelProgram;
  /** kube's compile error detail, when the expression did not compile. */
  readonly error?: string;
}

/** One `spec.validations[i]`. */
export interface CompiledValidation {
  readonly expression: CompiledExpression;
  readonly message: string;
  readonly messageExpression?: CompiledExpression;
  /** `reason`, when set (`Invalid` applies otherwise). */
  readonly reason?: string;
}

/** One `spec.variables[i]`. */
export interface CompiledVariable {
  readonly name: string;
  readonly expression: CompiledExpression;
}

/** One `spec.matchConditions[i]`. */
export interface CompiledMatchCondition {
  readonly name: string;
  readonly expression: CompiledExpression;
}

/** One `spec.auditAnnotations[i]`. */
export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: CompiledExpression;
}

/** `spec.paramKind`. */
export interface ParamKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** A policy ready to evaluate (see the module comment). */
export interface CompiledPolicy {
  readonly name: string;
  /** The stored object's resourceVersion the compilation is for. */
  readonly resourceVersion: string;
  /** `Fail` (the default) or `Ignore`. */
  readonly failurePolicy: string;
  readonly paramKind?: ParamKind;
  readonly matchConstraints: JsonObject | undefined;
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function compile(
  source: string,
  result: PolicyExpressionResult,
  decl: PolicyCelDeclarations,
): CompiledExpression {
  const compiled = compilePolicyExpression(source, result, decl);
  return compiled.ok ? { source, program: compiled.program } : { source, error: compiled.error };
}

/** The `paramKind` of a policy spec, when it names both an apiVersion and a kind. */
export function paramKindOf(spec: JsonObject): ParamKind | undefined {
  const pk = spec["paramKind"];
  if (!isJsonObject(pk)) return undefined;
  return { apiVersion: str(pk["apiVersion"]), kind: str(pk["kind"]) };
}

/**
 * Compiles the variables of `spec` in order (kube's `CompositedCompiler`): each variable sees
 * the ones before it; one that does not compile is typed `dyn`. Returns the variables and the
 * declarations every other expression of the policy compiles with.
 */
export function compileVariables(
  spec: JsonObject,
  base: Omit<PolicyCelDeclarations, "variables">,
): { variables: CompiledVariable[]; decl: PolicyCelDeclarations } {
  const specVariables = objects(spec["variables"]);
  if (specVariables.length === 0) return { variables: [], decl: base };
  const types = new Map<string, DeclType>();
  const variables: CompiledVariable[] = [];
  for (const v of specVariables) {
    const name = str(v["name"]);
    const expression = compile(str(v["expression"]), "any", { ...base, variables: new Map(types) });
    variables.push({ name, expression });
    types.set(name, expression.program?.resultType ?? DECL.DYN);
  }
  return { variables, decl: { ...base, variables: types } };
}

/** Compiles the stored policy `policy` (see the module comment). Never throws. */
export function compilePolicy(policy: JsonObject): CompiledPolicy {
  const metadata = isJsonObject(policy["metadata"]) ? policy["metadata"] : {};
  const spec = isJsonObject(policy["spec"]) ? policy["spec"] : {};
  const paramKind = paramKindOf(spec);
  const { variables, decl } = compileVariables(spec, { hasParams: paramKind !== undefined });
  const matchConstraints = spec["matchConstraints"];
  return {
    name: str(metadata["name"]),
    resourceVersion: str(metadata["resourceVersion"]),
    failurePolicy: str(spec["failurePolicy"]) || "Fail",
    ...(paramKind ? { paramKind } : {}),
    matchConstraints: isJsonObject(matchConstraints) ? matchConstraints : undefined,
    variables,
    matchConditions: objects(spec["matchConditions"]).map((m) => ({
      name: str(m["name"]),
      expression: compile(str(m["expression"]), "bool", decl),
    })),
    validations: objects(spec["validations"]).map((v) => {
      const messageExpression = str(v["messageExpression"]);
      const reason = str(v["reason"]);
      return {
        expression: compile(str(v["expression"]), "bool", decl),
        message: str(v["message"]),
        ...(messageExpression.trim() !== ""
          ? {
              messageExpression: compile(messageExpression, "string", {
                ...decl,
                hasAuthorizer: false,
              }),
            }
          : {}),
        ...(reason !== "" ? { reason } : {}),
      };
    }),
    auditAnnotations: objects(spec["auditAnnotations"]).map((a) => ({
      key: str(a["key"]),
      valueExpression: compile(str(a["valueExpression"]), "string-or-null", decl),
    })),
  };
}
