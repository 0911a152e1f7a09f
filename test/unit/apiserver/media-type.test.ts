import { describe, expect, it } from "vitest";
import {
  parseAccept,
  parseContentType,
} from "../../../packages/apiserver/src/encoding/media-type.js";

describe("parseAccept", () => {
  it("returns nothing for an absent or blank header", () => {
    expect(parseAccept(undefined)).toEqual([]);
    expect(parseAccept("")).toEqual([]);
    expect(parseAccept(" , ")).toEqual([]);
  });

  it("parses kubectl's Table Accept into three ordered clauses with their parameters", () => {
    const ranges = parseAccept(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
    );
    expect(ranges).toEqual([
      {
        type: "application",
        subtype: "json",
        params: { as: "Table", v: "v1", g: "meta.k8s.io" },
        q: 1,
        index: 0,
      },
      {
        type: "application",
        subtype: "json",
        params: { as: "Table", v: "v1beta1", g: "meta.k8s.io" },
        q: 1,
        index: 1,
      },
      { type: "application", subtype: "json", params: {}, q: 1, index: 2 },
    ]);
  });

  it("sorts by q descending and keeps header order among equal q", () => {
    const ranges = parseAccept(
      "text/plain;q=0.5, application/yaml, application/json;q=0.9, */*;q=0.5",
    );
    expect(ranges.map((r) => `${r.type}/${r.subtype}@${r.q}#${r.index}`)).toEqual([
      "application/yaml@1#1",
      "application/json@0.9#2",
      "text/plain@0.5#0",
      "*/*@0.5#3",
    ]);
  });

  it("removes q from params, lowercases names and types but keeps values' case", () => {
    const [r] = parseAccept("Application/JSON ; AS = Table ; Q=0.8");
    expect(r).toEqual({
      type: "application",
      subtype: "json",
      params: { as: "Table" },
      q: 0.8,
      index: 0,
    });
  });

  it("reads an unparseable q as 0, clamps q to [0, 1], and keeps q=0 clauses", () => {
    const ranges = parseAccept("a/b;q=abc, c/d;q=1.5, e/f;q=0");
    expect(ranges.find((r) => r.type === "a")?.q).toBe(0);
    expect(ranges.find((r) => r.type === "c")?.q).toBe(1);
    expect(ranges.find((r) => r.type === "e")?.q).toBe(0);
  });

  it("drops malformed clauses but counts them in index, and reads a bare * as */*", () => {
    const ranges = parseAccept("garbage, /json, application/, *, application/json");
    expect(ranges.map((r) => [r.type, r.subtype, r.index])).toEqual([
      ["*", "*", 3],
      ["application", "json", 4],
    ]);
  });

  it("does not split on commas or semicolons inside quoted parameter values", () => {
    const ranges = parseAccept('application/json;profile="a,b;c", text/plain');
    expect(ranges).toHaveLength(2);
    expect(ranges[0]?.params).toEqual({ profile: "a,b;c" });
  });
});

describe("parseContentType", () => {
  it("ignores a charset parameter for the media type and lowercases it", () => {
    expect(parseContentType("Application/Merge-Patch+JSON; charset=utf-8")).toEqual({
      mediaType: "application/merge-patch+json",
      params: { charset: "utf-8" },
    });
  });

  it("returns the parameters of an as= media type", () => {
    expect(
      parseContentType("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
    ).toEqual({
      mediaType: "application/json",
      params: { g: "apidiscovery.k8s.io", v: "v2", as: "APIGroupDiscoveryList" },
    });
  });

  it("passes through values without a slash, and an empty header as an empty media type", () => {
    expect(parseContentType("Bogus").mediaType).toBe("bogus");
    expect(parseContentType("").mediaType).toBe("");
  });

  it("unquotes quoted parameter values", () => {
    expect(parseContentType('text/plain; charset="utf-8"').params).toEqual({ charset: "utf-8" });
  });
});
