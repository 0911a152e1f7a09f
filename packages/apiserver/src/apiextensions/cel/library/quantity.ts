/**
 * Kubernetes' quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`): `quantity(s)`,
 * `isQuantity(s)`, and on `kubernetes.Quantity` `sign()`, `isInteger()`, `asInteger()`,
 * `asApproximateFloat()`, `add(q|int)`, `sub(q|int)`, `compareTo(q)`, `isGreaterThan(q)`,
 * `isLessThan(q)`. Quantities are parsed with apimachinery's grammar (`resource.ParseQuantity`:
 * decimal SI suffixes n u m k M G T P E, binary Ki..Ei, exponents e3/E3) and held as exact
 * rationals, so comparisons and sums are exact; `==` compares values (`1k == 1000`).
 */
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from "@bufbuild/cel";
import { OpaqueType } from "../opaque-values.js";

/** An exact rational value: num / den, den > 0, reduced. */
interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** `kubernetes.Quantity` values. */
export const QUANTITY = new OpaqueType<Rational>("kubernetes.Quantity");

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const QUANTITY_SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function rational(num: bigint, den: bigint): Rational {
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

/** Parses a quantity; `undefined` when `s` is not one (apimachinery's ErrFormatWrong). */
export function parseQuantity(s: string): Rational | undefined {
  const m = QUANTITY_SYNTAX.exec(s);
  if (!m || s.length > 128) return undefined;
  const [, sign = "", whole = "", frac = "", suffix = ""] = m;
  if (whole === "" && frac === "") return undefined;
  let num = BigInt(`${whole}${frac}` || "0");
  let den = 10n ** BigInt(frac.length);
  if (sign === "-") num = -num;
  if (suffix in BINARY) {
    num *= 2n ** BigInt(BINARY[suffix] ?? 0);
  } else if (suffix in DECIMAL) {
    const e = DECIMAL[suffix] ?? 0;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  } else {
    const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (!exp) return undefined;
    const e = Number(exp[1]);
    if (Math.abs(e) > 1000) return undefined;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  return rational(num, den);
}

function wrap(r: Rational): CelValue {
  return QUANTITY.wrap(r, `${r.num}/${r.den}`) as unknown as CelValue;
}

function compare(a: Rational, b: Rational): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

function add(a: Rational, b: Rational, sign: bigint): Rational {
  return rational(a.num * b.den + sign * b.num * a.den, a.den * b.den);
}

function isInt64(r: Rational): boolean {
  return r.den === 1n && r.num <= INT64_MAX && r.num >= INT64_MIN;
}

const { STRING, BOOL, INT, DOUBLE } = CelScalar;
const Q = QUANTITY.celType;
type Self = CelValue;

/** The quantity functions. */
export const quantityLibrary: readonly CelFunc[] = [
  celFunc("quantity", [STRING], Q, ((s: string) => {
    const q = parseQuantity(s);
    if (!q)
      throw new Error(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    return wrap(q);
  }) as never),
  celFunc("isQuantity", [STRING], BOOL, ((s: string) => parseQuantity(s) !== undefined) as never),
  celMethod("sign", Q, [], INT, function (this: Self) {
    return BigInt(Math.sign(Number(QUANTITY.payload(this).num)));
  } as never),
  celMethod("isInteger", Q, [], BOOL, function (this: Self) {
    return isInt64(QUANTITY.payload(this));
  } as never),
  celMethod("asInteger", Q, [], INT, function (this: Self) {
    const q = QUANTITY.payload(this);
    if (!isInt64(q)) throw new Error("cannot convert value to integer");
    return q.num;
  } as never),
  celMethod("asApproximateFloat", Q, [], DOUBLE, function (this: Self) {
    const q = QUANTITY.payload(this);
    return Number(q.num) / Number(q.den);
  } as never),
  celMethod("add", Q, [Q], Q, function (this: Self, o: CelValue) {
    return wrap(add(QUANTITY.payload(this), QUANTITY.payload(o), 1n));
  } as never),
  celMethod("add", Q, [INT], Q, function (this: Self, o: bigint) {
    return wrap(add(QUANTITY.payload(this), rational(o, 1n), 1n));
  } as never),
  celMethod("sub", Q, [Q], Q, function (this: Self, o: CelValue) {
    return wrap(add(QUANTITY.payload(this), QUANTITY.payload(o), -1n));
  } as never),
  celMethod("sub", Q, [INT], Q, function (this: Self, o: bigint) {
    return wrap(add(QUANTITY.payload(this), rational(o, 1n), -1n));
  } as never),
  celMethod("compareTo", Q, [Q], INT, function (this: Self, o: CelValue) {
    return BigInt(compare(QUANTITY.payload(this), QUANTITY.payload(o)));
  } as never),
  celMethod("isGreaterThan", Q, [Q], BOOL, function (this: Self, o: CelValue) {
    return compare(QUANTITY.payload(this), QUANTITY.payload(o)) > 0;
  } as never),
  celMethod("isLessThan", Q, [Q], BOOL, function (this: Self, o: CelValue) {
    return compare(QUANTITY.payload(this), QUANTITY.payload(o)) < 0;
  } as never),
];
