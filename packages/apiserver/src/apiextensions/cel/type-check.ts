/**
 * A static type checker for parsed CEL expressions against declared variable types. `@bufbuild/cel`
 * 0.6.1's `check()` only types constants and identifiers, so kube's compile-time checks (cel-go's
 * checker) are done here: undeclared references, undefined fields of schema objects, calls with no
 * matching overload (signatures come from the environment's function resolver), and the result
 * type. Messages use cel-go's wording (`undeclared reference to 'x' (in container '')`,
 * `undefined field 'x'`, `found no matching overload for 'f' applied to '(int, string)'`).
 * Parametric functions are approximated: a `dyn` in a signature accepts anything.
 */
import type { CelEnv } from "@bufbuild/cel";
import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import {
  DECL,
  type DeclType,
  declFromCelType,
  isAssignable,
  isOptionalDecl,
  joinTypes,
  listDecl,
  mapDecl,
  optionalDecl,
  sizedScalar,
} from "./decl-type.js";

/** One checker finding, at the character offset of the expression it concerns. */
export interface CheckIssue {
  readonly message: string;
  readonly offset: number;
}

/** The outcome of checking one expression. */
export interface CheckResult {
  readonly type: DeclType;
  readonly issues: readonly CheckIssue[];
  /** Declared variables the expression references (e.g. `oldSelf` makes a transition rule). */
  readonly references: ReadonlySet<string>;
  /** The inferred type of every sub-expression by id (used by the cost estimator). */
  readonly types: ReadonlyMap<bigint, DeclType>;
}

const TYPE_IDENTS = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
]);

/** Checks `expr` with `variables` declared and the functions of `env`. */
export function checkExpression(
  expr: Expr,
  variables: ReadonlyMap<string, DeclType>,
  env: CelEnv,
  positions: { readonly [id: string]: number },
): CheckResult {
  const checker = new Checker(variables, env, positions);
  const type = checker.check(expr, new Map());
  return { type, issues: checker.issues, references: checker.references, types: checker.types };
}

type Scope = ReadonlyMap<string, DeclType>;

class Checker {
  readonly issues: CheckIssue[] = [];
  readonly references = new Set<string>();
  readonly types = new Map<bigint, DeclType>();

  constructor(
    private readonly variables: ReadonlyMap<string, DeclType>,
    private readonly env: CelEnv,
    private readonly positions: { readonly [id: string]: number },
  ) {}

  check(e: Expr, scope: Scope): DeclType {
    const t = this.#check(e, scope);
    this.types.set(e.id, t);
    return t;
  }

