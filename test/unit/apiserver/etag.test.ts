import { describe, expect, it } from "vitest";
import { bodyEtag, matchesIfNoneMatch } from "../../../packages/apiserver/src/discovery/etag.js";

describe("bodyEtag", () => {
  it("is a quoted uppercase hex hash that depends only on the body", () => {
    const tag = bodyEtag('{"kind":"APIGroupDiscoveryList"}');
    expect(tag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(bodyEtag('{"kind":"APIGroupDiscoveryList"}')).toBe(tag);
    expect(bodyEtag('{"kind":"APIGroupList"}')).not.toBe(tag);
  });
});

describe("matchesIfNoneMatch", () => {
  const tag = bodyEtag("body");
  const bare = tag.slice(1, -1);

  it("never matches without a header", () => {
    expect(matchesIfNoneMatch(undefined, tag)).toBe(false);
  });

  it("matches the same tag, quoted, bare, weak, or in a list, and *", () => {
    expect(matchesIfNoneMatch(tag, tag)).toBe(true);
    expect(matchesIfNoneMatch(bare, tag)).toBe(true);
    expect(matchesIfNoneMatch(`W/${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(matchesIfNoneMatch("*", tag)).toBe(true);
  });

  it("does not match another tag or an empty header", () => {
    expect(matchesIfNoneMatch(bodyEtag("other"), tag)).toBe(false);
    expect(matchesIfNoneMatch("", tag)).toBe(false);
  });
});
