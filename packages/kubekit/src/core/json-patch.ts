import { deepClone, deepEqual, isJsonObject, ownValue, setOwnValue } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * RFC 6902 JSON Patch (`application/json-patch+json`) with RFC 6901 JSON Pointers.
 *
 * Error messages follow the wording of evanphx/json-patch (the library kube-apiserver uses),
 * e.g. `add operation does not apply: doc is missing path: "/spec/foo": missing value` and
 * `testing value /metadata/name failed: test failed`, so a server built on this can answer
 * with the texts kubectl users know.
 */

/** One JSON Patch operation, discriminated by `op`. Pointers are kept in their escaped form. */
export type JsonPatchOperation =
  | { readonly op: "add"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "remove"; readonly path: string }
  | { readonly op: "replace"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "move"; readonly from: string; readonly path: string }
  | { readonly op: "copy"; readonly from: string; readonly path: string }
  | { readonly op: "test"; readonly path: string; readonly value: JsonValue };

/**
 * A JSON Patch that is invalid (`kind: "malformed"`: not an array, an unknown `op`, a missing or
 * non-string `path`/`from`, a missing `value`, bad pointer syntax; a server answers 400) or that
 * cannot be applied to the document (`kind: "failed"`: a missing location, an array index out of
 * range or malformed, a failed `test`; a server answers 422).
 *
 * `detail` is the evanphx/json-patch style description alone; `message` prefixes it with the
 * operation's index when the error concerns one operation.
 */
export class JsonPatchError extends Error {
  override readonly name = "JsonPatchError";
  /** `"malformed"`: the patch document is invalid. `"failed"`: a valid operation could not apply. */
  readonly kind: "malformed" | "failed";
  /** Zero-based index of the offending operation; `undefined` when the patch as a whole is bad. */
  readonly operationIndex: number | undefined;
  /** What went wrong, without the operation prefix. */
  readonly detail: string;

  constructor(kind: "malformed" | "failed", operationIndex: number | undefined, detail: string) {
    super(operationIndex === undefined ? detail : `operation ${operationIndex}: ${detail}`);
    this.kind = kind;
    this.operationIndex = operationIndex;
    this.detail = detail;
  }
}

/**
 * A JSON Patch with more operations than the caller allows (kube-apiserver allows 10 000 and
 * answers 413 Request Entity Too Large beyond that).
 */
export class JsonPatchTooLargeError extends Error {
  override readonly name = "JsonPatchTooLargeError";
  /** The number of operations in the patch. */
  readonly operationCount: number;
  /** The largest number of operations allowed. */
  readonly maxOperations: number;

  constructor(operationCount: number, maxOperations: number) {
    super(
      `The allowed maximum operations in a JSON patch is ${maxOperations}, got ${operationCount}`,
    );
    this.operationCount = operationCount;
    this.maxOperations = maxOperations;
  }
}

/** Options of {@link applyJsonPatch}. */
export interface ApplyJsonPatchOptions {
  /** More operations than this raise {@link JsonPatchTooLargeError}. Default: no limit. */
  readonly maxOperations?: number;
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;
const BAD_ESCAPE = /~([^01]|$)/;

/**
 * Validate a JSON Patch document (typically the result of `JSON.parse`) and return its
 * operations. Members other than `op`, `path`, `from` and `value` are ignored (RFC 6902 §4), and
 * so are `from`/`value` on operations that take none. `value` may be `null` but not absent.
 * Operation values are returned as given (not copied).
 *
 * @throws {JsonPatchError} of kind `"malformed"` when the document is not a valid patch.
 */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) {
    throw new JsonPatchError(
      "malformed",
      undefined,
      `a JSON patch must be an array of operations, got ${describeType(patch)}`,
    );
  }
  return patch.map((raw: unknown, index) => parseOperation(raw, index));
}

