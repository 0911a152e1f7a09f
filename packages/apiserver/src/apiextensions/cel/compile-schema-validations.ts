/**
 * Compiling every `x-kubernetes-validations` rule and `messageExpression` of a CRD version's schema
 * once (kube's `apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go` and the CEL part of
 * `pkg/apis/apiextensions/validation/validation.go`): compile, type and cost errors come back as
 * field errors with kube's messages, on paths built from `basePath`, and the rules that compiled
 * form a {@link SchemaCelValidator}. Compile once per CRD version and keep the validator.
 */
import type { FieldError } from "kubekit";
import { fieldForbidden, fieldInvalid, fieldNotSupported } from "kubekit/apimachinery";
import type { JSONSchemaProps, ValidationRule } from "../schema-props.js";
import { compileCelExpression, type CelProgram } from "./compile-expression.js";
import { DECL, type DeclType, optionalDecl } from "./decl-type.js";
import type { CompiledRule, RuleNode } from "./rule-tree.js";
import { SchemaCelValidator } from "./schema-cel-validator.js";
import { resolveFieldPath } from "../structural/field-path.js";
import type { SchemaNode } from "../structural/schema-node.js";
import { multiplyCardinality, schemaDeclType } from "./schema-decl-type.js";

/** kube's largest estimated cost of one expression (`StaticEstimatedCostLimit`). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** kube's largest estimated cost of all the rules of a CRD (`StaticEstimatedCRDCostLimit`). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const REASONS = [
  "FieldValueRequired",
  "FieldValueForbidden",
  "FieldValueInvalid",
  "FieldValueDuplicate",
];

/** Schemas nested deeper than this are not searched for rules. */
const MAX_DEPTH = 64;

/** Options of {@link compileSchemaValidations}. */
export interface CompileSchemaValidationsOptions {
  /** Field path of the schema in the CRD (e.g. `spec.versions[0].schema.openAPIV3Schema`). */
  readonly basePath?: string;
  /**
   * The schema is a resource root (default true): `apiVersion`, `kind` and
   * `metadata.{name,generateName}` are visible to rules at the root.
   */
  readonly isResourceRoot?: boolean;
}

/** kube's cost error (`getCostErrorMessage`). */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text =
    factor > 100
      ? "more than 100x"
      : factor < 1.5
        ? `${factor.toFixed(6)}x`
        : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface Walk {
  readonly errors: FieldError[];
  totalCost: number;
  readonly costly: string[];
  count: number;
}

/**
 * Compiles every rule of `schema` (the root of a CRD version's `openAPIV3Schema`). `errors` are
 * kube's CRD validation errors for the rules; the validator holds the rules that compiled.
 */
