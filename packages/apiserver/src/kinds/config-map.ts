/**
 * core/v1 ConfigMaps (`pkg/registry/core/configmap/strategy.go`): ValidateConfigMap and
 * ValidateConfigMapUpdate (`pkg/apis/core/validation/validation.go`): valid keys in `data`
 * and `binaryData`, no key in both, at most 1 MiB in total, and `immutable`.
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, deepEqual } from "kubekit/apimachinery";
import { configMapPrinter } from "../builtin-table-printers.js";
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