/**
 * Apply a JSON Patch to `doc` and return the patched document. The operations apply in order
 * and atomically: when one fails nothing is returned but the error.
 *
 * `doc` and `patch` are never mutated. The result shares no objects or arrays with either input
 * (the document is deep-copied once and values taken from the patch are copied).
 *
 * Array indices follow RFC 6901 strictly: decimal without leading zeros, `-` only to append
 * (add, and the destination of move/copy), no negative indices. An index may equal the array's
 * length for add; it must be smaller otherwise. `test` compares with structural equality (object
 * key order is irrelevant, `1` equals `1.0`) and fails on a location that does not exist.
 *
 * @throws {JsonPatchTooLargeError} when the patch has more than `options.maxOperations` operations
 *   (checked before anything else).
 * @throws {JsonPatchError} `"malformed"` for an invalid patch, `"failed"` for an operation that
 *   cannot apply.
 */
export function applyJsonPatch(
  doc: JsonValue,
  patch: unknown,
  options: ApplyJsonPatchOptions = {},
): JsonValue {
  const { maxOperations } = options;
  if (maxOperations !== undefined && Array.isArray(patch) && patch.length > maxOperations) {
    throw new JsonPatchTooLargeError(patch.length, maxOperations);
  }
  const operations = parseJsonPatch(patch);
  let result = deepClone(doc);
  operations.forEach((operation, index) => {
    result = applyOperation(result, operation, index);
  });
  return result;
}

function parseOperation(raw: unknown, index: number): JsonPatchOperation {
  if (!isJsonObject(raw)) {
    throw new JsonPatchError(
      "malformed",
      index,
      `an operation must be a JSON object, got ${describeType(raw)}`,
    );
  }
  const op = ownValue(raw, "op");
  if (typeof op !== "string" || !OPS.has(op)) {
    const kind = typeof op === "string" ? op : "unknown";
    throw new JsonPatchError("malformed", index, `Unexpected kind: ${kind}`);
  }
  const path = pointerMember(raw, "path", index);
  switch (op) {
    case "remove":
      return { op, path };
    case "move":
    case "copy":
      return { op, from: pointerMember(raw, "from", index), path };
    default: {
      const value = ownValue(raw, "value");
      if (value === undefined) {
        throw new JsonPatchError(
          "malformed",
          index,
          "operation, missing value field: missing value",
        );
      }
      return { op: op as "add" | "replace" | "test", path, value };
    }
  }
}

function pointerMember(raw: JsonObject, member: "path" | "from", index: number): string {
  const value = ownValue(raw, member);
  if (value === undefined || value === null) {
    const detail =
      member === "path"
        ? "operation missing path field: missing value"
        : "operation, missing from field: missing value";
    throw new JsonPatchError("malformed", index, detail);
  }
  if (typeof value !== "string") {
    throw new JsonPatchError(
      "malformed",
      index,
      `the "${member}" member must be a string, got ${describeType(value)}`,
    );
  }
  if (value !== "" && !value.startsWith("/")) {
    throw new JsonPatchError(
      "malformed",
      index,
      `invalid JSON pointer ${JSON.stringify(value)}: must be empty or start with "/"`,
    );
  }
  if (BAD_ESCAPE.test(value)) {
    throw new JsonPatchError(
      "malformed",
      index,
      `invalid JSON pointer ${JSON.stringify(value)}: "~" must be followed by "0" or "1"`,
    );
  }
  return value;
}

