/**
 * Compiling one CEL expression against declared variables: parse (`@bufbuild/cel`), type check
 * (type-check.ts), estimate the worst-case cost (cost-estimate.ts), plan. The general entry for
 * every Kubernetes CEL use: CRD validation rules and their `messageExpression`
 * (compile-schema-validations.ts) and, later, admission match conditions and
 * ValidatingAdmissionPolicy (variables `object`, `oldObject`, `request`, `params`, ...).
 *
 * Compile errors are worded as cel-go's issues print (`ERROR: <input>:1:6: undefined field 'foo'`
 * followed by the source line and a caret); evaluation errors as cel-go's runtime errors
 * (`no such key: foo`, `division by zero`, ...).
 */
import { isCelError, parse, plan, type CelInput, type CelValue } from "@bufbuild/cel";
import type { Expr, ParsedExpr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import type { DeclType } from "./decl-type.js";
import { estimateCost } from "./cost-estimate.js";
import { kubernetesCelEnv } from "./environment.js";
import {
  COST_LIMIT_EXCEEDED,
  CostMeter,
  instrumentComprehensions,
  withCostMeter,
} from "./runtime-cost.js";
import { checkExpression, type CheckIssue } from "./type-check.js";

/** kube's per-call runtime cost limit (`k8s.io/apiserver/pkg/apis/cel/config.go` PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;

/** Expressions longer than this are refused before parsing (bounds parser time). */
export const MAX_EXPRESSION_LENGTH = 64 * 1024;

/** What {@link compileCelExpression} needs. */
export interface CelCompileOptions {
  /** The variables the expression may reference, with their types. */
  readonly variables: ReadonlyMap<string, DeclType>;
}

/** The result of evaluating a compiled expression. */
export type CelEvaluation =
  | { readonly ok: true; readonly value: CelValue }
  | { readonly ok: false; readonly error: string; readonly costExceeded: boolean };

/** A compiled, type-checked expression, ready to evaluate any number of times. */
export class CelProgram {
  readonly #run: (bindings: Record<string, CelInput>) => unknown;

  /** @internal */
  constructor(
    /** The expression's source. */
    readonly source: string,
    /** The static type of the result. */
    readonly resultType: DeclType,
    /** Worst-case estimated cost (cel-go cost units, approximated). */
    readonly estimatedCost: number,
    /** The declared variables the expression references. */
    readonly references: ReadonlySet<string>,
    run: (bindings: Record<string, CelInput>) => unknown,
  ) {
    this.#run = run;
  }

  /**
   * Evaluates with `bindings` (every referenced variable bound), charging `meter` (a fresh meter
   * of {@link PER_CALL_COST_LIMIT} when omitted). Never throws.
   */
  evaluate(
    bindings: Record<string, CelInput>,
    meter = new CostMeter(PER_CALL_COST_LIMIT),
  ): CelEvaluation {
    let result: unknown;
    try {
      result = withCostMeter(meter, () => this.#run(bindings));
    } catch (e) {
      result = e;
    }
    if (meter.exceeded) return { ok: false, error: COST_LIMIT_EXCEEDED, costExceeded: true };
    if (isCelError(result) || result instanceof Error) {
      return { ok: false, error: runtimeErrorText(result.message), costExceeded: false };
    }
    return { ok: true, value: result as CelValue };
  }
}

/** The outcome of {@link compileCelExpression}: a program, or cel-go's issues text. */
export type CelCompileResult =
  | { readonly ok: true; readonly program: CelProgram }
  | { readonly ok: false; readonly error: string };

/** Compiles `source` against `options.variables`. Never throws. */
export function compileCelExpression(source: string, options: CelCompileOptions): CelCompileResult {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    return {
      ok: false,
      error: `ERROR: <input>:1:1: expression exceeds the maximum length of ${MAX_EXPRESSION_LENGTH}`,
    };
  }
  let parsed: ParsedExpr;
  try {
    parsed = parse(source);
  } catch (e) {
    return { ok: false, error: syntaxErrorText(source, e) };
  }
  const expr = parsed.expr;
  if (!expr) return { ok: false, error: "ERROR: <input>:1:1: empty expression" };
  try {
    return compileParsed(source, parsed, expr, options);
  } catch (e) {
    // Pathologically deep expressions exhaust the stack of the checker or planner.
    return {
      ok: false,
      error: `ERROR: <input>:1:1: expression could not be compiled: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

function compileParsed(
  source: string,
  parsed: ParsedExpr,
  expr: Expr,
  options: CelCompileOptions,
): CelCompileResult {
  const env = kubernetesCelEnv();
  const checked = checkExpression(expr, options.variables, env, parsed.sourceInfo?.positions ?? {});
  if (checked.issues.length > 0) return { ok: false, error: formatIssues(source, checked.issues) };
  const cost = estimateCost(expr, checked.types);
  instrumentComprehensions(expr);
  const run = plan(env, parsed) as (bindings: Record<string, CelInput>) => unknown;
  return { ok: true, program: new CelProgram(source, checked.type, cost, checked.references, run) };
}

/** cel-go's issue text: `ERROR: <input>:L:C: message`, the source line, and a caret under column C. */
function formatIssues(source: string, issues: readonly CheckIssue[]): string {
  return issues.map((i) => formatIssue(source, i.offset, i.message)).join("\n");
}

function formatIssue(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = offset - lineStart;
  const lineText = source.slice(lineStart).split("\n")[0] ?? "";
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${lineText}\n | ${".".repeat(column)}^`;
}

function syntaxErrorText(source: string, e: unknown): string {
  const err = e as {
    rawMessage?: unknown;
    location?: { start?: { offset?: number } };
    message?: unknown;
  };
  const message = typeof err.rawMessage === "string" ? err.rawMessage : String(err.message ?? e);
  const offset = err.location?.start?.offset ?? 0;
  return formatIssue(source, Math.min(offset, source.length), `Syntax error: ${message}`);
}

/** `@bufbuild/cel`'s runtime error texts rewritten to cel-go's. */
function runtimeErrorText(message: string): string {
  const field = /^field not found: (.*)$/.exec(message);
  if (field) return `no such key: ${field[1]}`;
  const index = /^index (-?\d+) out of bounds \[0, (-?\d+)\)$/.exec(message);
  if (index) return `index out of bounds: ${index[1]}`;
  if (/divide by zero/.test(message)) return "division by zero";
  if (/modulus by zero|modulo by zero/.test(message)) return "modulus by zero";
  if (/^int overflow/.test(message)) return "integer overflow";
  if (/^uint overflow/.test(message)) return "unsigned integer overflow";
  const overload = /^found no matching overload for '([^']*)'/.exec(message);
  if (overload)
    return `no such overload: ${message.slice("found no matching overload for ".length)}`;
  return message;
}
