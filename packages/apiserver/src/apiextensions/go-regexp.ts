/**
 * Go's regular expressions (RE2 syntax, linear-time matching) for every pattern the server
 * evaluates on a client's behalf: a CRD schema's `pattern` and CEL's `matches()`. kube-apiserver
 * compiles them with Go's `regexp` package, so JavaScript's backtracking `RegExp` would accept
 * other syntax and could be driven into catastrophic backtracking by a hostile pattern.
 */
import { RE2JS } from "@bufbuild/re2";

/** Compiled patterns by source, bounded so that distinct hostile patterns cannot grow memory. */
const cache = new Map<string, RE2JS>();
const CACHE_LIMIT = 1024;

/**
 * `pattern` compiled with RE2 semantics (cached). Throws the engine's syntax error (an
 * `Error` whose message names the problem) when the pattern is not valid RE2.
 */
export function compileGoRegexp(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, re);
  }
  return re;
}

/** Whether `input` contains a match of `pattern` (Go's `regexp.MatchString`: unanchored). */
export function matchesGoRegexp(pattern: string, input: string): boolean {
  return compileGoRegexp(pattern).test(input);
}
