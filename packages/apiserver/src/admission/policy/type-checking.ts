/**
 * Type checking of a ValidatingAdmissionPolicy against the schemas of the kinds it matches
 * (kube's `k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go`): the kinds
 * come from `matchConstraints.resourceRules` (a rule with a `*` group, version or resource is
 * skipped; subresources are ignored; at most 10 kinds), `params` is typed by the paramKind's
 * schema. Each `spec.validations[i].expression` and `messageExpression` is compiled with
 * `object`/`oldObject` typed by each kind's schema (variables typed accordingly); the compile
 * issues become warnings `<group>/<version>, Kind=<kind>: <issues>\n`, one per kind, joined
 * by newlines.
 *
 * The schemas are the server's OpenAPI definitions (kind-schema.ts): the field tables of
 * built-in kinds, a CRD version's schema for custom resources; a kind without one is skipped,
 * as kube skips kinds its schema resolver does not know.
 */
import type { JsonObject } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { compileCelExpression } from "../../apiextensions/cel/compile-expression.js";
import type { DeclType } from "../../apiextensions/cel/decl-type.js";
import type { ServedResource } from "../../registry/served-resource.js";
import type { ServerContext } from "../../server/server-context.js";
import { compileVariables, paramKindOf } from "./compiled-policy.js";
import { kindDeclType } from "./kind-schema.js";
import { policyDeclarations } from "./policy-cel.js";
import { resolveParamKind } from "./policy-params.js";

/** One entry of `status.typeChecking.expressionWarnings`. */
export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/** kube's `maxTypesToCheck`. */
const MAX_TYPES_TO_CHECK = 10;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

function gvkText(r: ServedResource): string {
  return `${r.group}/${r.version}, Kind=${r.kind}`;
}

/** The served resources the policy's rules name explicitly (kube's `typesToCheck`), sorted. */
function typesToCheck(ctx: ServerContext, spec: JsonObject): ServedResource[] {
  const mc = spec["matchConstraints"];
  if (!isJsonObject(mc) || !Array.isArray(mc["resourceRules"])) return [];
  const found = new Map<string, ServedResource>();
  for (const rule of mc["resourceRules"]) {
    if (!isJsonObject(rule)) continue;
    const groups = strings(rule["apiGroups"]).sort();
    const versions = strings(rule["apiVersions"]).sort();
    const resources = strings(rule["resources"])
      .filter((r) => !r.includes("/"))
      .sort();
    if ([groups, versions, resources].some((l) => l.length === 0 || l.includes("*"))) continue;
    for (const group of groups)
      for (const version of versions)
        for (const resource of resources) {
          const entry = ctx.registry.lookup(group, version, resource);
          if (!entry) continue;
          found.set(gvkText(entry.info), entry.info);
          if (found.size === MAX_TYPES_TO_CHECK) return sorted(found);
        }
  }
  return sorted(found);
}

function sorted(found: Map<string, ServedResource>): ServedResource[] {
  return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/**
 * The expression warnings of `policy` (see the module comment); empty when nothing can be
 * checked or nothing is wrong.
 */
export function typeCheckPolicy(ctx: ServerContext, policy: JsonObject): ExpressionWarning[] {
  const spec = isJsonObject(policy["spec"]) ? policy["spec"] : {};
  const paramKind = paramKindOf(spec);
  let paramsType: DeclType | undefined;
  if (paramKind) {
    const resolved = resolveParamKind(ctx, paramKind);
    if ("resource" in resolved) paramsType = kindDeclType(resolved.resource);
  }
  const kinds = typesToCheck(ctx, spec).flatMap((r) => {
    const objectType = kindDeclType(r);
    return objectType ? [{ gvk: gvkText(r), objectType }] : [];
  });
  if (kinds.length === 0) return [];
  const contexts = kinds.map((k) => ({
    gvk: k.gvk,
    variables: policyDeclarations(
      compileVariables(spec, {
        hasParams: paramKind !== undefined,
        objectType: k.objectType,
        ...(paramsType ? { paramsType } : {}),
      }).decl,
    ),
  }));
  const check = (source: string): string =>
    contexts
      .flatMap((c) => {
        const result = compileCelExpression(source, { variables: c.variables });
        return result.ok ? [] : [`${c.gvk}: ${result.error}\n`];
      })
      .join("\n");
  const warnings: ExpressionWarning[] = [];
  const validations = Array.isArray(spec["validations"]) ? spec["validations"] : [];
  validations.forEach((v, i) => {
    if (!isJsonObject(v)) return;
    for (const field of ["expression", "messageExpression"]) {
      const source = v[field];
      if (typeof source !== "string" || source === "") continue;
      const warning = check(source);
      if (warning !== "") warnings.push({ fieldRef: `spec.validations[${i}].${field}`, warning });
    }
  });
  return warnings;
}
