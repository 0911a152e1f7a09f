/**
 * The CEL declarations of admission policy expressions and their compilation, as kube's
 * `k8s.io/apiserver/pkg/admission/plugin/cel/compile.go` (`CompileCELExpression`) and
 * `composition.go` (`CompositedCompiler`) make them: `object`, `oldObject`, `namespaceObject`
 * (the objects as `dyn`), `request` (the AdmissionRequest, typed), `params` (only when the policy
 * has a `paramKind`), `variables` (only when the policy declares variables; each variable sees
 * the variables declared before it), and `authorizer` / `authorizer.requestResource` (the
 * authorization library, library/authz.ts; not in messageExpressions, as kube).
 *
 * Errors are worded as kube's: `compilation failed: ERROR: <input>:…` for compile issues,
 * `must evaluate to bool` / `must evaluate to string` / `must evaluate to one of [string
 * null_type]` for a wrong result type.
 */
import type { CelInput } from "@bufbuild/cel";
import type { JsonObject, JsonValue } from "kubekit";
import { toCelInput } from "../../apiextensions/cel/cel-values.js";
import {
  type CelProgram,
  compileCelExpression,
} from "../../apiextensions/cel/compile-expression.js";
import { AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE } from "../../apiextensions/cel/library/authz.js";
import {
  DECL,
  type DeclType,
  listDecl,
  mapDecl,
  objectDecl,
} from "../../apiextensions/cel/decl-type.js";

/** The result types an expression may have (kube's `ExpressionAccessor.ReturnTypes`). */
export type PolicyExpressionResult = "bool" | "string" | "string-or-null" | "any";

/** What the expressions of one policy may reference. */
export interface PolicyCelDeclarations {
  /** The policy has a `paramKind` (`params` declared). */
  readonly hasParams: boolean;
  /** The types of the variables declared so far, in declaration order (`variables` declared when given). */
  readonly variables?: ReadonlyMap<string, DeclType>;
  /** The type of `object` and `oldObject` (`dyn` unless a type checker knows the schema). */
  readonly objectType?: DeclType;
  /** The type of `params` (`dyn` unless a type checker knows the schema). */
  readonly paramsType?: DeclType;
  /** `authorizer` and `authorizer.requestResource` declared (all but messageExpressions; default true). */
  readonly hasAuthorizer?: boolean;
}

/** One compiled expression, or kube's error detail for it. */
export type PolicyExpressionCompilation =
  | { readonly ok: true; readonly program: CelProgram }
  | { readonly ok: false; readonly error: string; readonly required?: boolean };

function gvkType(name: string, last: "kind" | "resource"): DeclType {
  return objectDecl(
    name,
    new Map([
      ["group", DECL.STRING],
      ["version", DECL.STRING],
      [last, DECL.STRING],
    ]),
  );
}

let requestType: DeclType | undefined;

/** The type of `request` (kube's `AdmissionRequest` declaration in `cel/compile.go`). */
export function admissionRequestType(): DeclType {
  requestType ??= objectDecl(
    "kubernetes.AdmissionRequest",
    new Map<string, DeclType>([
      ["kind", gvkType("kubernetes.GroupVersionKind", "kind")],
      ["resource", gvkType("kubernetes.GroupVersionResource", "resource")],
      ["subResource", DECL.STRING],
      ["requestKind", gvkType("kubernetes.GroupVersionKind", "kind")],
      ["requestResource", gvkType("kubernetes.GroupVersionResource", "resource")],
      ["requestSubResource", DECL.STRING],
      ["name", DECL.STRING],
      ["namespace", DECL.STRING],
      ["operation", DECL.STRING],
      [
        "userInfo",
        objectDecl(
          "kubernetes.UserInfo",
          new Map<string, DeclType>([
            ["username", DECL.STRING],
            ["uid", DECL.STRING],
            ["groups", listDecl(DECL.STRING)],
            ["extra", mapDecl(DECL.STRING, listDecl(DECL.STRING))],
          ]),
        ),
      ],
      ["dryRun", DECL.BOOL],
      ["options", DECL.DYN],
      ["uid", DECL.STRING],
    ]),
  );
  return requestType;
}

/** The type of `variables` for the given variable types. */
export function variablesType(variables: ReadonlyMap<string, DeclType>): DeclType {
  return objectDecl("kubernetes.variables", variables);
}

/** The variables an expression of a policy with `decl` is compiled against. */
export function policyDeclarations(decl: PolicyCelDeclarations): Map<string, DeclType> {
  const vars = new Map<string, DeclType>([
    ["object", decl.objectType ?? DECL.DYN],
    ["oldObject", decl.objectType ?? DECL.DYN],
    ["namespaceObject", DECL.DYN],
    ["request", admissionRequestType()],
  ]);
  if (decl.hasParams) vars.set("params", decl.paramsType ?? DECL.DYN);
  if (decl.hasAuthorizer !== false) {
    vars.set("authorizer", AUTHORIZER_TYPE.decl);
    vars.set("authorizer.requestResource", RESOURCE_CHECK_TYPE.decl);
  }
  if (decl.variables) vars.set("variables", variablesType(decl.variables));
  return vars;
}

function resultMatches(type: DeclType, result: PolicyExpressionResult): boolean {
  switch (result) {
    case "bool":
      return type.kind === "bool";
    case "string":
      return type.kind === "string";
    case "string-or-null":
      return type.kind === "string" || type.kind === "null_type";
    case "any":
      return true;
  }
}

const RESULT_TEXT: Record<PolicyExpressionResult, string> = {
  bool: "must evaluate to bool",
  string: "must evaluate to string",
  "string-or-null": "must evaluate to one of [string null_type]",
  any: "",
};

/**
 * Compiles one policy expression (kube's `CompileCELExpression`): empty → `expression is not
 * specified` (required), compile issues → `compilation failed: …`, a wrong result type → `must
 * evaluate to …`. Never throws.
 */
export function compilePolicyExpression(
  source: string,
  result: PolicyExpressionResult,
  decl: PolicyCelDeclarations,
): PolicyExpressionCompilation {
  if (source.trim() === "")
    return { ok: false, error: "expression is not specified", required: true };
  const compiled = compileCelExpression(source, { variables: policyDeclarations(decl) });
  if (!compiled.ok) return { ok: false, error: `compilation failed: ${compiled.error}` };
  if (!resultMatches(compiled.program.resultType, result)) {
    return { ok: false, error: RESULT_TEXT[result] };
  }
  return compiled;
}

/** A JSON value as CEL sees it bound to `object`, `params`, …: `null` for an absent value. */
export function policyInput(value: JsonValue | undefined, type: DeclType = DECL.DYN): CelInput {
  return value === undefined ? null : toCelInput(value, type);
}

/** The `request` value for {@link admissionRequestType}. */
export function requestInput(request: JsonObject): CelInput {
  return toCelInput(request, admissionRequestType());
}
