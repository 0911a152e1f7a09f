/**
 * cel-go's optional values (`cel.OptionalTypes`), as far as `@bufbuild/cel` 0.6.1 allows: the
 * functions `optional.of(x)`, `optional.ofNonZeroValue(x)`, `optional.none()` and the methods
 * `hasValue()`, `value()`, `orValue(x)`, `or(opt)`. The syntax `a.?b` and `[?x]` is not parsed by
 * `@bufbuild/cel`, so it is unsupported. `oldSelf` of a rule with `optionalOldSelf: true` is such a
 * value.
 */
import {
  celFunc,
  celMethod,
  CelScalar,
  isCelList,
  isCelMap,
  type CelFunc,
  type CelValue,
} from "@bufbuild/cel";
import { OpaqueType } from "../opaque-values.js";

/** A present value, or `undefined` for none. */
interface OptionalPayload {
  readonly value: CelValue | undefined;
}

/** The `optional_type` values. */
export const OPTIONAL = new OpaqueType<OptionalPayload>("optional_type");

/** `optional.of(v)` / `optional.none()` as a CEL value. */
export function optionalOf(value: CelValue | undefined): CelValue {
  return OPTIONAL.wrap({ value }, value === undefined ? "none" : "some") as unknown as CelValue;
}

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === "" || v === 0 || v === 0n) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

const { DYN, BOOL } = CelScalar;
const OPT = OPTIONAL.celType;

/** The optional functions. */
export const optionalLibrary: readonly CelFunc[] = [
  celFunc("optional.of", [DYN], OPT, ((v: CelValue) => optionalOf(v)) as never),
  celFunc("optional.ofNonZeroValue", [DYN], OPT, ((v: CelValue) =>
    optionalOf(isZero(v) ? undefined : v)) as never),
  celFunc("optional.none", [], OPT, (() => optionalOf(undefined)) as never),
  celMethod("hasValue", OPT, [], BOOL, function (this: CelValue) {
    return OPTIONAL.payload(this).value !== undefined;
  } as never),
  celMethod("value", OPT, [], DYN, function (this: CelValue) {
    const v = OPTIONAL.payload(this).value;
    if (v === undefined) throw new Error("optional.none() dereference");
    return v;
  } as never),
  celMethod("orValue", OPT, [DYN], DYN, function (this: CelValue, other: CelValue) {
    return OPTIONAL.payload(this).value ?? other;
  } as never),
  celMethod("or", OPT, [OPT], OPT, function (this: CelValue, other: CelValue) {
    return OPTIONAL.payload(this).value !== undefined ? this : other;
  } as never),
];
