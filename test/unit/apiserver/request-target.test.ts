import { describe, expect, it } from "vitest";
import {
  decodePathSegment,
  parseRequestTarget,
} from "../../../packages/apiserver/src/endpoints/request-target.js";

describe("parseRequestTarget (Go's url.ParseRequestURI)", () => {
  it("splits origin-form into the raw path and the query", () => {
    const target = parseRequestTarget("/api/v1/namespaces/a%2Db/pods?labelSelector=app%3Dweb&x");
    expect(target?.path).toBe("/api/v1/namespaces/a%2Db/pods");
    expect(target?.query.get("labelSelector")).toBe("app=web");
    expect(target?.query.has("x")).toBe(true);
  });

  it("reads the path of absolute-form", () => {
    expect(parseRequestTarget("HTTP://host:8080/api/v1?watch=1")).toMatchObject({
      path: "/api/v1",
    });
  });

  it("reads absolute-form of any scheme by its path, as Go does", () => {
    expect(parseRequestTarget("ftp://host/api/v1")?.path).toBe("/api/v1");
  });

  it("keeps a scheme-relative target as a path (no authority is read from it)", () => {
    expect(parseRequestTarget("//host/api/v1")?.path).toBe("//host/api/v1");
  });

  it("accepts asterisk-form, which names no served path", () => {
    expect(parseRequestTarget("*")?.path).toBe("*");
  });

  it.each([
    ["authority-form", "example.com:443"],
    ["a relative path", "api/v1"],
    ["a malformed escape", "/api/v1/namespaces/%zz"],
    ["a truncated escape", "/api/v1/namespaces/a%4"],
    ["a trailing %", "/api/%"],
  ])("refuses %s", (_what, raw) => {
    expect(parseRequestTarget(raw)).toBeUndefined();
  });

  it("leaves malformed escapes in the query to the query parser", () => {
    expect(parseRequestTarget("/api/v1?x=%zz")?.query.get("x")).toBe("%zz");
  });
});

describe("decodePathSegment", () => {
  it("decodes escapes to UTF-8", () => {
    expect(decodePathSegment("caf%C3%A9%20x")).toBe("café x");
  });

  it("turns bytes that are not UTF-8 into U+FFFD instead of throwing", () => {
    expect(decodePathSegment("a%ffb")).toBe("a\ufffdb");
  });

  it("reads raw Latin-1 characters as the bytes Node received", () => {
    expect(decodePathSegment("caf\u00c3\u00a9")).toBe("café");
  });

  it("returns a segment without escapes unchanged", () => {
    expect(decodePathSegment("web-0")).toBe("web-0");
  });
});
