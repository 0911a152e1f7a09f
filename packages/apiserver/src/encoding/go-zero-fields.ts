import { messageInfo, type FieldInfo } from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { isInlineField, messageJsonShape } from "../schema/message-json-view.js";

/**
 * What Go's `encoding/json` writes for a built-in type's fields when they hold their zero
 * value, derived from the field tables (`json` name, `omitempty`, pointer-ness) — what
 * kube-apiserver prints for an object it decoded from storage, where an absent field is the
 * Go zero value:
 * - a non-pointer struct is always written, `omitempty` or not (Go never omits structs):
 *   `"status":{}`, `"resources":{}`, with its own always-written fields inside; a zero
 *   `metav1.Time`/`MicroTime` prints `null` (`"creationTimestamp":null`,
 *   `"lastProbeTime":null`), a zero `IntOrString` `0`, a zero `Quantity` `"0"`, a zero
 *   `RawExtension`/`FieldsV1` or string-list wrapper `null`;
 * - a scalar without `omitempty` is written as `""`, `0` or `false` (`[]byte` as `null`);
 * - a slice, map or pointer without `omitempty` is written as `null` when nil;
 * - everything else (`omitempty` scalars, slices, maps, pointers) is left out when zero.
 *
 * Go's inline embedded structs (`json:",inline"`) contribute their fields to the parent.
 * Tables are computed once per message, on first use, and cached.
 */

/** A field Go always writes, with a factory of the value it writes when the field is zero. */
export interface AlwaysEncodedField {
  /** The JSON key. */
  readonly key: string;
  /** A fresh zero value (objects are new instances on every call). */
  readonly zero: () => JsonValue;
}

const NONE: () => JsonValue = () => null;
const EMPTY_STRING: () => JsonValue = () => "";
const ZERO: () => JsonValue = () => 0;
const FALSE: () => JsonValue = () => false;
const QUANTITY_ZERO: () => JsonValue = () => "0";

const META_V1 = "k8s.io.apimachinery.pkg.apis.meta.v1";

/**
 * Corrections of the field tables (taken from the v1.37 development line) to the Go types of
 * kube 1.32, found by comparing every table field with the json tags of k8s.io/api and
 * k8s.io/apimachinery v0.32.9 `types.go`: fields Go tags `omitempty` that the tables do not,
 * and fields the 1.32 types do not have.
 */
const OMITEMPTY_IN_GO: ReadonlySet<string> = new Set([
  `${META_V1}.LabelSelector.matchLabels`,
  `${META_V1}.LabelSelector.matchExpressions`,
]);
const ABSENT_IN_KUBE_1_32: ReadonlySet<string> = new Set(["k8s.io.api.storage.v1.CSINode.status"]);

const corrected = new WeakMap<FieldInfo, FieldInfo | null>();

/**
 * `field` of message `messageName` as kube 1.32's Go type declares it (the field tables with
 * the corrections above), or `undefined` when the 1.32 type has no such field.
 */
export function goFieldOf(messageName: string, field: FieldInfo): FieldInfo | undefined {
  const known = corrected.get(field);
  if (known !== undefined) return known ?? undefined;
  const id = `${messageName}.${field.name}`;
  let out: FieldInfo | null = field;
  if (ABSENT_IN_KUBE_1_32.has(id)) out = null;
  else if (OMITEMPTY_IN_GO.has(id)) out = { ...field, omitempty: true };
  corrected.set(field, out);
  return out ?? undefined;
}

const cache = new Map<string, readonly AlwaysEncodedField[]>();
const MAX_DEPTH = 64;

/**
 * The fields of message `messageName` (fully qualified) that Go always encodes, in field
 * order, inline embedded structs flattened; empty for a message outside the tables.
 */
export function alwaysEncodedFields(messageName: string): readonly AlwaysEncodedField[] {
  return fieldsOf(messageName, 0);
}

function fieldsOf(messageName: string, depth: number): readonly AlwaysEncodedField[] {
  const cached = cache.get(messageName);
  if (cached) return cached;
  const info = messageInfo(messageName);
  const out: AlwaysEncodedField[] = [];
  if (info && depth < MAX_DEPTH) {
    for (const tableField of info.fields) {
      const field = goFieldOf(messageName, tableField);
      if (!field) continue;
      if (isInlineField(messageName, field)) {
        out.push(...fieldsOf(field.type, depth + 1));
        continue;
      }
      const zero = zeroFactory(field, depth);
      if (field.jsonName !== undefined && zero) out.push({ key: field.jsonName, zero });
    }
  }
  cache.set(messageName, out);
  return out;
}

/**
 * The value Go writes for `field` when it holds its zero value (what an absent or `null`
 * JSON value decodes to), or `undefined` when Go leaves the field out.
 */
export function encodedZeroOf(field: FieldInfo): JsonValue | undefined {
  return zeroFactory(field, 0)?.();
}

/** Whether `field` is a non-pointer struct (never omitted by Go, `omitempty` or not). */
export function isStructField(field: FieldInfo): boolean {
  return field.isMessage && !field.repeated && field.map === undefined && !field.pointer;
}

function zeroFactory(field: FieldInfo, depth: number): (() => JsonValue) | undefined {
  if (field.pointer || field.repeated || field.map !== undefined) {
    return field.omitempty ? undefined : NONE;
  }
  if (field.isMessage) return messageZeroFactory(field.type, depth + 1);
  if (field.omitempty) return undefined;
  switch (field.type) {
    case "string":
      return EMPTY_STRING;
    case "bool":
      return FALSE;
    case "bytes":
      return NONE;
    default:
      return ZERO;
  }
}

function messageZeroFactory(messageName: string, depth: number): () => JsonValue {
  switch (messageJsonShape(messageName)) {
    case "intOrString":
      return ZERO;
    case "quantity":
      return QUANTITY_ZERO;
    case "object": {
      const fields = fieldsOf(messageName, depth);
      return () => zeroObject(fields);
    }
    default:
      // time, microTime, rawExtension, fieldsV1, stringList
      return NONE;
  }
}

function zeroObject(fields: readonly AlwaysEncodedField[]): JsonObject {
  const obj: JsonObject = {};
  for (const f of fields) obj[f.key] = f.zero();
  return obj;
}
