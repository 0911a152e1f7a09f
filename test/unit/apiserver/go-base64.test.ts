import { describe, expect, it } from "vitest";
import { base64CorruptOffset } from "../../../packages/apiserver/src/schema/go-base64.js";

/** The offsets Go's base64.StdEncoding reports (`illegal base64 data at input byte N`). */
describe("base64CorruptOffset", () => {
  it.each([
    ["", undefined],
    ["YQ==", undefined],
    ["YWI=", undefined],
    ["YWJj", undefined],
    ["YW\nJj\r\n", undefined],
    ["YQ==\n", undefined],
    ["Y", 0],
    ["YQ", 0],
    ["YWJ", 0],
    ["YQ=", 3],
    ["YQ=x", 2],
    ["=", 0],
    ["Y===", 1],
    ["a b", 1],
    ["YWJj!", 4],
    ["YQ==YQ==", 4],
    ["é", 0],
    ["YWJjZGVmZ2hp*", 12],
  ])("%j → %s", (input, offset) => {
    expect(base64CorruptOffset(input)).toBe(offset);
  });
});
