import { createRequire } from "node:module";

/**
 * The field tables of the built-in Kubernetes API types (data/kubernetes-api-fields.json):
 * protobuf numbers, JSON names, omitempty, and strategic-merge-patch directives.
 *
 * The table is loaded lazily, on the first lookup, and shared by every caller.
 */

/** A scalar protobuf type as it appears in the field tables. */
export type ScalarType = "string" | "int32" | "int64" | "bool" | "bytes" | "double" | "float";

/** One field of a message, with its type resolved to a fully qualified message name. */
export interface FieldInfo {
  /** The Go/proto field name as the table gives it. */
  readonly name: string;
  /** The JSON name; `undefined` when the field never appears in JSON (`json: "-"`). */
  readonly jsonName: string | undefined;
  /** The protobuf field number. */
  readonly number: number;
  /** A scalar type, or the fully qualified name of a message (no leading dot). */
  readonly type: string;
  /** Whether `type` names a message rather than a scalar. */
  readonly isMessage: boolean;
  /** A repeated field (a JSON array). */
  readonly repeated: boolean;
  /** For a map field: the key type and the value type (scalar or fully qualified message). */
  readonly map:
    { readonly key: string; readonly value: string; readonly valueIsMessage: boolean } | undefined;
  /** Omitted from JSON when empty. */
  readonly omitempty: boolean;
  /** Absent unless set (a Go pointer). */
  readonly pointer: boolean;
  /** Strategic-merge-patch strategies, e.g. `["merge"]`, `["retainKeys"]`, `["merge","retainKeys"]`. */
  readonly patchStrategies: readonly string[];
  /** Strategic-merge-patch merge key of a merged list of objects. */
  readonly patchMergeKey: string | undefined;
}

/** A message (an API type) with its fields indexed by JSON name and by protobuf number. */
export interface MessageInfo {
  /** Fully qualified name, e.g. `k8s.io.api.core.v1.Pod`. */
  readonly name: string;
  readonly fields: readonly FieldInfo[];
  readonly byJsonName: ReadonlyMap<string, FieldInfo>;
  readonly byNumber: ReadonlyMap<number, FieldInfo>;
}

interface RawField {
  name: string;
  number: number;
  type?: string;
  repeated?: boolean;
  map?: [string, string];
  json?: string;
  omitempty?: boolean;
  pointer?: boolean;
  patchStrategy?: string;
  patchMergeKey?: string;
}

interface RawTable {
  messages: Record<string, { fields: RawField[] }>;
}

const SCALARS = new Set([
  "string",
  "int32",
  "int64",
  "bool",
  "bytes",
  "double",
  "float",
  "uint32",
  "uint64",
]);

let raw: RawTable | undefined;
const resolved = new Map<string, MessageInfo | null>();

function table(): RawTable {
  if (!raw) {
    const require = createRequire(import.meta.url);
    raw = require("../../data/kubernetes-api-fields.json") as RawTable;
  }
  return raw;
}

function qualify(type: string, pkg: string): string {
  if (SCALARS.has(type)) return type;
  return type.startsWith(".") ? type.slice(1) : `${pkg}.${type}`;
}

/** The message with this fully qualified name, or `undefined` when the table has none. */
export function messageInfo(fullName: string): MessageInfo | undefined {
  const cached = resolved.get(fullName);
  if (cached !== undefined) return cached ?? undefined;
  const rawMessage = table().messages[fullName];
  if (!rawMessage) {
    resolved.set(fullName, null);
    return undefined;
  }
  const pkg = fullName.slice(0, fullName.lastIndexOf("."));
  const fields: FieldInfo[] = rawMessage.fields.map((f) => {
    const jsonName = f.json === "-" ? undefined : (f.json ?? f.name);
    const map = f.map
      ? {
          key: f.map[0],
          value: qualify(f.map[1], pkg),
          valueIsMessage: !SCALARS.has(f.map[1]),
        }
      : undefined;
    const type = f.type ? qualify(f.type, pkg) : "map";
    return {
      name: f.name,
      jsonName,
      number: f.number,
      type,
      isMessage: f.type !== undefined && !SCALARS.has(f.type),
      repeated: f.repeated === true,
      map,
      omitempty: f.omitempty === true,
      pointer: f.pointer === true,
      patchStrategies: f.patchStrategy ? f.patchStrategy.split(",") : [],
      patchMergeKey: f.patchMergeKey,
    };
  });
  const info: MessageInfo = {
    name: fullName,
    fields,
    byJsonName: new Map(fields.filter((f) => f.jsonName).map((f) => [f.jsonName as string, f])),
    byNumber: new Map(fields.map((f) => [f.number, f])),
  };
  resolved.set(fullName, info);
  return info;
}

/** Groups whose protobuf package name is not the first label of the group name. */
const PACKAGE_OF_GROUP: Readonly<Record<string, string>> = {
  "": "k8s.io.api.core",
  "internal.apiserver.k8s.io": "k8s.io.api.apiserverinternal",
  "meta.k8s.io": "k8s.io.apimachinery.pkg.apis.meta",
};

/**
 * The fully qualified message name of a built-in kind, e.g. `apps/v1 Deployment` →
 * `k8s.io.api.apps.v1.Deployment`; `undefined` when the table does not describe the kind
 * (custom resources, and groups outside k8s.io/api such as apiextensions.k8s.io).
 */
export function messageNameForKind(
  group: string,
  version: string,
  kind: string,
): string | undefined {
  const pkg = PACKAGE_OF_GROUP[group] ?? `k8s.io.api.${group.split(".")[0]}`;
  const name = `${pkg}.${version}.${kind}`;
  return messageInfo(name) ? name : undefined;
}

/** Well-known messages whose JSON form is not the object their fields describe. */
export const SPECIAL_MESSAGES = {
  time: "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
  microTime: "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
  intOrString: "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
  quantity: "k8s.io.apimachinery.pkg.api.resource.Quantity",
  rawExtension: "k8s.io.apimachinery.pkg.runtime.RawExtension",
  fieldsV1: "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
  unknown: "k8s.io.apimachinery.pkg.runtime.Unknown",
} as const;