/** The unescaped reference tokens of a syntactically valid pointer. */
function tokensOf(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

type Container = JsonObject | JsonValue[];

function isContainer(value: JsonValue | undefined): value is Container {
  return typeof value === "object" && value !== null;
}

/** The array index a token denotes, or `undefined` when the token is not a valid index. */
function arrayIndex(token: string): number | undefined {
  if (!ARRAY_INDEX.test(token)) return undefined;
  const index = Number(token);
  return Number.isSafeInteger(index) ? index : undefined;
}

/** The value at `tokens` below `root`, or `undefined` when that location does not exist. */
function valueAt(root: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      const index = arrayIndex(token);
      current = index === undefined ? undefined : current[index];
    } else if (isJsonObject(current)) {
      current = ownValue(current, token);
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

function applyOperation(doc: JsonValue, operation: JsonPatchOperation, index: number): JsonValue {
  const fail = (detail: string): never => {
    throw new JsonPatchError("failed", index, detail);
  };
  switch (operation.op) {
    case "add":
      return addValue(doc, operation.path, deepClone(operation.value), "add", fail);
    case "remove":
      removeValue(doc, operation.path, "remove", fail);
      return doc;
    case "replace":
      return replaceValue(doc, operation.path, deepClone(operation.value), fail);
    case "move": {
      const { from, path } = operation;
      const value = valueAt(doc, tokensOf(from));
      if (value === undefined) {
        return fail(
          `move operation does not apply: doc is missing from path: ${from}: missing value`,
        );
      }
      if (from === path) return doc;
      if (path.startsWith(`${from}/`)) {
        return fail(
          `move operation does not apply: from path ${from} is a proper prefix of path ${path}`,
        );
      }
      removeValue(doc, from, "move", fail);
      return addValue(doc, path, value, "move", fail);
    }
    case "copy": {
      const value = valueAt(doc, tokensOf(operation.from));
      if (value === undefined) {
        return fail(
          `copy operation does not apply: doc is missing from path: ${operation.from}: missing value`,
        );
      }
      return addValue(doc, operation.path, deepClone(value), "copy", fail);
    }
    case "test": {
      const actual = valueAt(doc, tokensOf(operation.path));
      if (actual === undefined) {
        return fail(
          `test operation does not apply: is missing path: ${operation.path}: missing value`,
        );
      }
      if (!deepEqual(actual, operation.value)) {
        return fail(`testing value ${operation.path} failed: test failed`);
      }
      return doc;
    }
  }
}

type Fail = (detail: string) => never;

function invalidIndex(op: string, path: string, token: string): string {
  return `error in ${op} for path: '${path}': Unable to access invalid index: ${token}: invalid index referenced`;
}

/** The container holding the last token of `path`, and that token; fails when it is missing. */
function parentOf(
  doc: JsonValue,
  path: string,
  missing: string,
  fail: Fail,
): { parent: Container; token: string } {
  const tokens = tokensOf(path);
  const token = tokens.pop() as string;
  const parent = valueAt(doc, tokens);
  if (!isContainer(parent)) return fail(missing);
  return { parent, token };
}

/** Add `value` at `path` (RFC 6902 §4.1); returns the (possibly replaced) document. */
function addValue(
  doc: JsonValue,
  path: string,
  value: JsonValue,
  op: string,
  fail: Fail,
): JsonValue {
  if (path === "") return value;
  const where = op === "add" ? "path" : "destination path";
  const missing =
    op === "add"
      ? `add operation does not apply: doc is missing path: "${path}": missing value`
      : `${op} operation does not apply: doc is missing ${where}: ${path}: missing value`;
  const { parent, token } = parentOf(doc, path, missing, fail);
  if (Array.isArray(parent)) {
    if (token === "-") {
      parent.push(value);
      return doc;
    }
    const index = arrayIndex(token);
    if (index === undefined || index > parent.length) return fail(invalidIndex(op, path, token));
    parent.splice(index, 0, value);
  } else {
    setOwnValue(parent, token, value);
  }
  return doc;
}

/** Remove the value at `path` (RFC 6902 §4.2). */
function removeValue(doc: JsonValue, path: string, op: string, fail: Fail): void {
  const missing = `${op} operation does not apply: doc is missing path: "${path}": missing value`;
  if (path === "") fail(missing);
  const { parent, token } = parentOf(doc, path, missing, fail);
  if (Array.isArray(parent)) {
    const index = arrayIndex(token);
    if (index === undefined || index >= parent.length) fail(invalidIndex(op, path, token));
    parent.splice(index, 1);
  } else {
    if (!Object.hasOwn(parent, token)) fail(missing);
    delete parent[token];
  }
}

/** Replace the value at `path` (RFC 6902 §4.3); returns the (possibly replaced) document. */
function replaceValue(doc: JsonValue, path: string, value: JsonValue, fail: Fail): JsonValue {
  if (path === "") return value;
  const { parent, token } = parentOf(
    doc,
    path,
    `replace operation does not apply: doc is missing path: ${path}: missing value`,
    fail,
  );
  if (Array.isArray(parent)) {
    const index = arrayIndex(token);
    if (index === undefined || index >= parent.length) {
      return fail(invalidIndex("replace", path, token));
    }
    parent[index] = value;
  } else {
    if (!Object.hasOwn(parent, token)) {
      return fail(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    }
    setOwnValue(parent, token, value);
  }
  return doc;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
