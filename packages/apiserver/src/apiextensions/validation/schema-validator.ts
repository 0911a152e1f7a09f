/**
 * kube-openapi's schema validator (`k8s.io/kube-openapi/pkg/validation/validate`, the version
 * kube 1.32 vendors) over a JSON value: for each schema node the type, `allOf`/`anyOf`/
 * `oneOf`/`not`, string, format, number, array, enum and object validators run in that order
 * on the value's kind (a type mismatch does not stop the others), errors are deduplicated by
 * message, and a match count picks which failed `anyOf`/`oneOf` alternative is reported.
 *
 * Numbers follow what kube-apiserver decodes: a JSON number without fraction is an int64
 * (bounds are truncated to int64 and printed with `%d`), any other a float64 (`%v`). JSON
 * text cannot reach here, so an integral number written with a fraction (`1.0`) counts as an
 * int64 too.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { deepEqual, isJsonObject } from "kubekit/apimachinery";
import { compileGoRegexp } from "../go-regexp.js";
import { matchesFormat } from "./string-formats.js";
import { schemaNodeInfo, type SchemaNodeInfo } from "./schema-node-info.js";
import { OpenApiResult } from "./openapi-result.js";
import * as msg from "./openapi-messages.js";

/** Schema and value levels walked before the validator gives up on a node. */
const MAX_VALIDATION_DEPTH = 1000;
const MAX_JSON_FLOAT = 2 ** 53 - 1;
const INT64_LIMIT = 2 ** 63;

type ValueKind = "null" | "boolean" | "string" | "integer" | "number" | "array" | "object";

function kindOf(v: JsonValue): ValueKind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "number":
      return Number.isInteger(v) && Math.abs(v) < INT64_LIMIT ? "integer" : "number";
    default:
      return "object";
  }
}

/** go-openapi swag's IsFloat64AJSONInteger (relative error 1e-9; Go's amd64 conversions). */
export function isFloat64AJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -MAX_JSON_FLOAT || f > MAX_JSON_FLOAT) return false;
  if (Number.isInteger(f)) return true;
  if (f < 0) return false;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0 || diff < Number.MIN_VALUE) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / Math.min(f + g, Number.MAX_VALUE) < 1e-9;
}

/** Go's `int64(f)`: truncation, saturated at the int64 range. */
function goInt64(f: number): number {
  return Math.max(-INT64_LIMIT, Math.min(INT64_LIMIT, Math.trunc(f)));
}

/** The type validator (`type.go`): a match count of 1 when the type fits. */
function checkType(info: SchemaNodeInfo, data: JsonValue, kind: ValueKind, path: string) {
  const types = info.types;
  if (kind === "null") {
    if (types.length > 0 && !types.includes("null") && !info.nullable) {
      return OpenApiResult.of(msg.invalidType(path, types.join(","), "null"));
    }
    return matched();
  }
  const dataFormat = kind === "integer" ? "int64" : kind === "number" ? "float64" : "";
  const isFloatInt =
    kind === "number" && types.includes("integer") && isFloat64AJsonInteger(data as number);
  const isIntFloat = kind === "integer" && types.includes("number");
  const fits = types.includes(kind) || isFloatInt || isIntFloat;
  if (kind !== "string" && kind !== "array" && info.format !== "" && !fits) {
    return OpenApiResult.of(msg.invalidType(path, info.format, dataFormat));
  }
  const numeric = types.includes("number") || types.includes("integer");
  if (!numeric && info.format !== "" && (kind === "string" || kind === "array")) return matched();
  if (!fits) return OpenApiResult.of(msg.invalidType(path, types.join(","), kind));
  return matched();
}

const MATCHED = new OpenApiResult();
MATCHED.matchCount = 1;

/** A successful type check: no error, one match (shared, never modified). */
function matched(): OpenApiResult {
  return MATCHED;
}