  #issue(e: Expr, message: string): DeclType {
    this.issues.push({ message, offset: this.positions[e.id.toString()] ?? 0 });
    return DECL.DYN;
  }

  #check(e: Expr, scope: Scope): DeclType {
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr": {
        const c = k.value.constantKind;
        if (c.case === "stringValue") return sizedScalar(DECL.STRING, c.value.length);
        if (c.case === "bytesValue") return sizedScalar(DECL.BYTES, c.value.length);
        return constType(c.case);
      }
      case "identExpr":
        return this.#ident(e, k.value.name, scope);
      case "selectExpr": {
        const qualified = qualifiedName(e);
        // A declared qualified name (`authorizer.requestResource`) is that variable, as in cel-go.
        if (
          qualified !== undefined &&
          this.variables.has(qualified) &&
          !scope.has(qualified.split(".")[0] ?? "")
        ) {
          return this.#ident(e, qualified, scope);
        }
        if (qualified !== undefined && !this.#resolvable(qualified, scope)) {
          const root = qualified.split(".")[0] ?? qualified;
          if (!scope.has(root) && !this.variables.has(root)) {
            return this.#issue(e, `undeclared reference to '${qualified}' (in container '')`);
          }
        }
        if (!k.value.operand) return DECL.DYN;
        const operand = this.check(k.value.operand, scope);
        return k.value.testOnly
          ? this.#has(e, operand, k.value.field)
          : this.#select(e, operand, k.value.field);
      }
      case "listExpr": {
        let elem: DeclType | undefined;
        for (const el of k.value.elements) {
          const t = this.check(el, scope);
          elem = elem === undefined ? t : joinTypes(elem, t);
        }
        return listDecl(elem ?? DECL.DYN, k.value.elements.length);
      }
      case "structExpr": {
        let key: DeclType | undefined;
        let value: DeclType | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === "mapKey") {
            const kt = this.check(entry.keyKind.value, scope);
            key = key === undefined ? kt : joinTypes(key, kt);
          }
          if (entry.value) {
            const vt = this.check(entry.value, scope);
            value = value === undefined ? vt : joinTypes(value, vt);
          }
        }
        if (k.value.messageName)
          return this.#issue(
            e,
            `undeclared reference to '${k.value.messageName}' (in container '')`,
          );
        return mapDecl(key ?? DECL.DYN, value ?? DECL.DYN, k.value.entries.length);
      }
      case "comprehensionExpr":
        return this.#comprehension(k.value, scope);
      case "callExpr":
        return this.#call(e, k.value, scope);
      default:
        return DECL.DYN;
    }
  }

  #resolvable(name: string, scope: Scope): boolean {
    return scope.has(name) || this.variables.has(name);
  }

  #ident(e: Expr, name: string, scope: Scope): DeclType {
    const local = scope.get(name);
    if (local) return local;
    const declared = this.variables.get(name);
    if (declared) {
      this.references.add(name);
      return declared;
    }
    if (TYPE_IDENTS.has(name)) return DECL.TYPE;
    return this.#issue(e, `undeclared reference to '${name}' (in container '')`);
  }

  #select(e: Expr, operand: DeclType, field: string): DeclType {
    switch (operand.kind) {
      case "object": {
        const t = operand.fields?.get(field);
        return t ?? this.#issue(e, `undefined field '${field}'`);
      }
      case "map":
        return operand.elem ?? DECL.DYN;
      case "dyn":
        return DECL.DYN;
      default:
        return this.#issue(e, `type '${operand.name}' does not support field selection`);
    }
  }

  #has(e: Expr, operand: DeclType, field: string): DeclType {
    if (operand.kind === "object" && !operand.fields?.has(field))
      return this.#issue(e, `undefined field '${field}'`);
    if (operand.kind !== "object" && operand.kind !== "map" && operand.kind !== "dyn") {
      return this.#issue(e, `type '${operand.name}' does not support field selection`);
    }
    return DECL.BOOL;
  }

  #comprehension(
    c: Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"],
    scope: Scope,
  ): DeclType {
    const range = c.iterRange ? this.check(c.iterRange, scope) : DECL.DYN;
    let iterType: DeclType;
    switch (range.kind) {
      case "list":
        iterType = range.elem ?? DECL.DYN;
        break;
      case "map":
        iterType = range.key ?? DECL.DYN;
        break;
      case "dyn":
        iterType = DECL.DYN;
        break;
      default:
        if (c.iterRange)
          this.#issue(
            c.iterRange,
            `expression of type '${range.name}' cannot be range of a comprehension (must be list, map, or dynamic)`,
          );
        iterType = DECL.DYN;
    }
    const accuInit = c.accuInit ? this.check(c.accuInit, scope) : DECL.DYN;
    const inner = new Map(scope);
    inner.set(c.accuVar, accuInit);
    inner.set(c.iterVar, iterType);
    if (c.loopCondition) this.check(c.loopCondition, inner);
    let accu = accuInit;
    if (c.loopStep) {
      const step = this.check(c.loopStep, inner);
      accu =
        accuInit.kind === "list"
          ? joinTypes(accuInit, step)
          : accuInit.kind === "dyn"
            ? step
            : accuInit;
      if (accu.kind === "list") accu = listDecl(accu.elem ?? DECL.DYN, range.maxElements);
    }
    const outer = new Map(scope);
    outer.set(c.accuVar, accu);
    return c.result ? this.check(c.result, outer) : accu;
  }

  #call(
    e: Expr,
    call: Extract<Expr["exprKind"], { case: "callExpr" }>["value"],
    scope: Scope,
  ): DeclType {
    // A qualified function name such as `optional.of` or `format.dns1123Label`.
    if (call.target) {
      const qualified = qualifiedName(call.target);
      if (qualified !== undefined && !this.#resolvable(qualified.split(".")[0] ?? "", scope)) {
        const name = `${qualified}.${call.function}`;
        if (this.env.funcs.find(name)) {
          const args = call.args.map((a) => this.check(a, scope));
          return this.#overload(e, name, undefined, args);
        }
      }
    }
    const target = call.target ? this.check(call.target, scope) : undefined;
    const args = call.args.map((a) => this.check(a, scope));
    const special = this.#special(e, call.function, target, args);
    if (special) return special;
    return this.#overload(e, call.function, target, args);
  }

  #special(
    e: Expr,
    fn: string,
    target: DeclType | undefined,
    args: DeclType[],
  ): DeclType | undefined {
    const [a, b, c] = args;
    switch (fn) {
      case "_&&_":
      case "_||_":
      case "!_":
      case "@not_strictly_false":
      case "__not_strictly_false__":
        if (args.some((t) => !isAssignable(t, DECL.BOOL)))
          return this.#noOverload(e, fn, undefined, args);
        return DECL.BOOL;
      case "_==_":
      case "_!=_":
        if (a && b && !isAssignable(a, b) && !(a.kind === "null_type" || b.kind === "null_type")) {
          return this.#noOverload(e, fn, undefined, args);
        }
        return DECL.BOOL;
      case "_?_:_":
        if (a && !isAssignable(a, DECL.BOOL)) return this.#noOverload(e, fn, undefined, args);
        if (b && c && !isAssignable(b, c) && !isAssignable(c, b))
          return this.#noOverload(e, fn, undefined, args);
        return b && c ? joinTypes(b, c) : DECL.DYN;
      case "_[_]":
        return this.#index(e, a, b, args);
      case "@in":
        if (b && b.kind !== "list" && b.kind !== "map" && b.kind !== "dyn")
          return this.#noOverload(e, fn, undefined, args);
        return DECL.BOOL;
      case "_+_":
        if (a?.kind === "list" && b?.kind === "list") {
          const joined = joinTypes(a, b);
          return joined.kind === "list"
            ? joined
            : listDecl(DECL.DYN, a.maxElements + b.maxElements);
        }
        return undefined;
      case "dyn":
        return target === undefined && args.length === 1 ? DECL.DYN : undefined;
      case "type":
        return target === undefined && args.length === 1 ? DECL.TYPE : undefined;
      default:
        return this.#parametric(fn, target, args);
    }
  }

  /** Result types of the parametric library functions, whose signatures say `dyn`. */
  #parametric(fn: string, target: DeclType | undefined, args: DeclType[]): DeclType | undefined {
    if (
      target?.kind === "list" &&
      (fn === "min" || fn === "max" || fn === "sum") &&
      args.length === 0
    ) {
      return target.elem ?? DECL.DYN;
    }
    if (target && isOptionalDecl(target)) {
      if (fn === "value" && args.length === 0) return target.elem ?? DECL.DYN;
      if (fn === "orValue" && args.length === 1) return target.elem ?? DECL.DYN;
      if (fn === "or" && args.length === 1) return target;
    }
    return undefined;
  }

  #index(e: Expr, a: DeclType | undefined, b: DeclType | undefined, args: DeclType[]): DeclType {
    if (!a || !b) return DECL.DYN;
    switch (a.kind) {
      case "list":
        if (!isAssignable(b, DECL.INT) && b.kind !== "uint" && b.kind !== "double")
          return this.#noOverload(e, "_[_]", undefined, args);
        return a.elem ?? DECL.DYN;
      case "map":
        if (!isAssignable(b, a.key ?? DECL.DYN))
          return this.#noOverload(e, "_[_]", undefined, args);
        return a.elem ?? DECL.DYN;
      case "dyn":
        return DECL.DYN;
      default:
        return this.#noOverload(e, "_[_]", undefined, args);
    }
  }

  #overload(e: Expr, fn: string, target: DeclType | undefined, args: DeclType[]): DeclType {
    const group = this.env.funcs.find(fn);
    if (!group) return this.#issue(e, `undeclared reference to '${fn}' (in container '')`);
    let result: DeclType | undefined;
    for (const f of group) {
      if ((f.target === undefined) !== (target === undefined)) continue;
      if (f.arguments.length !== args.length) continue;
      if (target && f.target && !isAssignable(target, declFromCelType(f.target))) continue;
      if (!args.every((t, i) => isAssignable(t, declFromCelType(f.arguments[i] ?? f.result))))
        continue;
      const r = declFromCelType(f.result);
      result = result === undefined ? r : joinTypes(result, r);
      if (target?.kind !== "dyn" && args.every((t) => t.kind !== "dyn")) break;
    }
    if (fn === "optional.of" || fn === "optional.ofNonZeroValue")
      return optionalDecl(args[0] ?? DECL.DYN);
    return result ?? this.#noOverload(e, fn, target, args);
  }

  #noOverload(e: Expr, fn: string, target: DeclType | undefined, args: DeclType[]): DeclType {
    const prefix = target ? `${target.name}.` : "";
    return this.#issue(
      e,
      `found no matching overload for '${fn}' applied to '${prefix}(${args.map((t) => t.name).join(", ")})'`,
    );
  }
}

function constType(kind: string | undefined): DeclType {
  switch (kind) {
    case "boolValue":
      return DECL.BOOL;
    case "bytesValue":
      return DECL.BYTES;
    case "doubleValue":
      return DECL.DOUBLE;
    case "int64Value":
      return DECL.INT;
    case "uint64Value":
      return DECL.UINT;
    case "stringValue":
      return DECL.STRING;
    case "nullValue":
      return DECL.NULL;
    default:
      return DECL.DYN;
  }
}

/** `a.b.c` for a chain of identifier selections, otherwise `undefined`. */
function qualifiedName(e: Expr): string | undefined {
  const k = e.exprKind;
  if (k.case === "identExpr") return k.value.name;
  if (k.case === "selectExpr" && !k.value.testOnly && k.value.operand) {
    const prefix = qualifiedName(k.value.operand);
    return prefix === undefined ? undefined : `${prefix}.${k.value.field}`;
  }
  return undefined;
}
