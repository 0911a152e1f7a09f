import { type JsonObject, type JsonValue, newBadRequest } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import {
  duplicateFieldErrorsOf,
  duplicateFieldsOf,
  isYamlBody,
  keyOffsetsOf,
  MAX_STRICT_ERRORS,
} from "../encoding/duplicate-fields.js";
import { findUnknownFields } from "./unknown-fields.js";

/** The `fieldValidation` query parameter's values. */
export type FieldValidationMode = "Ignore" | "Warn" | "Strict";

/** `duplicate field "<path>"`, as strict decoding words a repeated key. */
export function duplicateFieldText(path: string): string {
  return `duplicate field "${path}"`;
}

/** `unknown field "<path>"`, as strict decoding and pruning word a field the type lacks. */
export function unknownFieldText(path: string): string {
  return `unknown field "${path}"`;
}

/**
 * kube-apiserver's handling of strict decoding errors (`create.go`/`update.go` of
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers` with `transformDecodeError`):
 * Strict → 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error:
 * <e1>, <e2>`; Warn → one warning per error; Ignore → nothing.
 */
export function reportStrictDecodingErrors(
  kind: string,
  version: string,
  errors: readonly string[],
  mode: FieldValidationMode,
  warnings: string[],
): void {
  if (errors.length === 0) return;
  if (mode === "Strict") {
    throw newBadRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${errors.join(", ")}`,
    );
  }
  if (mode === "Warn") for (const e of errors) warnings.push(...warningLines(e));
}

const YAML_ERRORS_PREFIX = "yaml: unmarshal errors:\n";

/** addStrictDecodingWarnings: a YAML error list becomes one warning per line. */
function warningLines(error: string): string[] {
  if (!error.startsWith(YAML_ERRORS_PREFIX)) return [error];
  return error
    .slice(YAML_ERRORS_PREFIX.length)
    .split("\n")
    .map((line) => line.trim());
}

function isUnder(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/**
 * The strict decoding errors of a built-in kind's body in document order, as Go's typed
 * decoding meets them: a repeated key where it repeats, an unknown field where it first
 * appears; keys repeated inside an unknown field are only that unknown field.
 */
function typedStrictErrors(body: JsonObject | undefined, unknown: readonly string[]): string[] {
  if (body && isYamlBody(body)) {
    // YAML bodies are converted to JSON (keys sorted) before the typed decoding.
    return [...duplicateFieldErrorsOf(body), ...[...unknown].sort().map(unknownFieldText)];
  }
  const duplicates = body
    ? duplicateFieldsOf(body).filter((d) => !unknown.some((u) => isUnder(d.path, u)))
    : [];
  if (duplicates.length === 0) return unknown.map(unknownFieldText);
  const offsets = body ? keyOffsetsOf(body, new Set(unknown)) : new Map<string, number>();
  const events = [
    ...duplicates.map((d) => ({ offset: d.offset, text: duplicateFieldText(d.path) })),
    ...unknown.map((p) => ({ offset: offsets.get(p) ?? Infinity, text: unknownFieldText(p) })),
  ];
  return events
    .sort((a, b) => a.offset - b.offset)
    .slice(0, MAX_STRICT_ERRORS)
    .map((e) => e.text);
}

/**
 * Handles fields the type does not define and keys the request body repeats, as
 * kube-apiserver's strict typed decoding does for built-in kinds: Strict → 400 `Pod in version
 * "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name",
 * unknown field "spec.foo"` (document order); Warn → the object with unknown fields dropped
 * and one warning per error; Ignore → unknown fields dropped silently. `body` is the object
 * request decoding returned (its repeated keys are found from the JSON text it was parsed
 * from; other bodies have none). Without a message name (custom resources, kinds outside the
 * field tables) the object is returned unchanged.
 */
export function enforceKnownFields(
  obj: JsonObject,
  messageName: string | undefined,
  mode: FieldValidationMode,
  warnings: string[],
  body?: JsonObject,
): JsonObject {
  if (!messageName) return obj;
  const unknown = findUnknownFields(obj, messageName);
  if (mode !== "Ignore") {
    // transformDecodeError's `<Kind> in version "<v>"` from the message name `….<v>.<Kind>`.
    const kind = messageName.slice(messageName.lastIndexOf(".") + 1);
    const version = messageName.split(".").slice(-2, -1)[0] ?? "";
    reportStrictDecodingErrors(kind, version, typedStrictErrors(body, unknown), mode, warnings);
  }
  return unknown.length === 0 ? obj : removeFieldPaths(obj, unknown);
}

/**
 * A copy of `obj` without the fields at `paths` (formatted as strict decoding errors print
 * them: `spec.foo`, `spec.items[0].bar`); paths that do not exist are ignored. Only the
 * containers along the removed paths are copied.
 */
export function removeFieldPaths(obj: JsonObject, paths: readonly string[]): JsonObject {
  let result: JsonValue = obj;
  for (const p of paths) result = removePath(result, parseFieldPath(p));
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
