import { describe, expect, it } from "vitest";
import {
  BoundedParseError,
  DEFAULT_JSON_PARSE_LIMITS,
  DEFAULT_YAML_PARSE_LIMITS,
  parseJsonBounded,
  parseYamlBounded,
} from "../../../packages/kubekit/src/core/bounded-parse.js";

function failure(parse: () => unknown): BoundedParseError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(BoundedParseError);
    return error as BoundedParseError;
  }
  throw new Error("expected a BoundedParseError");
}

/** A YAML mapping nested `depth` levels deep in block style. */
function blockNesting(depth: number): string {
  let text = "";
  for (let i = 0; i < depth; i++) text += `${" ".repeat(i)}k:\n`;
  return `${text}${" ".repeat(depth)}v`;
}

describe("parseYamlBounded", () => {
  it("parses documents like the yaml package, first document only", () => {
    expect(parseYamlBounded("a: 1\nb: [x, {c: d}]\n")).toEqual({ a: 1, b: ["x", { c: "d" }] });
    expect(parseYamlBounded("a: 1\n---\nb: [[[\n")).toEqual({ a: 1 });
    expect(parseYamlBounded("")).toBeNull();
    expect(parseYamlBounded("# a comment only\n")).toBeNull();
  });

  it("passes yaml options through (YAML 1.1 booleans, merge keys)", () => {
    const text = "base: &b {x: 1}\nderived:\n  <<: *b\n  on: yes\n";
    expect(parseYamlBounded(text, { yaml: { version: "1.1" } })).toEqual({
      base: { x: 1 },
      derived: { x: 1, true: true },
    });
  });

  // [what, nesting of n levels below a top-level mapping `b:`]
  it.each([
    ["flow sequences", (n: number) => `b: ${"[".repeat(n)}${"]".repeat(n)}`],
    ["flow mappings", (n: number) => `b: ${"{a: ".repeat(n)}x${"}".repeat(n)}`],
    // `[a: x]` is a sequence holding a mapping: two levels each.
    [
      "implicit pairs in flow sequences",
      (n: number) => `b: ${"[a: ".repeat(n / 2)}x${"]".repeat(n / 2)}`,
    ],
    ["block sequences", (n: number) => `b:\n${"- ".repeat(n)}x\n`],
    ["block mappings", (n: number) => `b:\n${blockNesting(n).replace(/^/gm, " ")}`],
  ])("accepts %s nested to the depth limit and refuses more", (_what, nest) => {
    const max = DEFAULT_YAML_PARSE_LIMITS.maxDepth;
    expect(() => parseYamlBounded(nest(max - 2))).not.toThrow();
    const error = failure(() => parseYamlBounded(nest(max + 2)));
    expect(error.reason).toBe("tooDeep");
    expect(error.limit).toBe(max);
    expect(error.line).toBeGreaterThanOrEqual(1);
  });

  it("refuses 20,000 unclosed flow sequences, repeatedly, without crashing the process", () => {
    // The yaml package alone aborts Node (RegExpCompiler allocation failure) within a few
    // parses of this input.
    const text = `b: ${"[".repeat(20_000)}`;
    for (let i = 0; i < 15; i++) {
      expect(failure(() => parseYamlBounded(text)).reason).toBe("tooDeep");
    }
  });

  it("bounds the expanded size of aliases, not their number", () => {
    const big = `list: &a [${Array.from({ length: 1000 }, (_, i) => `item${i}`).join(", ")}]\n`;
    const aliases = (n: number): string =>
      `${big}copies:\n${Array.from({ length: n }, () => "- *a\n").join("")}`;
    // 10 copies of a 10 KB list expand to ~100 KB: fine, each a copy of its own.
    const value = parseYamlBounded(aliases(10)) as { list: string[]; copies: string[][] };
    expect(value.copies).toHaveLength(10);
    expect(value.copies[3]).toEqual(value.list);
    expect(value.copies[3]).not.toBe(value.list);
    // 999 copies of a 1 MB list would be ~1 GB: refused, as is a small limit here.
    const error = failure(() =>
      parseYamlBounded(aliases(10), { limits: { maxExpandedSize: 50_000 } }),
    );
    expect(error.reason).toBe("aliasExpansion");
    expect(error.limit).toBe(50_000);
  });

  it("refuses a billion-laughs document quickly", () => {
    let text = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (let i = 1; i < 10; i++) {
      text += `l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(", ")}]\n`;
    }
    const started = performance.now();
    expect(failure(() => parseYamlBounded(text)).reason).toBe("aliasExpansion");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("resolves many aliases in linear time", () => {
    const text = `a: &a x\nb: [${Array.from({ length: 100_000 }, () => "*a").join(", ")}]\n`;
    const started = performance.now();
    expect((parseYamlBounded(text) as { b: string[] }).b).toHaveLength(100_000);
    // The yaml package resolves each alias by scanning the document: minutes here. The bound
    // only tells seconds from minutes (a loaded CI machine takes seconds; speed is benched).
    expect(performance.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it("refuses repeated keys unless uniqueKeys is false, in linear time", () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `key${i}: v`).join("\n");
    const started = performance.now();
    expect(Object.keys(parseYamlBounded(keys) as object)).toHaveLength(30_000);
    const error = failure(() => parseYamlBounded(`${keys}\nkey7: again\n`));
    // Quadratic key checks take minutes here; the bound only tells seconds from minutes.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(error.message).toBe("invalid YAML: duplicate mapping key at line 30001, column 1");
    expect(parseYamlBounded("a: 1\na: 2\n", { uniqueKeys: false })).toEqual({ a: 2 });
    expect(parseYamlBounded("1: a\n'1': b\n")).toEqual({ 1: "b" });
  });

  it("refuses an alias inside the node it refers to", () => {
    expect(failure(() => parseYamlBounded("a: &a [1, *a]\n")).reason).toBe("aliasExpansion");
  });

  it("refuses input larger than maxBytes, counting UTF-8 bytes", () => {
    const error = failure(() =>
      parseYamlBounded(`a: ${"é".repeat(600)}`, { limits: { maxBytes: 1000 } }),
    );
    expect(error.reason).toBe("tooLarge");
    expect(error.limit).toBe(1000);
    expect(DEFAULT_YAML_PARSE_LIMITS.maxBytes).toBe(3 * 1024 * 1024);
  });

  it.each([
    ["an alias typo", "user:\n  token: *abcSECRET123\n", 2, 10],
    ["a tag typo", "user:\n  token: !!!abcSECRET123\n", 2, 10],
    ["an unterminated string", 'user:\n  token: "abcSECRET123\n', 3, 1],
    ["bad indentation", "user:\n  token: abcSECRET123\n bad: x\n", 3, 1],
  ])("reports %s by line and column without quoting the input", (_what, text, line, column) => {
    const error = failure(() => parseYamlBounded(text));
    expect(error.reason).toBe("syntax");
    expect(error.message).not.toContain("SECRET");
    expect(error.message).toMatch(/^invalid YAML: [a-z ]+ at line \d+, column \d+$/);
    expect(error.line).toBe(line);
    expect(error.column).toBe(column);
  });

  it.each([
    ["malformed lines", "a: b: c\n\t- d\n  e\n", "tooDeep"],
    ["stray closing brackets", "a: x\n]\n", "syntax"],
  ])("refuses 200 KB of %s at once (no lengthy error recovery)", (_what, line, reason) => {
    const text = line.repeat(200_000 / line.length);
    const started = performance.now();
    expect(failure(() => parseYamlBounded(text)).reason).toBe(reason);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe("parseJsonBounded", () => {
  it("parses JSON", () => {
    expect(parseJsonBounded('{"a": [1, "x", null]}')).toEqual({ a: [1, "x", null] });
  });

  it("accepts nesting to kube-apiserver's 10000 levels and refuses more", () => {
    const nest = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(DEFAULT_JSON_PARSE_LIMITS.maxDepth).toBe(10_000);
    expect(() => parseJsonBounded(nest(10_000))).not.toThrow();
    const error = failure(() => parseJsonBounded(nest(10_001)));
    expect(error.reason).toBe("tooDeep");
    expect(error.column).toBe(10_001);
  });

  it("does not count brackets inside strings", () => {
    expect(parseJsonBounded(`["${"[".repeat(20)}\\"{"]`, { maxDepth: 1 })).toEqual([
      `${"[".repeat(20)}"{`,
    ]);
  });

  it("refuses input larger than maxBytes", () => {
    expect(failure(() => parseJsonBounded('"xxxxxxxx"', { maxBytes: 5 })).reason).toBe("tooLarge");
  });

  it("reports malformed JSON without quoting it", () => {
    const error = failure(() => parseJsonBounded('{"token": "SECRET123" oops}'));
    expect(error.reason).toBe("syntax");
    expect(error.message).not.toContain("SECRET");
    expect(error.message).not.toContain("oops");
    expect(failure(() => parseJsonBounded("  ")).message).toBe("empty JSON input");
  });
});
