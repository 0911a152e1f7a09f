/**
 * Evaluating a schema's compiled `x-kubernetes-validations` against a value (kube's
 * `apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`): every rule runs at its schema
 * node with `self` bound to the value there; transition rules (those referencing `oldSelf`) run
 * only where an old value correlates (object properties and map entries by key, items of
 * `x-kubernetes-list-type: map` lists by their keys; atomic and set lists do not correlate),
 * unless `optionalOldSelf` makes `oldSelf` an optional value. A false rule yields its `message`,
 * the result of its `messageExpression`, or `failed rule: <rule>`, as the error type its
 * `reason` names, at its `fieldPath`. Errors of rules that do not use `oldSelf` on a value equal
 * to its correlated old value are dropped (CRD validation ratcheting, on by default in 1.32).
 * Each expression is limited to kube's per-call cost and all of one object's rules to
 * `RuntimeCELCostBudget`.
 */
import type { CelInput } from "@bufbuild/cel";
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  deepEqual,
  fieldDuplicate,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldRequired,
  isJsonObject,
} from "kubekit/apimachinery";
import { toCelInput } from "./cel-values.js";
import { PER_CALL_COST_LIMIT } from "./compile-expression.js";
import { optionalOf } from "./library/optional.js";
import type { CompiledRule, RuleNode } from "./rule-tree.js";
import { CostMeter } from "./runtime-cost.js";

/** kube's runtime cost budget for all the rules of one object (`RuntimeCELCostBudget`). */
export const RUNTIME_COST_BUDGET = 10_000_000;

/** kube's limit on an evaluated `messageExpression` (`MaxEvaluatedMessageExpressionSizeBytes`). */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

class BudgetExhausted extends Error {}

/** The compiled rules of one schema, ready to validate objects (see the module comment). */
export class SchemaCelValidator {
  readonly #root: RuleNode | undefined;
  /** How many rules compiled. */
  readonly ruleCount: number;

  /** @internal Built by `compileSchemaValidations`. */
  constructor(root: RuleNode | undefined, ruleCount: number) {
    this.#root = root;
    this.ruleCount = ruleCount;
  }

