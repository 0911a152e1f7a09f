/**
 * JSON values as CEL sees them through their schema type (kube's `UnstructuredToVal`,
 * `apiextensions-apiserver/pkg/apiserver/schema/cel/values.go`): `integer` → int, `number` →
 * double, `byte` strings → bytes, `date-time`/`date` → timestamp, `duration` → duration, objects →
 * maps keyed by escaped field names (field selection and `has()` work on them), `dyn` values by
 * their JSON shape (integral numbers as int). Values that do not fit their type (which schema
 * validation reports) are passed by their JSON shape.
 */
import type { CelInput } from "@bufbuild/cel";
import { celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { DeclType } from "./decl-type.js";
import { escapePropertyName } from "./property-names.js";

const durationProgram = plan(celEnv({ variables: {} }), parse("duration(s)"));

/** `value` as a CEL input of type `type`. */
export function toCelInput(value: JsonValue, type: DeclType): CelInput {
  switch (type.kind) {
    case "int":
      return typeof value === "number" && Number.isFinite(value)
        ? BigInt(Math.trunc(value))
        : dynInput(value);
    case "double":
      return typeof value === "number" ? value : dynInput(value);
    case "bytes":
      return typeof value === "string"
        ? Uint8Array.from(Buffer.from(value, "base64"))
        : dynInput(value);
    case "timestamp":
      return typeof value === "string" ? timestampInput(value) : dynInput(value);
    case "duration":
      return typeof value === "string" ? durationInput(value) : dynInput(value);
    case "list":
      return Array.isArray(value)
        ? value.map((v) => toCelInput(v, type.elem ?? type))
        : dynInput(value);
    case "map":
      if (!isJsonObject(value)) return dynInput(value);
      return new Map(Object.entries(value).map(([k, v]) => [k, toCelInput(v, type.elem ?? type)]));
    case "object":
      return isJsonObject(value) ? objectInput(value, type) : dynInput(value);
    default:
      return dynInput(value);
  }
}

function objectInput(value: { readonly [k: string]: JsonValue }, type: DeclType): CelInput {
  const out = new Map<string, CelInput>();
  const fields = type.fields;
  if (!fields) return out;
  for (const [k, v] of Object.entries(value)) {
    // Field names are escaped exactly as the type declares them (property-names.ts); a
    // property without a declared field is not visible to CEL.
    const name = escapePropertyName(k);
    if (name === undefined) continue;
    const t = fields.get(name);
    if (t && v !== null) out.set(name, toCelInput(v, t));
  }
  return out;
}

/** A JSON value with no schema type (`dyn`): integral numbers become int, objects maps. */
export function dynInput(value: JsonValue): CelInput {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(dynInput);
  return new Map(Object.entries(value).map(([k, v]) => [k, dynInput(v)]));
}

function timestampInput(value: string): CelInput {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : timestampFromMs(ms);
}

function durationInput(value: string): CelInput {
  const d = durationProgram({ s: value });
  return isCelError(d) ? value : (d as CelInput);
}
