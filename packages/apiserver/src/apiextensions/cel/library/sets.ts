/**
 * cel-go's sets extension (`ext.Sets()`, in kube's base environment since 1.29):
 * `sets.contains(a, b)` (every element of b is in a), `sets.equivalent(a, b)` (same elements,
 * ignoring order and duplicates), `sets.intersects(a, b)` (an element in common), with CEL `==`.
 */
import { celFunc, CelScalar, listType, type CelFunc, type CelList } from "@bufbuild/cel";
import { celEquals } from "../cel-equality.js";

const LIST = listType(CelScalar.DYN);

function containsAll(a: CelList, b: CelList): boolean {
  const left = Array.from(a);
  return Array.from(b).every((x) => left.some((y) => celEquals(x, y)));
}

/** The sets functions. */
export const setsLibrary: readonly CelFunc[] = [
  celFunc("sets.contains", [LIST, LIST], CelScalar.BOOL, ((a: CelList, b: CelList) =>
    containsAll(a, b)) as never),
  celFunc(
    "sets.equivalent",
    [LIST, LIST],
    CelScalar.BOOL,
    ((a: CelList, b: CelList) => containsAll(a, b) && containsAll(b, a)) as never,
  ),
  celFunc("sets.intersects", [LIST, LIST], CelScalar.BOOL, ((a: CelList, b: CelList) => {
    const left = Array.from(a);
    return Array.from(b).some((x) => left.some((y) => celEquals(x, y)));
  }) as never),
];
