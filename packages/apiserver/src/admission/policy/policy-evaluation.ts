/**
 * Evaluating one compiled policy for one (binding, param) pair (kube's `validator.Validate`,
 * `k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go`, with the CEL filter of
 * `plugin/cel/filter.go` and the lazy variables of `plugin/cel/composition.go`):
 *
 * - match conditions first: a false one skips the policy; an error (no false one) is an
 *   evaluation error;
 * - each validation: an error is an evaluation error (deny under failurePolicy Fail, admit
 *   under Ignore); a false result denies with the `messageExpression` result (trimmed, single
 *   line, at most 5 KiB), else `message`, else `failed expression: <expression>`, and `reason`
 *   (Invalid by default);
 * - audit annotations: a non-empty string is published, null or empty is not, anything else
 *   (or an error under Fail) denies.
 *
 * Variables are evaluated lazily, at most once per evaluation. All expressions of one
 * evaluation share kube's `RuntimeCELCostBudget`; each is also limited to the per-call limit.
 */
import type { CelInput, CelValue } from "@bufbuild/cel";
import { isCelList, isCelMap } from "@bufbuild/cel";
import {
  type CelEvaluation,
  PER_CALL_COST_LIMIT,
} from "../../apiextensions/cel/compile-expression.js";
import { CostMeter } from "../../apiextensions/cel/runtime-cost.js";
import { RUNTIME_COST_BUDGET } from "../../apiextensions/cel/schema-cel-validator.js";
import type { CompiledExpression, CompiledPolicy, CompiledVariable } from "./compiled-policy.js";

/** kube's limit on an evaluated `messageExpression` (`MaxEvaluatedMessageExpressionSizeBytes`). */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** kube's out-of-budget error detail (`plugin/cel/filter.go`). */
const OUT_OF_BUDGET =
  "validation failed due to running out of cost budget, no further validation rules will be run";

/** One validation's outcome (kube's `PolicyDecision`). */
export interface PolicyDecision {
  readonly action: "admit" | "deny";
  /** The expression could not be evaluated (or did not compile). */
  readonly evalError: boolean;
  readonly message: string;
  /** The status reason of a denial (`Invalid` unless the validation names another); "" for errors. */
  readonly reason: string;
  /** The index of the validation in `spec.validations` (-1 for a policy-wide error). */
  readonly index: number;
}

/** What one evaluation yields. */
export interface PolicyEvaluationResult {
  readonly decisions: readonly PolicyDecision[];
  /** Published audit annotations (key → value). */
  readonly auditAnnotations: ReadonlyMap<string, string>;
}

/** The values the expressions are bound to (already in CEL form). */
export interface PolicyBindings {
  readonly object: CelInput;
  readonly oldObject: CelInput;
  readonly request: CelInput;
  readonly namespaceObject: CelInput;
  /** Bound only when the policy has a paramKind. */
  readonly params: CelInput;
  /** `authorizer` (library/authz.ts). */
  readonly authorizer: CelInput;
  /** `authorizer.requestResource`. */
  readonly requestResource: CelInput;
}

class OutOfBudget extends Error {}

/** The shared budget and the lazily evaluated `variables`. */
class Evaluation {
  readonly #budget = new CostMeter(RUNTIME_COST_BUDGET);
  readonly #bindings: Record<string, CelInput>;
  #meter: CostMeter | undefined;

  constructor(policy: CompiledPolicy, bindings: PolicyBindings) {
    this.#bindings = {
      object: bindings.object,
      oldObject: bindings.oldObject,
      request: bindings.request,
      namespaceObject: bindings.namespaceObject,
      authorizer: bindings.authorizer,
      "authorizer.requestResource": bindings.requestResource,
      ...(policy.paramKind ? { params: bindings.params } : {}),
    };
    if (policy.variables.length > 0) {
      this.#bindings["variables"] = new LazyVariables(policy.variables, (e) => this.run(e));
    }
  }

  /**
   * Runs `expr` within the per-call limit and what is left of the budget. Throws
   * {@link OutOfBudget} when the budget is exhausted (no further expression runs).
   */
  run(expr: CompiledExpression): CelEvaluation {
    if (!expr.program) {
      return {
        ok: false,
        error: `compilation error: ${expr.error ?? "no program"}`,
        costExceeded: false,
      };
    }
    // A variable evaluated inside another expression charges that expression's meter.
    const outer = this.#meter;
    const remaining = this.#budget.limit - this.#budget.used;
    const meter = outer ?? new CostMeter(Math.min(PER_CALL_COST_LIMIT, remaining));
    this.#meter = meter;
    let result: CelEvaluation;
    try {
      result = expr.program.evaluate(this.#bindings, meter);
    } finally {
      this.#meter = outer;
    }
    if (outer) return result;
    try {
      this.#budget.charge(meter.used);
    } catch {
      throw new OutOfBudget(OUT_OF_BUDGET);
    }
    if (result.ok) return result;
    if (result.costExceeded && meter.limit < PER_CALL_COST_LIMIT)
      throw new OutOfBudget(OUT_OF_BUDGET);
    return {
      ...result,
      error: `expression '${expr.source}' resulted in error: ${result.error}`,
    };
  }
}