  /**
   * The rule failures of `obj` (with `oldObj` on update), on field paths under `path` (`""` for
   * the resource root). Never throws; bounded by the runtime cost budget.
   */
  validate(obj: JsonValue, oldObj: JsonValue | undefined, path = ""): FieldError[] {
    const root = this.#root;
    if (!root) return [];
    const run = new Evaluation();
    try {
      run.node(root, path, obj, oldObj);
    } catch (e) {
      // BudgetExhausted ends the run (its error is already recorded); anything else is a bug
      // reported as kube reports internal errors rather than failing the request.
      if (!(e instanceof BudgetExhausted)) {
        run.errors.push(
          fieldInternalError(
            path,
            `CEL validation failed: ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
      }
    }
    return run.errors;
  }
}

function childPath(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

class Evaluation {
  readonly errors: FieldError[] = [];
  readonly #budget = new CostMeter(RUNTIME_COST_BUDGET);

  node(n: RuleNode, path: string, value: JsonValue | undefined, old: JsonValue | undefined): void {
    if (value === null || value === undefined) return;
    if (n.rules.length > 0) this.#rules(n, path, value, old);
    if (Array.isArray(value)) {
      if (n.items) this.#items(n, n.items, path, value, Array.isArray(old) ? old : undefined);
      return;
    }
    if (!isJsonObject(value)) return;
    const oldMap =
      isJsonObject(old) &&
      (n.mapType === undefined || n.mapType === "granular" || n.mapType === "atomic")
        ? old
        : undefined;
    for (const [k, v] of Object.entries(value)) {
      const prop = n.properties?.get(k);
      if (prop) this.node(prop, childPath(path, k), v, oldMap?.[k]);
      else if (n.additionalProperties)
        this.node(n.additionalProperties, `${path}[${k}]`, v, oldMap?.[k]);
    }
  }

  #items(
    n: RuleNode,
    items: RuleNode,
    path: string,
    value: JsonValue[],
    old: JsonValue[] | undefined,
  ): void {
    const keys = n.listType === "map" ? n.listMapKeys : undefined;
    let oldByKey: Map<string, JsonValue> | undefined;
    if (keys && old) {
      oldByKey = new Map();
      for (const item of old) if (isJsonObject(item)) oldByKey.set(mapKey(item, keys), item);
    }
    value.forEach((item, i) => {
      const oldItem =
        oldByKey && keys && isJsonObject(item) ? oldByKey.get(mapKey(item, keys)) : undefined;
      this.node(items, `${path}[${i}]`, item, oldItem);
    });
  }

  #rules(n: RuleNode, path: string, value: JsonValue, old: JsonValue | undefined): void {
    const self = toCelInput(value, n.declType);
    let oldSelf: CelInput | undefined;
    const oldInput = (): CelInput => (oldSelf ??= toCelInput(old as JsonValue, n.declType));
    let unchanged: boolean | undefined;
    for (const rule of n.rules) {
      if (rule.usesOldSelf && old === undefined && !rule.optionalOldSelf) continue;
      const bindings: Record<string, CelInput> = { self };
      if (rule.usesOldSelf) {
        bindings["oldSelf"] = rule.optionalOldSelf
          ? (optionalOf(
              old === undefined ? undefined : (toCelInput(old, n.declType) as never),
            ) as never)
          : oldInput();
      }
      const failure = this.#evaluate(n, rule, path, bindings);
      if (!failure) continue;
      if (!rule.usesOldSelf && old !== undefined) {
        unchanged ??= deepEqual(value, old);
        if (unchanged) continue;
      }
      this.errors.push(failure);
    }
  }

  #meter(): CostMeter {
    return new CostMeter(Math.min(PER_CALL_COST_LIMIT, RUNTIME_COST_BUDGET - this.#budget.used));
  }

  #spend(meter: CostMeter): void {
    try {
      this.#budget.charge(meter.used);
    } catch {
      // The budget is exhausted; reported by the caller.
    }
  }

  #evaluate(
    n: RuleNode,
    rule: CompiledRule,
    path: string,
    bindings: Record<string, CelInput>,
  ): FieldError | undefined {
    const ruleText = rule.message?.trim() || rule.rule.trim();
    if (this.#budget.used >= RUNTIME_COST_BUDGET) {
      this.errors.push(
        fieldInvalid(
          path,
          n.schemaType,
          "validation failed due to running out of cost budget, no further validation rules will be run",
        ),
      );
      throw new BudgetExhausted();
    }
    const meter = this.#meter();
    const result = rule.program.evaluate(bindings, meter);
    this.#spend(meter);
    if (!result.ok) {
      if (result.costExceeded) {
        this.errors.push(
          fieldInvalid(
            path,
            n.schemaType,
            `'${result.error}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText}`,
          ),
        );
        throw new BudgetExhausted();
      }
      if (result.error.startsWith("no such overload")) {
        return fieldInvalid(
          path,
          n.schemaType,
          `'${result.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`,
        );
      }
      return fieldInvalid(path, n.schemaType, `${result.error} evaluating rule: ${ruleText}`);
    }
    if (result.value === true) return undefined;
    const errPath = path + rule.fieldPathSuffix;
    const detail =
      this.#message(n, rule, errPath, bindings) ??
      (rule.message?.trim() || `failed rule: ${rule.rule.trim()}`);
    switch (rule.reason) {
      case "FieldValueForbidden":
        return fieldForbidden(errPath, detail);
      case "FieldValueRequired":
        return fieldRequired(errPath, detail);
      case "FieldValueDuplicate":
        return fieldDuplicate(errPath, n.schemaType);
      default:
        return fieldInvalid(errPath, n.schemaType, detail);
    }
  }

  /** The evaluated messageExpression, or undefined to fall back to the message (kube logs the failure). */
  #message(
    n: RuleNode,
    rule: CompiledRule,
    errPath: string,
    bindings: Record<string, CelInput>,
  ): string | undefined {
    const program = rule.messageExpression;
    if (!program) return undefined;
    const meter = this.#meter();
    const result = program.evaluate(
      {
        self: bindings["self"] as CelInput,
        ...(bindings["oldSelf"] !== undefined ? { oldSelf: bindings["oldSelf"] } : {}),
      },
      meter,
    );
    this.#spend(meter);
    if (!result.ok) {
      if (result.costExceeded) {
        this.errors.push(
          fieldInvalid(
            errPath,
            n.schemaType,
            `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(program.source)}`,
          ),
        );
        throw new BudgetExhausted();
      }
      return undefined;
    }
    if (typeof result.value !== "string") return undefined;
    const text = result.value.trim();
    if (text === "" || /[\n]/.test(text) || Buffer.byteLength(text) > MAX_MESSAGE_EXPRESSION_BYTES)
      return undefined;
    return text;
  }
}

function mapKey(item: JsonObject, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => item[k] ?? null));
}
