import { describe, expect, it } from "vitest";
import { quoteGo } from "../../../packages/kubekit/src/core/go-format.js";

describe("quoteGo", () => {
  it("quotes like strconv.Quote", () => {
    expect(quoteGo("plain")).toBe('"plain"');
    expect(quoteGo('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteGo("\n\t\r\u0007\u0008\u000b\u000c")).toBe('"\\n\\t\\r\\a\\b\\v\\f"');
    expect(quoteGo("\u0000\u001f\u007f")).toBe('"\\x00\\x1f\\x7f"');
    expect(quoteGo("héllo 世界 😀")).toBe('"héllo 世界 😀"');
    expect(quoteGo("\u00a0\u200b")).toBe('"\\u00a0\\u200b"');
    expect(quoteGo("\u{e0001}")).toBe('"\\U000e0001"');
    expect(quoteGo("\ud800")).toBe('"\ufffd"');
  });
});
