/**
 * core/v1 ConfigMaps (`pkg/registry/core/configmap/strategy.go`): ValidateConfigMap and
 * ValidateConfigMapUpdate (`pkg/apis/core/validation/validation.go`), with the data rules shared
 * with Secrets (`config-data.ts`).
 *
 * @kind ConfigMap
 * @validation keys `[-._a-zA-Z0-9]+`; no key in both data and binaryData; binaryData valid
 * base64 (400); ≤ 1 MiB
 * @update same checks; data and binaryData frozen when `immutable`, which stays true
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, deepEqual } from "kubekit/apimachinery";
import { configMapPrinter } from "../table/builtin-table-printers.js";
import {
  dataSize,
  validateDataKeys,
  validateDataSize,
  validateImmutableData,
} from "./config-data.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

function validateConfigMap(obj: JsonObject): FieldError[] {
  const data = objectAt(obj, "data");
  const binary = objectAt(obj, "binaryData");
  const errors = [...validateDataKeys(obj, "data"), ...validateDataKeys(obj, "binaryData")];
  for (const key of Object.keys(binary)) {
    if (key in data)
      errors.push(
        fieldInvalid(`binaryData[${key}]`, key, "duplicate key in both data and binaryData"),
      );
  }
  const total =
    dataSize(data, (v) => Buffer.byteLength(v, "utf8")) +
    dataSize(binary, (v) => Buffer.from(v, "base64").length);
  errors.push(...validateDataSize(total, ""));
  return errors;
}

/** The ConfigMap strategy. */
export const configMapStrategy: KindStrategy = {
  validateCreate: validateConfigMap,
  validateUpdate: (next, old) => [
    ...validateImmutableData(next, old, ["data", "binaryData"], deepEqual),
    ...validateConfigMap(next),
  ],
  printer: configMapPrinter,
};
