/**
 * core/v1 Secrets (`pkg/registry/core/secret/strategy.go`): the write-only `stringData`
 * (`pkg/apis/core/v1/conversion.go`), the type default (`pkg/apis/core/v1/defaults.go`), and
 * ValidateSecret / ValidateSecretUpdate (`pkg/apis/core/validation/validation.go`), with the data
 * rules shared with ConfigMaps (`config-data.ts`).
 *
 * @kind Secret
 * @defaults type Opaque; `stringData` merged into `data` (base64, its entries win), never stored
 * @validation key format; data valid base64 (400); ≤ 1 MiB; required keys of the tls (tls.crt,
 * tls.key), dockercfg, dockerconfigjson and ssh-auth types
 * @update same checks; type immutable; data frozen when `immutable`, which stays true
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, fieldRequired, deepEqual, isJsonObject } from "kubekit/apimachinery";
import { secretPrinter } from "../table/builtin-table-printers.js";
import {
  dataSize,
  validateDataKeys,
  validateDataSize,
  validateImmutableData,
} from "./config-data.js";
import { selectableFields } from "../registry/resource-policy.js";
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
