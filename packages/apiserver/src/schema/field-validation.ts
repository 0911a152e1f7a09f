import { type JsonObject, type JsonValue, newBadRequest } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { findUnknownFields } from "./unknown-fields.js";

/** The `fieldValidation` query parameter's values. */
export type FieldValidationMode = "Ignore" | "Warn" | "Strict";

/**
 * Handles fields the type does not define, as kube-apiserver's typed decoding does for
 * built-in kinds: Strict → 400 `Pod in version "v1" cannot be handled as a Pod: strict decoding
 * error: unknown field "…"`; Warn → the
 * object with those fields dropped and one warning per field; Ignore → dropped silently.
 * Without a message name (custom resources, kinds outside the field tables) the object
 * is returned unchanged.
 */
export function enforceKnownFields(
  obj: JsonObject,
  messageName: string | undefined,
  mode: FieldValidationMode,
  warnings: string[],
): JsonObject {
  if (!messageName) return obj;
  const unknown = findUnknownFields(obj, messageName);
  if (unknown.length === 0) return obj;
  if (mode === "Strict") {
    // kube-apiserver's transformDecodeError prefix: `<Kind> in version "<v>" cannot be handled as a <Kind>: `.
    const kind = messageName.slice(messageName.lastIndexOf(".") + 1);
    const version = messageName.split(".").slice(-2, -1)[0] ?? "";
    throw newBadRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(", ")}`,
    );
  }
  if (mode === "Warn") for (const p of unknown) warnings.push(`unknown field "${p}"`);
  let result: JsonValue = obj;
  for (const p of unknown) result = removePath(result, parseFieldPath(p));
  return result as JsonObject;
}

type PathStep = string | number;

function parseFieldPath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    steps.push(m[2] !== undefined ? Number(m[2]) : (m[1] as string));
  }
  return steps;
}

function removePath(value: JsonValue, steps: readonly PathStep[]): JsonValue {
  if (steps.length === 0) return value;
  const [head, ...rest] = steps as [PathStep, ...PathStep[]];
  if (typeof head === "number") {
    if (!Array.isArray(value) || head >= value.length) return value;
    const copy = value.slice();
    copy[head] = removePath(copy[head] as JsonValue, rest);
    return copy;
  }
  if (!isJsonObject(value) || !(head in value)) return value;
  const copy: JsonObject = { ...value };
  if (rest.length === 0) delete copy[head];
  else copy[head] = removePath(copy[head] as JsonValue, rest);
  return copy;
}
