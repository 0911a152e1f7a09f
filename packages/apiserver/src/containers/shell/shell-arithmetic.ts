/**
 * Shell arithmetic, `$((…))` (POSIX.1-2017 XCU 2.6.4, with C's integer operators): decimal,
 * octal (`010`) and hexadecimal (`0x1f`) constants, variables by name (unset or empty: 0),
 * unary `+ - ! ~`, binary `* / % + - << >> < <= > >= == != & ^ | && ||`, `?:`, parentheses and
 * the assignments `= *= /= %= += -=`. Integers are JavaScript safe integers, truncated toward
 * zero on division.
 */

/** An expression the shell cannot evaluate; the message is what `sh` prints after `sh: `. */
export class ArithmeticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArithmeticError";
  }
}

/** Where an expression reads and assigns variables. */
export interface ArithmeticVariables {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

type Token =
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "name"; readonly name: string }
  | { readonly kind: "op"; readonly op: string };

const OPERATORS = [
  "<<=", ">>=", "&&", "||", "<<", ">>", "<=", ">=", "==", "!=", "*=", "/=", "%=", "+=", "-=",
  "&=", "^=", "|=", "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!", "~", "?", ":", "=", "(", ")",
]; // prettier-ignore

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const number = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?![0-9A-Za-z_])/.exec(rest);
    if (number) {
      const t = number[1]!;
      const value = /^0[xX]/.test(t)
        ? parseInt(t, 16)
        : t.length > 1 && t.startsWith("0")
          ? parseInt(t, 8)
          : Number(t);
      tokens.push({ kind: "number", value });
      i += t.length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      tokens.push({ kind: "name", name: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op === undefined) throw new ArithmeticError(`arithmetic syntax error: "${text}"`);
    tokens.push({ kind: "op", op });
    i += op.length;
  }
  return tokens;
}

/** Binary operators by precedence level, loosest first (C's order). */
const LEVELS: readonly (readonly string[])[] = [
  ["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", "<=", ">", ">="], ["<<", ">>"], ["+", "-"], ["*", "/", "%"],
]; // prettier-ignore

function applyBinary(op: string, a: number, b: number, text: string): number {
  switch (op) {
    case "||": return a !== 0 || b !== 0 ? 1 : 0;
    case "&&": return a !== 0 && b !== 0 ? 1 : 0;
    case "|": return a | b;
    case "^": return a ^ b;
    case "&": return a & b;
    case "==": return a === b ? 1 : 0;
    case "!=": return a !== b ? 1 : 0;
    case "<": return a < b ? 1 : 0;
    case "<=": return a <= b ? 1 : 0;
    case ">": return a > b ? 1 : 0;
    case ">=": return a >= b ? 1 : 0;
    case "<<": return a * 2 ** b;
    case ">>": return Math.floor(a / 2 ** b);
    case "+": return a + b;
    case "-": return a - b;
    case "*": return a * b;
    default:
      if (b === 0) throw new ArithmeticError(`arithmetic syntax error: division by zero in "${text}"`);
      return op === "/" ? Math.trunc(a / b) : a % b;
  }
} // prettier-ignore

/** Evaluates `text` (after the shell's parameter expansion) with `vars`. */
export function evaluateArithmetic(text: string, vars: ArithmeticVariables): number {
  const tokens = tokenize(text);
  let pos = 0;
  const fail = (): never => {
    throw new ArithmeticError(`arithmetic syntax error: "${text.trim()}"`);
  };
  const isOp = (op: string): boolean => {
    const t = tokens[pos];
    return t?.kind === "op" && t.op === op;
  };
  const valueOf = (name: string): number => {
    const raw = (vars.get(name) ?? "").trim();
    if (raw === "") return 0;
    const n = Number(raw);
    if (!Number.isInteger(n)) fail();
    return n;
  };
  const primary = (): number => {
    const t = tokens[pos++];
    if (t === undefined) return fail();
    if (t.kind === "number") return t.value;
    if (t.kind === "name") return valueOf(t.name);
    if (t.op === "(") {
      const v = assignment();
      if (!isOp(")")) fail();
      pos++;
      return v;
    }
    if (t.op === "-") return -primary();
    if (t.op === "+") return primary();
    if (t.op === "!") return primary() === 0 ? 1 : 0;
    if (t.op === "~") return ~primary();
    return fail();
  };
  const binary = (level: number): number => {
    if (level === LEVELS.length) return primary();
    let left = binary(level + 1);
    for (;;) {
      const t = tokens[pos];
      if (t?.kind !== "op" || !LEVELS[level]!.includes(t.op)) return left;
      pos++;
      left = applyBinary(t.op, left, binary(level + 1), text);
    }
  };
  const conditional = (): number => {
    const condition = binary(0);
    if (!isOp("?")) return condition;
    pos++;
    const yes = assignment();
    if (!isOp(":")) fail();
    pos++;
    const no = conditional();
    return condition !== 0 ? yes : no;
  };
  const assignment = (): number => {
    const t = tokens[pos];
    const next = tokens[pos + 1];
    if (t?.kind === "name" && next?.kind === "op" && /^([-+*/%&^|]|<<|>>)?=$/.test(next.op)) {
      pos += 2;
      const right = assignment();
      const value =
        next.op === "=" ? right : applyBinary(next.op.slice(0, -1), valueOf(t.name), right, text);
      vars.set(t.name, String(value));
      return value;
    }
    return conditional();
  };
  if (tokens.length === 0) return 0;
  const result = assignment();
  if (pos < tokens.length) fail();
  return result;
}