export function compileSchemaValidations(
  schema: JSONSchemaProps,
  options: CompileSchemaValidationsOptions = {},
): { validator: SchemaCelValidator; errors: FieldError[] } {
  const basePath = options.basePath ?? "";
  const walk: Walk = { errors: [], totalCost: 0, costly: [], count: 0 };
  const root = compileNode(schema, basePath, options.isResourceRoot ?? true, 1, true, walk, 0);
  if (walk.totalCost > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const path of walk.costly) {
      walk.errors.push(
        fieldForbidden(
          path,
          "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        ),
      );
    }
    walk.errors.push(
      fieldForbidden(
        basePath,
        costErrorMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          walk.totalCost,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return { validator: new SchemaCelValidator(root, walk.count), errors: walk.errors };
}

function child(path: string, step: string): string {
  return path === "" ? step.replace(/^\./, "") : `${path}${step}`;
}

function compileNode(
  s: JSONSchemaProps,
  path: string,
  isRoot: boolean,
  cardinality: number,
  correlatable: boolean,
  walk: Walk,
  depth: number,
): RuleNode | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const declType = schemaDeclType(s, { isResourceRoot: isRoot }) ?? DECL.DYN;
  const rules = compileRules(s, declType, path, cardinality, correlatable, walk);
  let properties: Map<string, RuleNode> | undefined;
  const props = typeof s.properties === "object" && s.properties !== null ? s.properties : {};
  for (const [name, sub] of Object.entries(props)) {
    if (typeof sub !== "object" || sub === null) continue;
    const node = compileNode(
      sub,
      child(path, `.properties[${name}]`),
      false,
      cardinality,
      correlatable,
      walk,
      depth + 1,
    );
    if (node) (properties ??= new Map()).set(name, node);
  }
  const additional =
    s.additionalProperties && typeof s.additionalProperties === "object"
      ? s.additionalProperties
      : undefined;
  const additionalNode = additional
    ? compileNode(
        additional,
        child(path, ".additionalProperties"),
        false,
        multiplyCardinality(cardinality, declType.maxElements),
        correlatable,
        walk,
        depth + 1,
      )
    : undefined;
  const items =
    typeof s.items === "object" && s.items !== null && !Array.isArray(s.items)
      ? s.items
      : undefined;
  const itemsNode = items
    ? compileNode(
        items,
        child(path, ".items"),
        false,
        multiplyCardinality(cardinality, declType.maxElements),
        correlatable && s["x-kubernetes-list-type"] === "map",
        walk,
        depth + 1,
      )
    : undefined;
  if (rules.length === 0 && !properties && !additionalNode && !itemsNode) return undefined;
  return {
    schemaType: s.type ?? "",
    declType,
    rules,
    ...(properties ? { properties } : {}),
    ...(additionalNode ? { additionalProperties: additionalNode } : {}),
    ...(itemsNode ? { items: itemsNode } : {}),
    ...(s["x-kubernetes-list-type"] ? { listType: s["x-kubernetes-list-type"] } : {}),
    ...(s["x-kubernetes-list-map-keys"] ? { listMapKeys: s["x-kubernetes-list-map-keys"] } : {}),
    ...(s["x-kubernetes-map-type"] ? { mapType: s["x-kubernetes-map-type"] } : {}),
  };
}

function compileRules(
  s: JSONSchemaProps,
  declType: DeclType,
  path: string,
  cardinality: number,
  correlatable: boolean,
  walk: Walk,
): CompiledRule[] {
  const out: CompiledRule[] = [];
  const rules: unknown = s["x-kubernetes-validations"];
  if (!Array.isArray(rules)) return out;
  (rules as ValidationRule[]).forEach((rule, i) => {
    if (typeof rule !== "object" || rule === null) return;
    const rulePath = child(path, `.x-kubernetes-validations[${i}]`);
    const compiled = compileRule(rule, s, declType, rulePath, cardinality, correlatable, walk);
    if (compiled) out.push(compiled);
  });
  walk.count += out.length;
  return out;
}

function variables(declType: DeclType, optionalOldSelf: boolean): Map<string, DeclType> {
  return new Map([
    ["self", declType],
    ["oldSelf", optionalOldSelf ? optionalDecl(declType) : declType],
  ]);
}

function compileRule(
  rule: ValidationRule,
  s: JSONSchemaProps,
  declType: DeclType,
  rulePath: string,
  cardinality: number,
  correlatable: boolean,
  walk: Walk,
): CompiledRule | undefined {
  const errors = walk.errors;
  const source = typeof rule.rule === "string" ? rule.rule : "";
  if (source.trim() === "") return undefined;
  const optionalOldSelf = rule.optionalOldSelf === true;
  const vars = variables(declType, optionalOldSelf);
  const result = compileCelExpression(source, { variables: vars });
  let program: CelProgram | undefined;
  if (!result.ok) {
    errors.push(fieldInvalid(`${rulePath}.rule`, source, `compilation failed: ${result.error}`));
  } else if (
    result.program.resultType.kind !== "bool" &&
    result.program.resultType.kind !== "dyn"
  ) {
    errors.push(fieldInvalid(`${rulePath}.rule`, source, "cel expression must evaluate to a bool"));
  } else {
    program = result.program;
    const cost = program.estimatedCost * cardinality;
    if (cost > STATIC_ESTIMATED_COST_LIMIT) {
      errors.push(
        fieldForbidden(
          `${rulePath}.rule`,
          costErrorMessage("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT),
        ),
      );
    }
    walk.totalCost += cost;
    walk.costly.push(`${rulePath}.rule`);
    if (program.references.has("oldSelf") && !correlatable) {
      errors.push(
        fieldInvalid(
          `${rulePath}.rule`,
          source,
          "oldSelf cannot be used on the uncorrelatable portion of the schema",
        ),
      );
    }
    if (optionalOldSelf && !program.references.has("oldSelf")) {
      errors.push(
        fieldInvalid(
          `${rulePath}.optionalOldSelf`,
          true,
          "may not be set if rule does not use oldSelf",
        ),
      );
    }
  }
  const messageExpression = compileMessageExpression(rule, vars, rulePath, cardinality, walk);
  if (rule.reason !== undefined && !REASONS.includes(String(rule.reason))) {
    errors.push(fieldNotSupported(`${rulePath}.reason`, rule.reason, REASONS));
  }
  let fieldPathSuffix = "";
  if (typeof rule.fieldPath === "string" && rule.fieldPath !== "") {
    // Resolved as selectable fields are (kube's ValidFieldPath), appended to the node's path.
    const fp = resolveFieldPath(rule.fieldPath, s as unknown as SchemaNode);
    if (!("error" in fp)) {
      fieldPathSuffix = fp.path === "" || fp.path.startsWith("[") ? fp.path : `.${fp.path}`;
    } else
      errors.push(
        fieldInvalid(
          `${rulePath}.fieldPath`,
          rule.fieldPath,
          `fieldPath must be a valid path: ${fp.error}`,
        ),
      );
  }
  if (!program) return undefined;
  return {
    rule: source,
    program,
    ...(rule.message !== undefined ? { message: rule.message } : {}),
    ...(messageExpression ? { messageExpression } : {}),
    ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
    fieldPathSuffix,
    usesOldSelf: program.references.has("oldSelf"),
    optionalOldSelf,
  };
}

function compileMessageExpression(
  rule: ValidationRule,
  vars: ReadonlyMap<string, DeclType>,
  rulePath: string,
  cardinality: number,
  walk: Walk,
): CelProgram | undefined {
  const source = rule.messageExpression;
  if (typeof source !== "string" || source.trim() === "") return undefined;
  const path = `${rulePath}.messageExpression`;
  const result = compileCelExpression(source, { variables: vars });
  if (!result.ok) {
    walk.errors.push(
      fieldInvalid(path, source, `messageExpression compilation failed: ${result.error}`),
    );
    return undefined;
  }
  const kind = result.program.resultType.kind;
  if (kind !== "string" && kind !== "dyn") {
    walk.errors.push(fieldInvalid(path, source, "must evaluate to a string"));
    return undefined;
  }
  const cost = result.program.estimatedCost * cardinality;
  if (cost > STATIC_ESTIMATED_COST_LIMIT) {
    walk.errors.push(
      fieldForbidden(
        path,
        costErrorMessage("estimated messageExpression cost", cost, STATIC_ESTIMATED_COST_LIMIT),
      ),
    );
  }
  walk.totalCost += cost;
  walk.costly.push(path);
  return result.program;
}
