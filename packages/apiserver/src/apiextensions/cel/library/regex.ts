/**
 * Regular expressions with Go's RE2 syntax (`../../go-regexp.ts`, the engine schema `pattern`
 * uses): CEL's `matches()` and Kubernetes' regex library (`k8s.io/apiserver/pkg/cel/library/regex.go`):
 * `find(re)` (the first match, or `""`) and `findAll(re)` / `findAll(re, n)`.
 *
 * Approximation: `@bufbuild/re2` only answers whether a pattern matches (no positions), so a
 * match is located by testing `^(?:re)` at each start and `^(?:re)$` on each candidate end; the
 * end is the longest match (the shortest when the pattern has a lazy quantifier). This equals
 * Go's leftmost-first result for patterns without alternations whose earlier branch is a prefix
 * of a later one (`a|ab`), and for `^`/`\b` only at the start of the input. Every test is charged
 * to the runtime cost meter.
 */
import { celMethod, CelScalar, listType, type CelFunc } from "@bufbuild/cel";
import { compileGoRegexp } from "../../go-regexp.js";
import { chargeCost } from "../runtime-cost.js";

const { STRING, INT, BOOL } = CelScalar;

function testAt(pattern: string, input: string): boolean {
  chargeCost(1 + Math.ceil(input.length * 0.1));
  return compileGoRegexp(pattern).test(input);
}

/** The first match of `re` in `s` at or after `from`: [start, end], or undefined. */
function findFrom(re: string, s: string, from: number): [number, number] | undefined {
  const lazy = /[*+?}]\?/.test(re);
  const anchoredStart = `^(?:${re})`;
  const whole = `^(?:${re})$`;
  if (!testAt(re, s.slice(from))) return undefined;
  for (let start = from; start <= s.length; start++) {
    const rest = s.slice(start);
    if (!testAt(anchoredStart, rest)) continue;
    if (lazy) {
      for (let end = start; end <= s.length; end++)
        if (testAt(whole, s.slice(start, end))) return [start, end];
    } else {
      for (let end = s.length; end >= start; end--)
        if (testAt(whole, s.slice(start, end))) return [start, end];
    }
  }
  return undefined;
}

function findAll(s: string, re: string, limit: number): string[] {
  compileGoRegexp(re);
  const out: string[] = [];
  let from = 0;
  while (from <= s.length && (limit < 0 || out.length < limit)) {
    const m = findFrom(re, s, from);
    if (!m) break;
    out.push(s.slice(m[0], m[1]));
    from = m[1] > m[0] ? m[1] : m[1] + 1;
  }
  return out;
}

/** `matches`, `find` and `findAll`. */
export const regexLibrary: readonly CelFunc[] = [
  celMethod("matches", STRING, [STRING], BOOL, function (this: string, re: string) {
    return compileGoRegexp(re).test(this);
  } as never),
  celMethod("find", STRING, [STRING], STRING, function (this: string, re: string) {
    compileGoRegexp(re);
    const m = findFrom(re, this, 0);
    return m ? this.slice(m[0], m[1]) : "";
  } as never),
  celMethod("findAll", STRING, [STRING], listType(STRING), function (this: string, re: string) {
    return findAll(this, re, -1);
  } as never),
  celMethod("findAll", STRING, [STRING, INT], listType(STRING), function (
    this: string,
    re: string,
    n: bigint,
  ) {
    return findAll(this, re, Number(n));
  } as never),
];
