/**
 * A worst-case static cost estimate of a checked expression, shaped like cel-go's
 * `checker.CostEstimator` with kube's size estimator (`library/cost.go`): identifiers and field
 * selections cost 1, literals of lists and maps 10 and 30, most calls 1, string and bytes
 * functions a tenth of the maximum length involved (comparisons: of the shorter operand), list
 * functions the maximum number of items, indexing and `size()` 1,
 * and a comprehension its range's maximum size times the cost of one iteration. Sizes come from
 * the schema (`maxItems`, `maxProperties`, `maxLength`, or kube's estimate from the maximum
 * request size when unbounded). This is an approximation of cel-go's figures, not a copy: costs
 * agree in order of magnitude, so rules that are quadratic or worse over unbounded data are
 * refused as kube refuses them, and rules over bounded data pass.
 */
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import type { DeclType } from "./decl-type.js";

const STRING_TRAVERSAL_FACTOR = 0.1;

/** Estimated worst-case cost of `expr` given the types the checker inferred. */
export function estimateCost(expr: Expr, types: ReadonlyMap<bigint, DeclType>): number {
  return new Estimator(types).cost(expr);
}

class Estimator {
  constructor(private readonly types: ReadonlyMap<bigint, DeclType>) {}

  #size(e: Expr | undefined): number {
    return e ? (this.types.get(e.id)?.maxElements ?? 0) : 0;
  }

  cost(e: Expr | undefined): number {
    if (!e) return 0;
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr":
        return 0;
      case "identExpr":
        return 1;
      case "selectExpr":
        return this.cost(k.value.operand) + 1;
      case "listExpr":
        return 10 + k.value.elements.reduce((s, el) => s + this.cost(el), 0);
      case "structExpr":
        return (
          30 +
          k.value.entries.reduce(
            (s, en) =>
              s +
              this.cost(en.value) +
              (en.keyKind.case === "mapKey" ? this.cost(en.keyKind.value) : 0),
            0,
          )
        );
      case "comprehensionExpr": {
        const c = k.value;
        const iterations = this.#size(c.iterRange);
        const perIteration = this.cost(c.loopCondition) + this.cost(c.loopStep);
        return (
          this.cost(c.iterRange) +
          this.cost(c.accuInit) +
          iterations * perIteration +
          this.cost(c.result)
        );
      }
      case "callExpr": {
        const call = k.value;
        let total = this.cost(call.target);
        for (const a of call.args) total += this.cost(a);
        return total + this.#callCost(call.function, call.target, call.args);
      }
      default:
        return 0;
    }
  }

  #callCost(fn: string, target: Expr | undefined, args: readonly Expr[]): number {
    const operands = target ? [target, ...args] : [...args];
    const sized = (kinds: readonly string[]): number[] =>
      operands
        .filter((o) => kinds.includes(this.types.get(o.id)?.kind ?? ""))
        .map((o) => this.#size(o));
    const strings = sized(["string", "bytes"]);
    const lists = sized(["list"]);
    const stringTotal = strings.reduce((a, b) => a + b, 0);
    const traversal = (n: number): number => Math.ceil(n * STRING_TRAVERSAL_FACTOR);
    switch (fn) {
      case "_==_":
      case "_!=_":
      case "_<_":
      case "_<=_":
      case "_>_":
      case "_>=_":
        // Comparing stops at the shorter operand.
        return (
          1 +
          traversal(strings.length === 2 ? Math.min(...strings) : 0) +
          (lists.length === 2 ? Math.min(...lists) : 0)
        );
      case "_[_]":
      case "size":
      case "has":
        return 1;
      case "@in":
        return 1 + (lists[0] ?? 0);
      case "matches":
      case "find":
      case "findAll": {
        // Linear in the input times the pattern's size (kube's RE2 cost shape).
        const input = this.#size(target);
        const pattern = this.#size(args[0]);
        return 1 + traversal(input) * Math.max(1, Math.ceil(pattern / 4));
      }
      case "sets.contains":
      case "sets.equivalent":
      case "sets.intersects":
        return 1 + lists.reduce((a, b) => a * Math.max(b, 1), 1);
      default:
        return 1 + traversal(stringTotal) + lists.reduce((a, b) => a + b, 0);
    }
  }
}
