/**
 * Kubernetes' list library (`k8s.io/apiserver/pkg/cel/library/lists.go`): `isSorted()`, `sum()`,
 * `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)` on lists of comparable elements (int, uint,
 * double, string, bool, bytes, duration, timestamp), with kube's error texts for empty lists.
 */
import {
  celMethod,
  CelScalar,
  celUint,
  isCelUint,
  listType,
  type CelFunc,
  type CelList,
  type CelValue,
} from "@bufbuild/cel";
import { isReflectMessage } from "@bufbuild/protobuf/reflect";
import { celEquals } from "../cel-equality.js";

const { DYN, INT, BOOL } = CelScalar;
const LIST = listType(DYN);

function numeric(v: CelValue): bigint | number | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

/** Orders two comparable CEL values (-1, 0, 1); throws for values that have no order. */
export function compareCel(a: CelValue, b: CelValue): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (isReflectMessage(a) && isReflectMessage(b) && a.desc.typeName === b.desc.typeName) {
    const sa = a.message as unknown as { seconds?: bigint; nanos?: number };
    const sb = b.message as unknown as { seconds?: bigint; nanos?: number };
    const d = (sa.seconds ?? 0n) - (sb.seconds ?? 0n);
    if (d !== 0n) return d < 0n ? -1 : 1;
    return Math.sign((sa.nanos ?? 0) - (sb.nanos ?? 0));
  }
  throw new Error(`no such overload: comparison of ${typeof a} and ${typeof b}`);
}

function items(list: CelList): CelValue[] {
  return Array.from(list);
}

function extreme(list: CelList, name: string, sign: number): CelValue {
  const values = items(list);
  const first = values[0];
  if (first === undefined) throw new Error(`${name} called on empty list`);
  return values.reduce((best, v) => (compareCel(v, best) * sign > 0 ? v : best), first);
}

function sum(list: CelList): CelValue {
  const values = items(list);
  if (values.length === 0) return 0n;
  if (values.every((v) => typeof v === "bigint")) {
    const total = (values as bigint[]).reduce((s, v) => s + v, 0n);
    if (total > 9223372036854775807n || total < -9223372036854775808n)
      throw new Error("integer overflow");
    return total;
  }
  if (values.every((v) => typeof v === "number"))
    return (values as number[]).reduce((s, v) => s + v, 0);
  if (values.every(isCelUint))
    return celUint(values.reduce((s, v) => s + (isCelUint(v) ? v.value : 0n), 0n));
  throw new Error("no such overload: sum");
}

/** The list functions. */
export const listsLibrary: readonly CelFunc[] = [
  celMethod("isSorted", LIST, [], BOOL, function (this: CelList) {
    const values = items(this);
    return values.every((v, i) => i === 0 || compareCel(values[i - 1] as CelValue, v) <= 0);
  } as never),
  celMethod("sum", LIST, [], DYN, function (this: CelList) {
    return sum(this);
  } as never),
  celMethod("min", LIST, [], DYN, function (this: CelList) {
    return extreme(this, "min", -1);
  } as never),
  celMethod("max", LIST, [], DYN, function (this: CelList) {
    return extreme(this, "max", 1);
  } as never),
  celMethod("indexOf", LIST, [DYN], INT, function (this: CelList, x: CelValue) {
    return BigInt(items(this).findIndex((v) => celEquals(v, x)));
  } as never),
  celMethod("lastIndexOf", LIST, [DYN], INT, function (this: CelList, x: CelValue) {
    return BigInt(items(this).findLastIndex((v) => celEquals(v, x)));
  } as never),
];
