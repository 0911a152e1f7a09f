import { describe, expect, it } from "vitest";
import { deepEqual, isConfigMapKey } from "kubekit/apimachinery";
import {
  dataSize,
  MAX_DATA_SIZE,
  validateDataKeys,
  validateDataSize,
  validateImmutableData,
} from "../../../../packages/apiserver/src/kinds/config-data.js";
import { frozen, messages } from "./kind-test-helpers.js";

/**
 * The data rules ConfigMaps and Secrets share (`pkg/apis/core/validation/validation.go`
 * ValidateConfigMap, ValidateSecret and their Update functions).
 */

describe("validateDataKeys", () => {
  it("reports each bad key at `<field>[<key>]` with IsConfigMapKey's message", () => {
    expect(
      messages(validateDataKeys(frozen({ data: { "ok.key": "1", "bad key": "2" } }), "data")),
    ).toEqual(
      isConfigMapKey("bad key").map((m) => `data[bad key]: Invalid value: "bad key": ${m}`),
    );
    expect(validateDataKeys(frozen({}), "binaryData")).toEqual([]);
  });
});

describe("dataSize and validateDataSize (MaxSecretSize, 1 MiB)", () => {
  it("adds up the measured values", () => {
    expect(dataSize(frozen({ a: "abc", b: "de", c: 1 }), (v) => v.length)).toBe(5);
  });

  it("reports only a total above 1 MiB, as Too long", () => {
    expect(MAX_DATA_SIZE).toBe(1048576);
    expect(validateDataSize(MAX_DATA_SIZE, "data")).toEqual([]);
    expect(messages(validateDataSize(MAX_DATA_SIZE + 1, "data"))).toEqual([
      "data: Too long: may not be more than 1048576 bytes",
    ]);
  });
});

describe("validateImmutableData", () => {
  const detail = "Forbidden: field is immutable when `immutable` is set";

  it("lets a mutable object change", () => {
    expect(
      validateImmutableData(
        frozen({ data: { a: "2" } }),
        frozen({ data: { a: "1" } }),
        ["data"],
        deepEqual,
      ),
    ).toEqual([]);
  });

  it("freezes the listed fields and the flag itself once `immutable` is true", () => {
    const old = frozen({ immutable: true, data: { a: "1" } });
    expect(
      validateImmutableData(
        frozen({ immutable: true, data: { a: "1" } }),
        old,
        ["data"],
        deepEqual,
      ),
    ).toEqual([]);
    expect(
      messages(
        validateImmutableData(
          frozen({ immutable: false, data: { a: "2" } }),
          old,
          ["data"],
          deepEqual,
        ),
      ),
    ).toEqual([`immutable: ${detail}`, `data: ${detail}`]);
  });
});