/**
 * `variables` as CEL sees it: a map whose entries are evaluated on first access (kube's lazy
 * composition); an evaluation error is the error of the expression that read the variable.
 */
class LazyVariables extends Map<string, CelInput> {
  readonly #byName: ReadonlyMap<string, CompiledVariable>;
  readonly #run: (e: CompiledExpression) => CelEvaluation;
  readonly #results = new Map<string, CelEvaluation>();

  constructor(
    variables: readonly CompiledVariable[],
    run: (e: CompiledExpression) => CelEvaluation,
  ) {
    super();
    this.#byName = new Map(variables.map((v) => [v.name, v]));
    this.#run = run;
  }

  override get size(): number {
    return this.#byName.size;
  }

  override has(key: string): boolean {
    return this.#byName.has(key);
  }

  override get(key: string): CelInput | undefined {
    const variable = this.#byName.get(key);
    if (!variable) return undefined;
    let result = this.#results.get(key);
    if (!result) {
      result = variable.expression.program
        ? this.#run(variable.expression)
        : {
            ok: false,
            error: `composited variable "${key}" fails to compile: ${variable.expression.error ?? ""}`,
            costExceeded: false,
          };
      this.#results.set(key, result);
    }
    if (!result.ok) throw new Error(result.error);
    return result.value as CelInput;
  }
}

function errorDecision(policy: CompiledPolicy, message: string, index: number): PolicyDecision {
  return {
    action: policy.failurePolicy === "Ignore" ? "admit" : "deny",
    evalError: true,
    message,
    reason: "",
    index,
  };
}

/** Match conditions: `true` (all hold), `false` (one is false), or an error message. */
function matchConditions(policy: CompiledPolicy, run: Evaluation): boolean | string {
  const errors: string[] = [];
  for (const condition of policy.matchConditions) {
    const result = run.run(condition.expression);
    if (!result.ok) errors.push(result.error);
    else if (result.value === false) return false;
  }
  // kube aggregates the errors (`utilerrors.NewAggregate`): one as is, several in brackets.
  if (errors.length === 1) return errors[0] as string;
  if (errors.length > 1) return `[${errors.join(", ")}]`;
  return true;
}

function messageOf(value: CelValue | undefined): string {
  if (typeof value !== "string") return "";
  const message = value.trim();
  if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || /\n/.test(message)) return "";
  return message;
}

function validate(policy: CompiledPolicy, run: Evaluation): PolicyDecision[] {
  return policy.validations.map((v, index): PolicyDecision => {
    const result = run.run(v.expression);
    if (!result.ok) return errorDecision(policy, result.error, index);
    if (result.value === true) {
      return { action: "admit", evalError: false, message: "", reason: "", index };
    }
    let message = "";
    if (v.messageExpression) {
      const m = run.run(v.messageExpression);
      if (m.ok) message = messageOf(m.value);
    }
    if (message === "") message = v.message.trim();
    if (message === "") message = `failed expression: ${v.expression.source.trim()}`;
    return { action: "deny", evalError: false, message, reason: v.reason ?? "Invalid", index };
  });
}

function celTypeName(v: CelValue): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "boolean") return "bool";
  if (v instanceof Uint8Array) return "bytes";
  if (isCelList(v)) return "list";
  if (isCelMap(v)) return "map";
  return "object";
}

function auditAnnotations(
  policy: CompiledPolicy,
  run: Evaluation,
  decisions: PolicyDecision[],
): Map<string, string> {
  const published = new Map<string, string>();
  for (const a of policy.auditAnnotations) {
    const result = run.run(a.valueExpression);
    if (!result.ok) {
      if (policy.failurePolicy !== "Ignore")
        decisions.push(errorDecision(policy, result.error, -1));
      continue;
    }
    const value = result.value;
    if (value === null) continue;
    if (typeof value !== "string") {
      decisions.push({
        ...errorDecision(policy, "", -1),
        action: "deny",
        message: `valueExpression '${a.valueExpression.source}' resulted in unsupported return type: ${celTypeName(value)}. Return type must be either string or null.`,
      });
      continue;
    }
    const trimmed = value.trim();
    if (trimmed !== "") published.set(a.key, trimmed.slice(0, 10 * 1024));
  }
  return published;
}

/** Evaluates `policy` with `bindings` (see the module comment). Never throws. */
export function evaluatePolicy(
  policy: CompiledPolicy,
  bindings: PolicyBindings,
): PolicyEvaluationResult {
  const run = new Evaluation(policy, bindings);
  try {
    const matched = matchConditions(policy, run);
    if (matched === false) return { decisions: [], auditAnnotations: new Map() };
    if (typeof matched === "string") {
      return { decisions: [errorDecision(policy, matched, -1)], auditAnnotations: new Map() };
    }
    const decisions = validate(policy, run);
    const published = auditAnnotations(policy, run, decisions);
    return { decisions, auditAnnotations: published };
  } catch (e) {
    const message = e instanceof OutOfBudget ? e.message : String(e);
    return { decisions: [errorDecision(policy, message, -1)], auditAnnotations: new Map() };
  }
}
