import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isConfigMapKey } from "kubekit/apimachinery";
import { configMapStrategy } from "../../../../packages/apiserver/src/kinds/config-map.js";
import { definedHooks, hooksOf, messages } from "./kind-test-helpers.js";

/** core/v1 ConfigMaps (`pkg/apis/core/validation/validation.go` ValidateConfigMap, ValidateConfigMapUpdate). */

const configMap = hooksOf(configMapStrategy);

function configMapWith(fields: JsonObject): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "default" },
    ...fields,
  };
}

describe("ConfigMap validation", () => {
  it("accepts valid keys in data and binaryData", () => {
    expect(
      configMap.validateCreate(
        configMapWith({ data: { "app.conf": "x=1" }, binaryData: { "logo.png": "iVBORw0K" } }),
      ),
    ).toEqual([]);
  });

  it("checks the keys of data and binaryData", () => {
    expect(
      messages(
        configMap.validateCreate(
          configMapWith({ data: { "a/b": "1" }, binaryData: { "c d": "" } }),
        ),
      ),
    ).toEqual([
      ...isConfigMapKey("a/b").map((m) => `data[a/b]: Invalid value: "a/b": ${m}`),
      ...isConfigMapKey("c d").map((m) => `binaryData[c d]: Invalid value: "c d": ${m}`),
    ]);
  });

  it("limits data and decoded binaryData to 1 MiB in total, reported at the whole object", () => {
    const half = "x".repeat(512 * 1024);
    expect(configMap.validateCreate(configMapWith({ data: { a: half, b: half } }))).toEqual([]);
    expect(
      messages(
        configMap.validateCreate(
          configMapWith({
            data: { a: half },
            binaryData: { b: Buffer.from(`${half}x`).toString("base64") },
          }),
        ),
      ),
    ).toEqual([": Too long: may not be more than 1048576 bytes"]);
  });

  it("freezes data and binaryData of an immutable ConfigMap", () => {
    const old = configMapWith({ immutable: true, data: { a: "1" } });
    expect(
      configMap.validateUpdate(
        configMapWith({
          immutable: true,
          data: { a: "1" },
          metadata: { name: "settings", labels: { x: "y" } },
        }),
        old,
      ),
    ).toEqual([]);
    expect(
      messages(
        configMap.validateUpdate(
          configMapWith({ immutable: true, data: { a: "2" }, binaryData: { b: "" } }),
          old,
        ),
      ),
    ).toEqual([
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(
      configMap.validateUpdate(
        configMapWith({ data: { a: "2" } }),
        configMapWith({ data: { a: "1" } }),
      ),
    ).toEqual([]);
  });

  it("has no defaults and prints kube's columns", () => {
    expect(definedHooks(configMapStrategy)).toEqual(["validateCreate", "validateUpdate"]);
    expect(configMapStrategy.policy).toBeUndefined();
    expect(configMapStrategy.printer?.columns.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
  });
});
