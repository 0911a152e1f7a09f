/**
 * core/v1 Secrets (`pkg/registry/core/secret/strategy.go`): `stringData` is write-only, merged
 * into `data` as base64 (its entries win) and never stored (`pkg/apis/core/v1/conversion.go`);
 * type defaults to Opaque (`pkg/apis/core/v1/defaults.go`); ValidateSecret and
 * ValidateSecretUpdate (`pkg/apis/core/validation/validation.go`): valid keys, at most 1 MiB
 * of data, the keys a typed Secret requires, an immutable type and `immutable`.
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, fieldRequired, deepEqual, isJsonObject } from "kubekit/apimachinery";
import { secretPrinter } from "../builtin-table-printers.js";
import {
  dataSize,
  validateDataKeys,
  validateDataSize,
  validateImmutableData,
} from "./config-data.js";
import { selectableFields } from "../resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

/** The keys a Secret of a built-in type must hold in `data`. */
const REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  "kubernetes.io/dockercfg": [".dockercfg"],
  "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
  "kubernetes.io/tls": ["tls.crt", "tls.key"],
  "kubernetes.io/ssh-auth": ["ssh-privatekey"],
};

/** `stringData` folded into `data` (base64), then dropped; `type` defaulted to Opaque. */
function foldStringData(obj: JsonObject): JsonObject {
  const out: JsonObject = { ...obj };
  const stringData = out["stringData"];
  if (isJsonObject(stringData)) {
    const data: JsonObject = { ...objectAt(out, "data") };
    for (const [k, v] of Object.entries(stringData)) {
      if (typeof v === "string") data[k] = Buffer.from(v, "utf8").toString("base64");
    }
    out["data"] = data;
  }
  delete out["stringData"];
  if (out["type"] === undefined || out["type"] === "") out["type"] = "Opaque";
  return out;
}

function validateSecret(obj: JsonObject): FieldError[] {
  const data = objectAt(obj, "data");
  const errors = validateDataKeys(obj, "data");
  errors.push(
    ...validateDataSize(
      dataSize(data, (v) => Buffer.from(v, "base64").length),
      "data",
    ),
  );
  for (const key of REQUIRED_KEYS[String(obj["type"])] ?? []) {
    if (!(key in data)) errors.push(fieldRequired(`data[${key}]`));
  }
  return errors;
}

function validateTypeUnchanged(next: JsonObject, old: JsonObject): FieldError[] {
  if (next["type"] === old["type"]) return [];
  return [fieldInvalid("type", next["type"] ?? "", "field is immutable")];
}

/** The Secret strategy. */
export const secretStrategy: KindStrategy = {
  policy: { selectableFields: selectableFields("type") },
  applyDefaults: foldStringData,
  validateCreate: validateSecret,
  validateUpdate: (next, old) => [
    ...validateTypeUnchanged(next, old),
    ...validateImmutableData(next, old, ["data"], deepEqual),
    ...validateSecret(next),
  ],
  printer: secretPrinter,
};
