/**
 * One object a conversion webhook returned, checked against the object sent and given back
 * its metadata (`validateConvertedObject` and `restoreObjectMeta` in apiextensions-apiserver
 * `pkg/apiserver/conversion/webhook_converter.go`): apiVersion must be the desired one, kind,
 * name, namespace and uid unchanged; of the metadata only labels and annotations are taken from
 * the webhook (validated when they changed), everything else is the original's.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { deepClone, formatFieldError, isJsonObject } from "kubekit/apimachinery";
import { GENERIC_POLICY } from "../../registry/resource-policy.js";
import { validateObjectMeta } from "../../store/object-validation.js";

/** Why a converted object is refused: `what` picks kube's message prefix. */
export class ConvertedObjectError extends Error {
  /**
   * `type`: not an object, or of another groupVersion or kind; `identity`: another name,
   * namespace or uid; `metadata`: metadata missing, or labels or annotations invalid.
   */
  readonly what: "type" | "identity" | "metadata";

  constructor(what: "type" | "identity" | "metadata", message: string) {
    super(message);
    this.name = "ConvertedObjectError";
    this.what = what;
  }
}

function stringField(obj: JsonObject, key: string): string {
  const value = obj[key];
  return typeof value === "string" ? value : "";
}

function metaOf(obj: JsonObject): JsonObject {
  const meta = obj["metadata"];
  return isJsonObject(meta) ? meta : {};
}

/** Go's `GroupVersion.String()` of an apiVersion: `version` for the core group. */
function groupVersionText(apiVersion: string): string {
  return apiVersion.startsWith("/") ? apiVersion.slice(1) : apiVersion;
}

/** The checks of `validateConvertedObject` (and the groupVersion and kind checks before it). */
function checkIdentity(original: JsonObject, converted: JsonObject, apiVersion: string): void {
  const got = groupVersionText(stringField(converted, "apiVersion"));
  if (got !== apiVersion) {
    throw new ConvertedObjectError(
      "type",
      `invalid groupVersion (expected ${apiVersion}, received ${got})`,
    );
  }
  const [kind, gotKind] = [stringField(original, "kind"), stringField(converted, "kind")];
  if (kind !== gotKind) {
    throw new ConvertedObjectError("type", `invalid kind (expected ${kind}, received ${gotKind})`);
  }
  const [a, b] = [metaOf(original), metaOf(converted)];
  for (const [field, label] of [
    ["name", "name"],
    ["namespace", "namespace"],
    ["uid", "UID"],
  ] as const) {
    const [e, g] = [stringField(a, field), stringField(b, field)];
    if (e !== g)
      throw new ConvertedObjectError("identity", `must have the same ${label}: ${e} != ${g}`);
  }
}

/** Labels or annotations the webhook changed, validated as kube's ValidateLabels/ValidateAnnotations. */
function checkStringMap(
  field: "labels" | "annotations",
  original: JsonValue | undefined,
  answered: JsonObject,
): void {
  const before = isJsonObject(original) ? original : {};
  let changed = Object.keys(before).length !== Object.keys(answered).length;
  for (const [k, v] of Object.entries(answered)) {
    if (typeof v !== "string") {
      const type = v === null ? "<nil>" : Array.isArray(v) ? "[]interface {}" : typeof v;
      throw new ConvertedObjectError(
        "metadata",
        `metadata.${field}[${k}] must be a string, but is ${type} in converted object`,
      );
    }
    if (before[k] !== v) changed = true;
  }
  if (!changed) return;
  const errors: FieldError[] = validateObjectMeta(
    { name: "x", [field]: answered },
    GENERIC_POLICY,
    false,
  )
    .filter((e) => e.field === `metadata.${field}`)
    // kube validates annotations at the path `metadata.annotation`.
    .map((e) => (field === "annotations" ? { ...e, field: "metadata.annotation" } : e));
  if (errors.length === 0) return;
  const messages = [...new Set(errors.map(formatFieldError))];
  const first = messages[0] ?? "";
  throw new ConvertedObjectError(
    "metadata",
    messages.length === 1 ? first : `[${messages.join(", ")}]`,
  );
}

/**
 * The webhook's `converted` answer for `original`, at `apiVersion` (Go's GroupVersion text),
 * with the original's metadata and the answered labels and annotations.
 * @throws ConvertedObjectError when the answer is refused.
 */
export function restoreConvertedObject(
  original: JsonObject,
  converted: JsonValue,
  apiVersion: string,
): JsonObject {
  if (!isJsonObject(converted)) {
    throw new ConvertedObjectError("type", "Object 'Kind' is missing in converted object");
  }
  checkIdentity(original, converted, apiVersion);
  const answered = converted["metadata"];
  if (answered === undefined) {
    throw new ConvertedObjectError("metadata", "missing metadata in converted object");
  }
  if (!isJsonObject(answered)) {
    throw new ConvertedObjectError("metadata", "invalid metadata in converted object");
  }
  const meta = deepClone(metaOf(original));
  for (const field of ["labels", "annotations"] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (!isJsonObject(value)) {
      throw new ConvertedObjectError("metadata", `invalid metadata.${field} in converted object`);
    }
    checkStringMap(field, meta[field], value);
    meta[field] = value;
  }
  return { ...converted, metadata: meta };
}
