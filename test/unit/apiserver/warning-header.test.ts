import { describe, expect, it } from "vitest";
import {
  WARNING_ITEM_RUNES,
  WARNING_TOTAL_RUNES,
  warningHeaderValue,
  warningHeaderValues,
} from "../../../packages/apiserver/src/endpoints/warning-header.js";

/** The header value as the client's bytes decode it (UTF-8). */
function decoded(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, "latin1").toString("utf8");
}

describe("warningHeaderValue (apimachinery's NewWarningHeader)", () => {
  it("quotes the text, escaping only quotes and backslashes", () => {
    expect(warningHeaderValue('unknown field "a\\b"')).toBe('299 - "unknown field \\"a\\\\b\\""');
  });

  it("carries non-Latin-1 text as its UTF-8 bytes, which Node can send", () => {
    const value = warningHeaderValue("名前€ 😀");
    expect(value).toMatch(/^[\x20-\xff]*$/);
    expect(decoded(value)).toBe('299 - "名前€ 😀"');
  });

  it.each([
    ["a newline", "a\nb"],
    ["a carriage return", "a\rb"],
    ["NUL", "a\u0000b"],
    ["DEL", "a\u007fb"],
    ["a C1 control", "a\u0085b"],
    ["a lone surrogate (not UTF-8)", "a\ud800b"],
  ])("refuses text with %s", (_what, text) => {
    expect(warningHeaderValue(text)).toBeUndefined();
  });

  it("keeps a tab out too (Go's unicode.IsControl includes it)", () => {
    expect(warningHeaderValue("a\tb")).toBeUndefined();
  });
});

describe("warningHeaderValues (apiserver's warning recorder)", () => {
  it("drops empty and duplicate texts, keeping the order", () => {
    expect(warningHeaderValues(["b", "", "a", "b"])).toEqual(['299 - "b"', '299 - "a"']);
  });

  it("drops unsendable texts and keeps the others", () => {
    expect(warningHeaderValues(["ok", "bad\u0001", "fine"])).toEqual([
      '299 - "ok"',
      '299 - "fine"',
    ]);
  });

  it("within the total, texts are whole", () => {
    const long = "x".repeat(1_000);
    expect(warningHeaderValues([long, "y"])).toEqual([`299 - "${long}"`, '299 - "y"']);
  });

  it("past the total, every text is cut to 256 runes, and later ones are omitted once the cut total is reached", () => {
    const texts = Array.from({ length: 40 }, (_, i) => `${i}:${"é".repeat(500)}`);
    const values = warningHeaderValues(texts).map(decoded);
    // 4096 / 256 = 16 truncated texts fill the total; the recorder stops there.
    expect(values).toHaveLength(WARNING_TOTAL_RUNES / WARNING_ITEM_RUNES);
    for (const [i, value] of values.entries()) {
      const text = (value as string).slice('299 - "'.length, -1);
      expect([...text]).toHaveLength(WARNING_ITEM_RUNES);
      expect(text.startsWith(`${i}:`)).toBe(true);
    }
  });

  it("truncates on rune boundaries (astral characters are not split)", () => {
    const texts = [`${"😀".repeat(300)}`, "x".repeat(WARNING_TOTAL_RUNES)];
    const [first] = warningHeaderValues(texts).map(decoded);
    expect(first).toBe(`299 - "${"😀".repeat(WARNING_ITEM_RUNES)}"`);
  });
});