/** `anyOf`: the first valid alternative, else the best failure and a composite error. */
function checkAnyOf(info: SchemaNodeInfo, data: JsonValue, path: string, depth: number) {
  const main = new OpenApiResult();
  let best: OpenApiResult | undefined;
  let firstSuccess: OpenApiResult | undefined;
  for (const alt of info.anyOf) {
    const r = validateValue(data, alt, path, depth);
    if (r.isValid) {
      best = undefined;
      firstSuccess = r;
      break;
    }
    if (!best || r.matchCount > best.matchCount) best = r;
  }
  if (!firstSuccess) main.add(msg.mustValidateAtLeastOne(path));
  return main.merge(best ?? firstSuccess);
}

/** `oneOf`: exactly one valid alternative, else the best failure and a composite error. */
function checkOneOf(info: SchemaNodeInfo, data: JsonValue, path: string, depth: number) {
  const main = new OpenApiResult();
  let best: OpenApiResult | undefined;
  let firstSuccess: OpenApiResult | undefined;
  let valid = 0;
  for (const alt of info.oneOf) {
    const r = validateValue(data, alt, path, depth);
    if (r.isValid) {
      valid++;
      best = undefined;
      firstSuccess ??= r;
      continue;
    }
    if (valid === 0 && (!best || r.matchCount > best.matchCount)) best = r;
  }
  if (valid !== 1) {
    main.add(msg.mustValidateOnlyOne(path, valid));
    return main.merge(best);
  }
  return main.merge(firstSuccess);
}

function hasSchemaProps(info: SchemaNodeInfo): boolean {
  return (
    info.anyOf.length > 0 ||
    info.oneOf.length > 0 ||
    info.allOf.length > 0 ||
    info.not !== undefined ||
    info.dependencies.size > 0
  );
}

/** The schema props validator (`schema_props.go`): allOf, anyOf, oneOf, not, dependencies. */
function checkSchemaProps(info: SchemaNodeInfo, data: JsonValue, path: string, depth: number) {
  const main = new OpenApiResult();
  if (info.anyOf.length > 0) main.merge(checkAnyOf(info, data, path, depth));
  if (info.oneOf.length > 0) main.merge(checkOneOf(info, data, path, depth));
  if (info.allOf.length > 0) {
    let valid = 0;
    for (const alt of info.allOf) {
      const r = validateValue(data, alt, path, depth);
      if (r.isValid) valid++;
      main.merge(r);
    }
    if (valid !== info.allOf.length) main.add(msg.mustValidateAll(path, valid === 0));
  }
  if (info.not && validateValue(data, info.not, path, depth).isValid) {
    main.add(msg.mustNotValidate(path));
  }
  if (info.dependencies.size > 0 && kindOf(data) === "object") {
    const obj = data as JsonObject;
    for (const key of Object.keys(obj)) {
      const dep = info.dependencies.get(key);
      if (dep === undefined) continue;
      if (Array.isArray(dep)) {
        for (const d of dep as readonly string[]) {
          if (!Object.hasOwn(obj, d)) main.add(msg.hasADependency(path, d));
        }
      } else {
        main.merge(validateValue(data, dep as JsonObject, `${path}.${key}`, depth));
      }
    }
  }
  main.matchCount++;
  return main;
}

