/**
 * CEL types as the type checker and the cost estimator see them: scalars, lists, maps, schema
 * objects (fields by CEL name), opaque library types (`kubernetes.Quantity`, `net.IP`, ...) and
 * `optional_type(T)`. Sizes are carried for the cost estimator: `maxElements` bounds a list's
 * items, a map's entries and a string's or bytes' length (kube's `DeclType.MaxElements`).
 * Mirrors `k8s.io/apiserver/pkg/cel/types.go` in spirit; names print as cel-go prints them.
 */
import type { CelType } from "@bufbuild/cel";

/** The kinds of CEL types this package distinguishes. */
export type DeclKind =
  | "int"
  | "uint"
  | "double"
  | "bool"
  | "string"
  | "bytes"
  | "null_type"
  | "dyn"
  | "type"
  | "timestamp"
  | "duration"
  | "list"
  | "map"
  | "object"
  | "opaque";

/** A CEL type with the size bound the schema gives it. */
export interface DeclType {
  readonly kind: DeclKind;
  /** The type's name as cel-go prints it (`int`, `list(string)`, `kubernetes.Quantity`, ...). */
  readonly name: string;
  /** List element, map value, or the parameter of an opaque type such as `optional_type`. */
  readonly elem?: DeclType;
  /** Map key type. */
  readonly key?: DeclType;
  /** Object fields by (escaped) CEL name. */
  readonly fields?: ReadonlyMap<string, DeclType>;
  /** Upper bound on items (lists), entries (maps), characters (strings) or bytes (bytes). */
  readonly maxElements: number;
}

/**
 * kube's maximum request size (`maxRequestSizeBytes`, 3 MiB): unbounded lists, maps and strings
 * are estimated from how many of them fit in one request.
 */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

function scalar(kind: DeclKind, maxElements = 0): DeclType {
  return {
    kind,
    name:
      kind === "timestamp"
        ? "google.protobuf.Timestamp"
        : kind === "duration"
          ? "google.protobuf.Duration"
          : kind,
    maxElements,
  };
}

/** The scalar types (no size bound). */
export const DECL = {
  INT: scalar("int"),
  UINT: scalar("uint"),
  DOUBLE: scalar("double"),
  BOOL: scalar("bool"),
  STRING: scalar("string", MAX_REQUEST_SIZE_BYTES),
  BYTES: scalar("bytes", MAX_REQUEST_SIZE_BYTES),
  NULL: scalar("null_type"),
  DYN: scalar("dyn"),
  TYPE: scalar("type"),
  TIMESTAMP: scalar("timestamp"),
  DURATION: scalar("duration"),
} as const;

/** A string (or bytes) type bounded to `maxLength`. */
export function sizedScalar(base: DeclType, maxLength: number): DeclType {
  return { ...base, maxElements: maxLength };
}

/** `list(elem)` with at most `maxItems` items. */
export function listDecl(elem: DeclType, maxItems = MAX_REQUEST_SIZE_BYTES): DeclType {
  return { kind: "list", name: `list(${elem.name})`, elem, maxElements: maxItems };
}

/** `map(key, value)` with at most `maxEntries` entries. */
export function mapDecl(
  key: DeclType,
  value: DeclType,
  maxEntries = MAX_REQUEST_SIZE_BYTES,
): DeclType {
  return {
    kind: "map",
    name: `map(${key.name}, ${value.name})`,
    key,
    elem: value,
    maxElements: maxEntries,
  };
}

/** A schema object named `name` with the given fields. */
export function objectDecl(name: string, fields: ReadonlyMap<string, DeclType>): DeclType {
  return { kind: "object", name, fields, maxElements: fields.size };
}

/** An opaque library type (`kubernetes.Quantity`, `net.IP`, ...), optionally parameterized. */
export function opaqueDecl(name: string, param?: DeclType): DeclType {
  return param
    ? { kind: "opaque", name: `${name}(${param.name})`, elem: param, maxElements: 0 }
    : { kind: "opaque", name, maxElements: 0 };
}

/** `optional_type(T)` (cel-go's optional values). */
export function optionalDecl(value: DeclType): DeclType {
  return opaqueDecl("optional_type", value);
}

/** Whether `t` is `optional_type(...)`. */
export function isOptionalDecl(t: DeclType): boolean {
  return t.kind === "opaque" && t.name.startsWith("optional_type(");
}

/** Converts a `@bufbuild/cel` type (from a function signature) into a DeclType. */
export function declFromCelType(t: CelType): DeclType {
  switch (t.kind) {
    case "scalar":
      switch (t.scalar) {
        case "int":
          return DECL.INT;
        case "uint":
          return DECL.UINT;
        case "double":
          return DECL.DOUBLE;
        case "bool":
          return DECL.BOOL;
        case "string":
          return DECL.STRING;
        case "bytes":
          return DECL.BYTES;
        case "null_type":
          return DECL.NULL;
        case "type":
          return DECL.TYPE;
        default:
          return DECL.DYN;
      }
    case "list":
      return listDecl(declFromCelType(t.element));
    case "map":
      return mapDecl(declFromCelType(t.key), declFromCelType(t.value));
    case "object":
      if (t.name === "google.protobuf.Timestamp") return DECL.TIMESTAMP;
      if (t.name === "google.protobuf.Duration") return DECL.DURATION;
      return opaqueDecl(t.name);
  }
}

/**
 * Whether a value of type `actual` may be passed where `expected` is declared (cel-go's
 * assignability without type parameters: `dyn` is assignable both ways; containers compare
 * their element types; objects and opaque types compare by name).
 */
export function isAssignable(actual: DeclType, expected: DeclType): boolean {
  if (actual.kind === "dyn" || expected.kind === "dyn") return true;
  if (actual.kind !== expected.kind) return false;
  switch (actual.kind) {
    case "list":
      return isAssignable(actual.elem ?? DECL.DYN, expected.elem ?? DECL.DYN);
    case "map":
      return (
        isAssignable(actual.key ?? DECL.DYN, expected.key ?? DECL.DYN) &&
        isAssignable(actual.elem ?? DECL.DYN, expected.elem ?? DECL.DYN)
      );
    case "object":
      return actual.name === expected.name;
    case "opaque":
      if (baseName(actual) !== baseName(expected)) return false;
      // An unparameterized signature (`optional_type`) accepts every parameterization.
      return actual.elem && expected.elem ? isAssignable(actual.elem, expected.elem) : true;
    default:
      return true;
  }
}

function baseName(t: DeclType): string {
  const paren = t.name.indexOf("(");
  return paren < 0 ? t.name : t.name.slice(0, paren);
}

/** The most specific type both `a` and `b` conform to (`dyn` when they differ). */
export function joinTypes(a: DeclType, b: DeclType): DeclType {
  if (a.kind === "dyn") return b;
  if (b.kind === "dyn") return a;
  if (a.kind === "list" && b.kind === "list") {
    return listDecl(
      joinTypes(a.elem ?? DECL.DYN, b.elem ?? DECL.DYN),
      a.maxElements + b.maxElements,
    );
  }
  if (isAssignable(a, b) && isAssignable(b, a)) return a.maxElements >= b.maxElements ? a : b;
  return DECL.DYN;
}
