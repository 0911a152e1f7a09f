/**
 * CEL's `==` for library functions that compare values (`indexOf`, sets): `@bufbuild/cel` does not
 * export its equality, so its `_==_` function is called (inside an evaluation, where the protobuf
 * registry needed for message equality is set).
 */
import { celEnv, type CelValue } from "@bufbuild/cel";

const equalsGroup = celEnv().funcs.find("_==_");

/** Whether `a == b` in CEL. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  return equalsGroup?.call(0, undefined, [a, b]) === true;
}
