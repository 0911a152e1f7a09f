/**
 * The runtime cost limit (cel-go's `CostLimit` with `InterruptCheckFrequency`, as kube sets
 * `PerCallLimit` per expression and `RuntimeCELCostBudget` per object). `@bufbuild/cel` has no
 * cost tracking, so every function of the environment is wrapped to charge a cost (1 plus a tenth
 * of the size of its string, bytes, list and map arguments, as cel-go's runtime costs are
 * shaped), and every comprehension's loop condition and step are routed through `@tick` (one unit each). When
 * the meter is exhausted, the charging call throws; the evaluation then ends with an error and
 * the caller reports kube's "actual cost limit exceeded" error.
 *
 * Evaluation is synchronous, so the meter in use is held in a module variable during one run.
 */
import {
  celFunc,
  celMethod,
  CelScalar,
  isCelError,
  isCelList,
  isCelMap,
  type CelFunc,
  type CelValue,
} from "@bufbuild/cel";
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";

/** Text of the error that ends an evaluation over its limit (cel-go's wording). */
export const COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded";

/** Counts the cost of one or more evaluations against a limit. */
export class CostMeter {
  #used = 0;
  #exceeded = false;

  constructor(readonly limit: number) {}

  /** Cost charged so far. */
  get used(): number {
    return this.#used;
  }

  /** Whether a charge went over the limit. */
  get exceeded(): boolean {
    return this.#exceeded;
  }

  /** Adds `cost`; throws {@link COST_LIMIT_EXCEEDED} once over the limit. */
  charge(cost: number): void {
    this.#used += cost;
    if (this.#used > this.limit) {
      this.#exceeded = true;
      throw new Error(COST_LIMIT_EXCEEDED);
    }
  }
}

let current: CostMeter | undefined;

/** Runs `fn` with `meter` charged by every wrapped function and comprehension step. */
export function withCostMeter<T>(meter: CostMeter, fn: () => T): T {
  const previous = current;
  current = meter;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** Charges `cost` to the meter of the running evaluation (no-op outside one). */
export function chargeCost(cost: number): void {
  current?.charge(cost);
}

function sizeOf(v: CelValue | undefined): number {
  if (typeof v === "string") return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (isCelList(v) || isCelMap(v)) return v.size;
  return 0;
}

function chargeCall(target: CelValue | undefined, args: readonly CelValue[]): void {
  if (!current) return;
  let size = sizeOf(target);
  for (const a of args) size += sizeOf(a);
  current.charge(1 + Math.ceil(size * 0.1));
}

/** `func` charging the meter before it runs (same name, signature and id, so it replaces it). */
export function meteredFunc(func: CelFunc): CelFunc {
  const call = (target: CelValue | undefined, args: CelValue[]): CelValue => {
    chargeCall(target, args);
    const result = func.call(0, target, args);
    if (result === undefined) throw new Error(`no such overload: ${func.name}`);
    if (isCelError(result)) throw result;
    return result;
  };
  if (func.target) {
    return celMethod(func.name, func.target, func.arguments, func.result, function (
      this: CelValue,
      ...args: CelValue[]
    ) {
      return call(this, args);
    } as never);
  }
  return celFunc(func.name, func.arguments, func.result, ((...args: CelValue[]) =>
    call(undefined, args)) as never);
}

/** Name of the function every comprehension step is routed through. */
const TICK = "@tick";

/** The `@tick` function: one unit per comprehension iteration, returns its argument. */
export const tickFunc: CelFunc = celFunc(TICK, [CelScalar.DYN], CelScalar.DYN, ((v: CelValue) => {
  current?.charge(1);
  return v;
}) as never);

/** `e` routed through `@tick`. */
function tick(e: Expr): Expr {
  return {
    ...e,
    exprKind: {
      case: "callExpr",
      value: { $typeName: "cel.expr.Expr.Call", function: TICK, args: [e] },
    },
  } as Expr;
}

/**
 * Rewrites `expr` in place so that every comprehension's loop condition and step call `@tick`:
 * once the meter is exhausted, the condition fails and `@bufbuild/cel` ends the loop at once.
 */
export function instrumentComprehensions(expr: Expr): void {
  const kind = expr.exprKind;
  switch (kind.case) {
    case "callExpr":
      if (kind.value.target) instrumentComprehensions(kind.value.target);
      kind.value.args.forEach(instrumentComprehensions);
      break;
    case "selectExpr":
      if (kind.value.operand) instrumentComprehensions(kind.value.operand);
      break;
    case "listExpr":
      kind.value.elements.forEach(instrumentComprehensions);
      break;
    case "structExpr":
      for (const e of kind.value.entries) {
        if (e.value) instrumentComprehensions(e.value);
        if (e.keyKind.case === "mapKey") instrumentComprehensions(e.keyKind.value);
      }
      break;
    case "comprehensionExpr": {
      const c = kind.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) {
        if (e) instrumentComprehensions(e);
      }
      if (c.loopCondition) c.loopCondition = tick(c.loopCondition);
      if (c.loopStep) c.loopStep = tick(c.loopStep);
      break;
    }
    default:
      break;
  }
}