function runeCount(s: string, limit: number): number {
  if (s.length <= limit) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The string validator (`validator.go`): maxLength, minLength, pattern; the first failure. */
function checkString(info: SchemaNodeInfo, data: string, path: string, out: OpenApiResult): void {
  if (info.maxLength !== undefined && runeCount(data, info.maxLength) > info.maxLength) {
    out.add(msg.tooLong(path, info.maxLength, data));
    return;
  }
  const min = info.minLength;
  if (min !== undefined && data.length < 2 * min && runeCount(data, -1) < min) {
    out.add(msg.tooShort(path, min, data));
    return;
  }
  if (info.pattern === "") return;
  let matches: boolean;
  try {
    matches = compileGoRegexp(info.pattern).test(data);
  } catch (err) {
    const detail = `${info.pattern}, but pattern is invalid: ${(err as Error).message}`;
    out.add(msg.failedPattern(path, detail, data));
    return;
  }
  if (!matches) out.add(msg.failedPattern(path, info.pattern, data));
}

/** The number validator: multipleOf, minimum, maximum (int64 or float64 arithmetic). */
function checkNumber(
  info: SchemaNodeInfo,
  data: number,
  isInt: boolean,
  path: string,
  out: OpenApiResult,
) {
  const f = info.multipleOf;
  if (f !== undefined) {
    if (isInt) {
      const factor = goInt64(f);
      if (factor <= 0) out.add(msg.multipleOfMustBePositive(path, msg.intText(factor)));
      else if (data % factor !== 0) out.add(msg.notMultipleOf(path, msg.intText(factor), data));
    } else if (f <= 0) {
      out.add(msg.multipleOfMustBePositive(path, msg.floatText(f)));
    } else if (!isFloat64AJsonInteger(f < 1 ? (1 / f) * data : data / f)) {
      out.add(msg.notMultipleOf(path, msg.floatText(f), data));
    }
  }
  if (info.minimum !== undefined) {
    const min = isInt ? goInt64(info.minimum) : info.minimum;
    if (info.exclusiveMinimum ? data <= min : data < min) {
      const text = isInt ? msg.intText(min) : msg.floatText(min);
      out.add(msg.exceedsMinimum(path, text, info.exclusiveMinimum, data));
    }
  }
  if (info.maximum !== undefined) {
    const max = isInt ? goInt64(info.maximum) : info.maximum;
    if (info.exclusiveMaximum ? data >= max : data > max) {
      const text = isInt ? msg.intText(max) : msg.floatText(max);
      out.add(msg.exceedsMaximum(path, text, info.exclusiveMaximum, data));
    }
  }
  out.matchCount++;
}

/** A canonical text of a JSON value (sorted keys) to find duplicates in linear time. */
function canonical(v: JsonValue): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k] as JsonValue)}`).join(",")}}`;
}

/** The slice validator (`slice_validator.go`): items, additionalItems, min/maxItems, uniqueItems. */
function checkSlice(
  info: SchemaNodeInfo,
  data: JsonValue[],
  path: string,
  depth: number,
  out: OpenApiResult,
  old: Correlated | undefined,
) {
  const size = data.length;
  if (info.items) {
    const items = info.items;
    const oldItems = old && Array.isArray(old.value) ? mapListIndex(info, old.value) : undefined;
    for (let i = 0; i < size; i++) {
      const item = data[i] as JsonValue;
      const oldItem = oldItems && correlatedItem(info, oldItems, item);
      out.merge(validateValue(item, items, `${path}[${i}]`, depth, oldItem));
    }
  }
  const list = info.itemsList ?? [];
  for (let i = 0; i < list.length && i < size; i++) {
    out.merge(validateValue(data[i] as JsonValue, list[i] as JsonObject, `${path}[${i}]`, depth));
  }
  const extra = info.additionalItems;
  if (extra && list.length < size) {
    if (list.length > 0 && !extra.allows) out.add(msg.additionalItemsNotAllowed());
    if (extra.schema) {
      for (let i = list.length; i < size; i++) {
        out.merge(validateValue(data[i] as JsonValue, extra.schema, `${path}[${i}]`, depth));
      }
    }
  }
  if (info.minItems !== undefined && size < info.minItems) {
    out.add(msg.tooFewItems(path, info.minItems, size));
  }
  if (info.maxItems !== undefined && size > info.maxItems) {
    out.add(msg.tooManyItems(path, info.maxItems, size));
  }
  if (info.uniqueItems && new Set(data.map(canonical)).size !== size) {
    out.add(msg.duplicateItems(path));
  }
  out.matchCount++;
}

/** An enum's values by kind, so that large enums are looked up in constant time. */
interface EnumIndex {
  readonly strings: Set<string>;
  readonly ints: Set<number>;
  readonly floats: Set<number>;
  readonly bools: Set<boolean>;
  readonly composites: JsonValue[];
}

const enumIndexes = new WeakMap<readonly JsonValue[], EnumIndex>();

