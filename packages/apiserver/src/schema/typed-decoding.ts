/**
 * kube-apiserver decodes a built-in object into its Go type before anything else, so a value
 * of the wrong JSON type is refused with a 400 BadRequest naming the field
 * (`staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go` through
 * `sigs.k8s.io/json`): `ConfigMap in version "v1" cannot be handled as a ConfigMap: json:
 * cannot unmarshal number into Go struct field ConfigMap.data of type string`. This module
 * finds the first such value from the field tables. `null` is accepted everywhere (Go decodes
 * it to the zero value) and unknown fields are left to field validation.
 *
 * Only the types of `k8s.io/api` and of meta/v1 are checked; messages with a JSON form of
 * their own that the tables do not describe (meta/v1 Duration, the apiextensions schema
 * types) accept any value.
 */
import { SPECIAL_MESSAGES, type FieldInfo, isJsonObject } from "kubekit/apimachinery";
import type { JsonValue } from "kubekit";
import { jsonFieldsOf, messageJsonShape } from "./message-json-view.js";
import { base64DecodingProblem } from "./go-base64.js";

const META_V1 = "k8s.io.apimachinery.pkg.apis.meta.v1.";
const UNCHECKED_MESSAGES = new Set([`${META_V1}Duration`]);
const MAX_DEPTH = 100;

const GO_SCALAR: Readonly<Record<string, string>> = {
  string: "string",
  int32: "int32",
  int64: "int64",
  bool: "bool",
  bytes: "[]uint8",
  double: "float64",
  float: "float32",
};

function goTypeOfMessage(name: string): string {
  const parts = name.split(".");
  return `${parts[parts.length - 2] ?? ""}.${parts[parts.length - 1] ?? ""}`;
}

function goElementType(type: string, isMessage: boolean): string {
  return isMessage ? goTypeOfMessage(type) : (GO_SCALAR[type] ?? type);
}

function goTypeOfField(field: FieldInfo): string {
  if (field.map) {
    const key = GO_SCALAR[field.map.key] ?? field.map.key;
    return `map[${key}]${goElementType(field.map.value, field.map.valueIsMessage)}`;
  }
  const elem = goElementType(field.type, field.isMessage);
  return field.repeated ? `[]${elem}` : elem;
}

function jsonTypeOf(value: JsonValue): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

function isChecked(messageName: string): boolean {
  if (UNCHECKED_MESSAGES.has(messageName)) return false;
  return messageName.startsWith("k8s.io.api.") || messageName.startsWith(META_V1);
}

/** Where a problem was found: the Go struct holding the field and the JSON path to it. */
interface Site {
  readonly struct: string;
  readonly path: string;
  readonly goType: string;
}

function problem(value: JsonValue, site: Site): string {
  const what =
    typeof value === "number" && !Number.isInteger(value) ? `number ${value}` : jsonTypeOf(value);
  return `json: cannot unmarshal ${what} into Go struct field ${site.struct}.${site.path} of type ${site.goType}`;
}

/** Checks one value of a scalar or message element type; returns Go's error text or undefined. */
function checkElement(
  value: JsonValue,
  type: string,
  isMessage: boolean,
  site: Site,
  depth: number,
): string | undefined {
  if (value === null) return undefined;
  if (!isMessage) {
    switch (type) {
      case "string":
        return typeof value === "string" ? undefined : problem(value, site);
      case "bytes":
        // Go decodes a JSON string into []byte as base64 and reports its error unwrapped.
        return typeof value === "string" ? base64DecodingProblem(value) : problem(value, site);
      case "bool":
        return typeof value === "boolean" ? undefined : problem(value, site);
      case "int32":
      case "int64":
        return typeof value === "number" && Number.isInteger(value)
          ? undefined
          : problem(value, site);
      default:
        return typeof value === "number" ? undefined : problem(value, site);
    }
  }
  switch (messageJsonShape(type)) {
    case "time":
    case "microTime":
      return typeof value === "string" ? undefined : problem(value, site);
    case "intOrString":
    case "quantity":
      return typeof value === "string" || typeof value === "number"
        ? undefined
        : problem(value, site);
    case "stringList":
      return Array.isArray(value) && value.every((v) => typeof v === "string" || v === null)
        ? undefined
        : problem(value, site);
    case "rawExtension":
    case "fieldsV1":
      return undefined;
    case "object":
      if (!isChecked(type) || type === SPECIAL_MESSAGES.unknown) return undefined;
      if (!isJsonObject(value)) return problem(value, site);
      return checkMessage(value, type, site.path, depth + 1);
  }
}

function checkMessage(
  obj: Readonly<Record<string, JsonValue>>,
  messageName: string,
  path: string,
  depth: number,
): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const fields = jsonFieldsOf(messageName);
  if (!fields) return undefined;
  for (const [key, value] of Object.entries(obj)) {
    const location = fields.get(key);
    if (!location || value === null) continue;
    const field = location.field;
    const owner = location.inlinePath.at(-1)?.type ?? messageName;
    const site: Site = {
      struct: owner.slice(owner.lastIndexOf(".") + 1),
      path: path === "" ? key : `${path}.${key}`,
      goType: goTypeOfField(field),
    };
    let found: string | undefined;
    if (field.map) {
      if (!isJsonObject(value)) return problem(value, site);
      const valueSite = {
        ...site,
        goType: goElementType(field.map.value, field.map.valueIsMessage),
      };
      for (const v of Object.values(value)) {
        found = checkElement(v, field.map.value, field.map.valueIsMessage, valueSite, depth);
        if (found) return found;
      }
    } else if (field.repeated) {
      if (!Array.isArray(value)) return problem(value, site);
      const elementSite = { ...site, goType: goElementType(field.type, field.isMessage) };
      for (const v of value) {
        found = checkElement(v, field.type, field.isMessage, elementSite, depth);
        if (found) return found;
      }
    } else {
      found = checkElement(value, field.type, field.isMessage, site, depth);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The first value of `obj` whose JSON type its built-in Go type cannot decode, as Go's
 * decoder words it; `undefined` when every known field decodes, or for a message the tables
 * do not know (custom resources).
 */
export function typedDecodingProblem(
  obj: Readonly<Record<string, JsonValue>>,
  messageName: string | undefined,
): string | undefined {
  if (!messageName) return undefined;
  return checkMessage(obj, messageName, "", 0);
}