function enumIndex(values: readonly JsonValue[]): EnumIndex {
  let index = enumIndexes.get(values);
  if (index) return index;
  index = {
    strings: new Set(),
    ints: new Set(),
    floats: new Set(),
    bools: new Set(),
    composites: [],
  };
  for (const v of values) {
    const kind = kindOf(v);
    if (kind === "string") index.strings.add(v as string);
    else if (kind === "integer") index.ints.add(v as number);
    else if (kind === "number") index.floats.add(v as number);
    else if (kind === "boolean") index.bools.add(v as boolean);
    else if (kind !== "null") index.composites.push(v);
  }
  enumIndexes.set(values, index);
  return index;
}

/** Go's `string(rune(i))`: the code point, U+FFFD when `i` is not a valid one. */
function goRuneString(i: number): string {
  const valid = i >= 0 && i <= 0x10ffff && !(i >= 0xd800 && i <= 0xdfff);
  return valid ? String.fromCodePoint(i) : "\ufffd";
}

/**
 * Whether `data` equals an enum value after Go's reflect conversion to that value's type
 * (`basicCommonValidator`): an int64 matches a float64 of equal value and the string of its
 * code point, a float64 matches an int64 it truncates to.
 */
function enumContains(index: EnumIndex, data: JsonValue, kind: ValueKind): boolean {
  switch (kind) {
    case "string":
      return index.strings.has(data as string);
    case "boolean":
      return index.bools.has(data as boolean);
    case "integer":
      return (
        index.ints.has(data as number) ||
        index.floats.has(data as number) ||
        (index.strings.size > 0 && index.strings.has(goRuneString(data as number)))
      );
    case "number":
      return index.floats.has(data as number) || index.ints.has(goInt64(data as number));
    default:
      return index.composites.some((v) => kindOf(v) === kind && deepEqual(v, data));
  }
}

/** The object validator (`object_validator.go`). */
function checkObject(
  info: SchemaNodeInfo,
  data: JsonObject,
  path: string,
  depth: number,
  out: OpenApiResult,
  old: Correlated | undefined,
) {
  const keys = Object.keys(data);
  if (info.minProperties !== undefined && keys.length < info.minProperties) {
    out.add(msg.tooFewProperties(path, info.minProperties, keys.length));
  }
  if (info.maxProperties !== undefined && keys.length > info.maxProperties) {
    out.add(msg.tooManyProperties(path, info.maxProperties, keys.length));
  }
  const extra = info.additionalProperties;
  const patterns = info.patternProperties;
  const closed = extra !== undefined && !extra.allows;
  for (const key of keys) {
    const regular = info.properties.has(key);
    const value = data[key] as JsonValue;
    let matchedPattern = false;
    for (const [pattern, schema] of patterns) {
      if (!goRegexpMatches(pattern, key)) continue;
      matchedPattern = true;
      out.merge(validateValue(value, schema, `${path}.${key}`, depth, correlatedField(old, key)));
    }
    if (regular || matchedPattern) continue;
    if (closed) out.add(msg.propertyNotAllowed(path, key));
    else if (extra?.schema) {
      const oldValue = correlatedField(old, key);
      out.merge(validateValue(value, extra.schema, `${path}.${key}`, depth, oldValue));
    }
  }
  for (const [name, schema] of info.properties) {
    if (!Object.hasOwn(data, name)) continue;
    const child = path === "" ? name : `${path}.${name}`;
    const oldValue = correlatedField(old, name);
    out.merge(validateValue(data[name] as JsonValue, schema, child, depth, oldValue));
  }
  for (const name of info.required) {
    if (!Object.hasOwn(data, name)) out.add(msg.requiredError(`${path}.${name}`));
  }
}

function goRegexpMatches(pattern: string, input: string): boolean {
  try {
    return compileGoRegexp(pattern).test(input);
  } catch {
    return false;
  }
}

/**
 * The old value correlated with the validated one on an update (apiextensions' ratcheting,
 * `pkg/apiserver/validation/ratcheting.go` with `k8s.io/apiserver/pkg/cel/common`
 * CorrelatedObject): object fields correlate by key, items of `x-kubernetes-list-type: map`
 * lists by their map keys, other list items not at all.
 */
export interface Correlated {
  readonly value: JsonValue;
}

function correlatedField(old: Correlated | undefined, key: string): Correlated | undefined {
  if (!old || !isJsonObject(old.value) || !Object.hasOwn(old.value, key)) return undefined;
  return { value: old.value[key] as JsonValue };
}

function mapKeysOf(info: SchemaNodeInfo): string[] | undefined {
  if (info.node["x-kubernetes-list-type"] !== "map") return undefined;
  const keys = info.node["x-kubernetes-list-map-keys"];
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string") : [];
}

function mapKeyOf(keys: readonly string[], item: JsonValue): string | undefined {
  if (!isJsonObject(item)) return undefined;
  return canonical(keys.map((k) => item[k] ?? null));
}

/** The old items of a map list by their keys (empty for lists that do not correlate). */
function mapListIndex(info: SchemaNodeInfo, old: JsonValue[]): Map<string, JsonValue> {
  const index = new Map<string, JsonValue>();
  const keys = mapKeysOf(info);
  if (!keys) return index;
  for (const item of old) {
    const key = mapKeyOf(keys, item);
    if (key !== undefined && !index.has(key)) index.set(key, item);
  }
  return index;
}

function correlatedItem(
  info: SchemaNodeInfo,
  oldItems: Map<string, JsonValue>,
  item: JsonValue,
): Correlated | undefined {
  const keys = mapKeysOf(info);
  const key = keys && mapKeyOf(keys, item);
  if (key === undefined || !oldItems.has(key)) return undefined;
  return { value: oldItems.get(key) as JsonValue };
}

/** Ratcheting: the errors of a value equal to its correlated old value are dropped. */
function ratchet(result: OpenApiResult, data: JsonValue, old: Correlated | undefined) {
  if (result.isValid || !old || !deepEqual(data, old.value)) return result;
  const kept = new OpenApiResult();
  kept.matchCount = result.matchCount;
  return kept;
}

/**
 * Validates `data` against the schema `node` (kube-openapi's `SchemaValidator.Validate`);
 * `path` is the dotted name of `data` relative to the validated root (`""` at the root).
 */
export function validateValue(
  data: JsonValue,
  node: JsonObject,
  path: string,
  depth = 0,
  old?: Correlated,
): OpenApiResult {
  if (depth > MAX_VALIDATION_DEPTH) {
    const message = `${path} in body is nested deeper than ${MAX_VALIDATION_DEPTH} levels`;
    return OpenApiResult.of({ code: "composite", name: "", message });
  }
  const info = schemaNodeInfo(node);
  const kind = kindOf(data);
  const result = new OpenApiResult();
  if (kind === "null") {
    result.merge(checkType(info, data, kind, path));
    if (info.enumValues && info.enumValues.length > 0) {
      result.add(msg.enumFail(path, undefined, info.enumValues));
    }
    return result;
  }
  if (info.types.length > 0 || info.format !== "") {
    result.merge(checkType(info, data, kind, path));
    result.matchCount++;
  }
  if (hasSchemaProps(info)) result.merge(checkSchemaProps(info, data, path, depth + 1));
  else result.matchCount++; // the schema props validator's own count, nothing to check
  result.matchCount++;
  if (kind === "string") {
    checkString(info, data as string, path, result);
    result.matchCount++;
    if (info.format !== "") {
      if (!matchesFormat(info.format, data as string)) {
        result.add(msg.invalidType(path, info.format, data));
      }
      result.matchCount++;
    }
  } else if (kind === "integer" || kind === "number") {
    checkNumber(info, data as number, kind === "integer", path, result);
    result.matchCount++;
  } else if (kind === "array") {
    checkSlice(info, data as JsonValue[], path, depth + 1, result, old);
    result.matchCount++;
  }
  if (info.enumValues && info.enumValues.length > 0) {
    if (!enumContains(enumIndex(info.enumValues), data, kind)) {
      result.add(msg.enumFail(path, data, info.enumValues));
    }
  }
  result.matchCount++;
  if (kind === "object") {
    checkObject(info, data as JsonObject, path, depth + 1, result, old);
    result.matchCount++;
  }
  result.matchCount++;
  return ratchet(result, data, old);
}
