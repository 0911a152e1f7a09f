import { Buffer } from "node:buffer";
import {
  messageInfo,
  messageNameForKind,
  SPECIAL_MESSAGES,
  type FieldInfo,
  isJsonObject,
} from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { isInlineField, jsonFieldsOf, messageJsonShape } from "../schema/message-json-view.js";

/**
 * `application/vnd.kubernetes.protobuf` bodies of built-in kinds ↔ their JSON form, driven
 * by the field tables (no generated code).
 *
 * Wire format: the 4 magic bytes `k8s\0`, then a `runtime.Unknown` message
 * `{typeMeta(1){apiVersion(1), kind(2)}, raw(2), contentEncoding(3), contentType(4)}` whose
 * `raw` is the object's own message (the kind's type, found with `messageNameForKind`).
 *
 * The JSON produced is what apimachinery's JSON encoder prints for the decoded Go object:
 * - scalar fields on the wire are kept, except zero values (`""`, `0`, `false`) of
 *   `omitempty` non-pointer fields; a non-pointer, non-`omitempty` string/number/bool absent
 *   from the wire is printed as its zero value; pointer fields on the wire are kept even
 *   when zero;
 * - message fields on the wire are kept (Go prints structs even when empty, so
 *   `"status": {}` appears); absent ones are left out;
 * - repeated and map fields with no elements are left out (Go would print `null` for a
 *   non-`omitempty` one);
 * - inline embedded structs (`Volume.volumeSource`, `ConfigMapKeySelector.localObjectReference`,
 *   ...) are flattened into their parent;
 * - special messages: meta.v1.Time ↔ RFC 3339 UTC string with whole seconds (`null` when the
 *   message is empty, as Go prints a zero time), MicroTime ↔ six fractional digits,
 *   IntOrString ↔ number or string, Quantity ↔ string (not canonicalised; empty → `"0"`),
 *   RawExtension and FieldsV1 ↔ the JSON their bytes hold, `ExtraValue`-style wrappers ↔
 *   string arrays; `bytes` fields ↔ standard base64 strings.
 * - int64 values are JSON numbers; beyond ±(2^53−1) they lose precision exactly as
 *   `JSON.parse` of the same JSON body would.
 *
 * Unknown field numbers are skipped. Decoding never throws anything but
 * {@link ProtobufDecodeError}, and always terminates (nesting is bounded).
 */

/** A protobuf body could not be decoded; the message says what and where (field path, byte offset). */
export class ProtobufDecodeError extends Error {
  override readonly name = "ProtobufDecodeError";
}

/** A JSON object could not be encoded as protobuf; the message names the field path. */
export class ProtobufEncodeError extends Error {
  override readonly name = "ProtobufEncodeError";
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const; // "k8s\0"
const MAX_DEPTH = 100;
/**
 * The media type of Kubernetes protobuf bodies (`runtime.ContentTypeProtobuf`,
 * `staging/src/k8s.io/apimachinery/pkg/runtime/types.go`), also the `contentType` of the
 * envelope this codec reads and writes.
 */
export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

/** Kinds apimachinery registers in every group version; their messages live in meta.v1. */
const META_KINDS: ReadonlySet<string> = new Set([
  "CreateOptions",
  "DeleteOptions",
  "GetOptions",
  "ListOptions",
  "PatchOptions",
  "UpdateOptions",
  "Status",
  "WatchEvent",
]);

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const utf8 = new TextDecoder("utf-8");
const utf8Encoder = new TextEncoder();

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/** The message of a kind, including the meta.v1 kinds registered in every group version. */
function messageForKind(apiVersion: string, kind: string): string | undefined {
  const [group, version] = splitApiVersion(apiVersion);
  if (version === "" || kind === "") return undefined;
  return (
    messageNameForKind(group, version, kind) ??
    (META_KINDS.has(kind) ? messageNameForKind("meta.k8s.io", "v1", kind) : undefined)
  );
}

function joinPath(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

// ---------------------------------------------------------------------------------------
// Decoding

interface Span {
  readonly start: number;
  readonly end: number;
}

/** A scalar as read from the wire, before it is given a JSON form. */
type WireValue =
  | { readonly wt: typeof WIRE_VARINT; readonly value: bigint }
  | { readonly wt: typeof WIRE_FIXED64 | typeof WIRE_FIXED32; readonly at: number }
  | { readonly wt: typeof WIRE_LEN; readonly span: Span };

class WireReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
    readonly path: string,
  ) {
    this.pos = start;
  }

  fail(what: string, at: number = this.pos): never {
    throw new ProtobufDecodeError(`${what} at byte ${at}${this.path ? ` (in ${this.path})` : ""}`);
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as a bigint (up to 64 bits). */
  varint(): bigint {
    const begin = this.pos;
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated varint", begin);
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    return this.fail("varint longer than 10 bytes", begin);
  }

  /** A varint that must fit a non-negative safe integer (tags, lengths). */
  smallVarint(): number {
    const begin = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated varint", begin);
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (result > Number.MAX_SAFE_INTEGER) this.fail("varint out of range", begin);
        return result;
      }
      scale *= 128;
    }
    return this.fail("varint longer than 10 bytes", begin);
  }

  /** A length-delimited payload; checks it lies within the current message. */
  lengthDelimited(): Span {
    const at = this.pos;
    const length = this.smallVarint();
    if (length > this.end - this.pos) {
      this.fail(
        `length ${length} runs past the end of the message (${this.end - this.pos} bytes left)`,
        at,
      );
    }
    const span = { start: this.pos, end: this.pos + length };
    this.pos += length;
    return span;
  }

  fixed(size: 4 | 8): number {
    const at = this.pos;
    if (this.end - this.pos < size) this.fail(`truncated fixed${size * 8} value`, at);
    this.pos += size;
    return at;
  }

  /** Reads the next tag: field number and wire type. */
  tag(): { num: number; wt: number; at: number } {
    const at = this.pos;
    const tag = this.smallVarint();
    const num = Math.floor(tag / 8);
    const wt = tag % 8;
    if (num === 0) this.fail("field number 0", at);
    return { num, wt, at };
  }

  /** Reads one value of the given wire type. */
  value(wt: number, at: number): WireValue {
    switch (wt) {
      case WIRE_VARINT:
        return { wt, value: this.varint() };
      case WIRE_FIXED64:
        return { wt, at: this.fixed(8) };
      case WIRE_LEN:
        return { wt, span: this.lengthDelimited() };
      case WIRE_FIXED32:
        return { wt, at: this.fixed(4) };
      default:
        return this.fail(`unsupported wire type ${wt}`, at);
    }
  }
}

function wireTypeOf(scalar: string): number {
  switch (scalar) {
    case "string":
    case "bytes":
      return WIRE_LEN;
    case "double":
      return WIRE_FIXED64;
    case "float":
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

function scalarFromWire(
  r: WireReader,
  type: string,
  v: WireValue,
  at: number,
  path: string,
): JsonValue {
  const expected = wireTypeOf(type);
  if (v.wt !== expected) {
    r.fail(`field ${path}: wire type ${v.wt} for a ${type} field (expected ${expected})`, at);
  }
  switch (v.wt) {
    case WIRE_VARINT:
      switch (type) {
        case "bool":
          return v.value !== 0n;
        case "int32":
          return Number(BigInt.asIntN(32, v.value));
        case "uint32":
          return Number(BigInt.asUintN(32, v.value));
        case "uint64":
          return Number(v.value);
        default:
          return Number(BigInt.asIntN(64, v.value));
      }
    case WIRE_FIXED64:
    case WIRE_FIXED32: {
      const view = new DataView(
        r.buf.buffer,
        r.buf.byteOffset + v.at,
        v.wt === WIRE_FIXED64 ? 8 : 4,
      );
      return v.wt === WIRE_FIXED64 ? view.getFloat64(0, true) : view.getFloat32(0, true);
    }
    case WIRE_LEN: {
      const bytes = r.buf.subarray(v.span.start, v.span.end);
      return type === "bytes" ? Buffer.from(bytes).toString("base64") : utf8.decode(bytes);
    }
  }
}

function isZeroScalar(value: JsonValue): boolean {
  return value === "" || value === 0 || value === false;
}

function zeroScalar(type: string): JsonValue {
  return type === "string" ? "" : type === "bool" ? false : 0;
}

/** Decodes the message `typeName` occupying `span` into its JSON form. */
function decodeMessage(
  buf: Uint8Array,
  span: Span,
  typeName: string,
  path: string,
  depth: number,
): JsonValue {
  const r: WireReader = new WireReader(buf, span.start, span.end, path);
  if (depth > MAX_DEPTH) r.fail(`messages nested deeper than ${MAX_DEPTH}`);
  switch (messageJsonShape(typeName)) {
    case "time":
    case "microTime":
      return decodeTime(r, typeName === SPECIAL_MESSAGES.microTime);
    case "intOrString":
      return decodeIntOrString(r);
    case "quantity": {
      const s = lastScalars(r).get(1);
      const text =
        s === undefined ? "" : scalarFromWire(r, "string", s, span.start, joinPath(path, "string"));
      return text === "" ? "0" : text;
    }
    case "rawExtension":
    case "fieldsV1":
      return decodeEmbeddedJson(r, depth);
    case "stringList": {
      const items = decodeObject(r, typeName, depth).items;
      return Array.isArray(items) ? items : [];
    }
    case "object":
      return decodeObject(r, typeName, depth);
  }
}

/** The last value of each field number (for the small special messages). */
function lastScalars(r: WireReader): Map<number, WireValue> {
  const out = new Map<number, WireValue>();
  while (!r.done()) {
    const { num, wt, at } = r.tag();
    out.set(num, r.value(wt, at));
  }
  return out;
}

function decodeTime(r: WireReader, micro: boolean): JsonValue {
  const start = r.pos;
  if (r.done()) return null;
  const fields = lastScalars(r);
  const seconds = fields.get(1);
  const nanos = fields.get(2);
  const secs =
    seconds === undefined
      ? 0
      : (scalarFromWire(r, "int64", seconds, start, joinPath(r.path, "seconds")) as number);
  const ns =
    nanos === undefined
      ? 0
      : (scalarFromWire(r, "int32", nanos, start, joinPath(r.path, "nanos")) as number);
  if (ns < 0 || ns > 999_999_999) r.fail(`nanos ${ns} out of range`, start);
  const ms = secs * 1000;
  if (!Number.isSafeInteger(secs) || ms < -62_167_219_200_000 || ms > 253_402_300_799_000) {
    r.fail(`seconds ${secs} outside years 0000-9999`, start);
  }
  const whole = new Date(ms).toISOString().slice(0, 19);
  return micro ? `${whole}.${String(Math.floor(ns / 1000)).padStart(6, "0")}Z` : `${whole}Z`;
}

function decodeIntOrString(r: WireReader): JsonValue {
  const start = r.pos;
  const fields = lastScalars(r);
  const get = (num: number, type: string, name: string): JsonValue => {
    const v = fields.get(num);
    return v === undefined
      ? zeroScalar(type)
      : scalarFromWire(r, type, v, start, joinPath(r.path, name));
  };
  const type = get(1, "int64", "type");
  if (type === 0) return get(2, "int32", "intVal");
  if (type === 1) return get(3, "string", "strVal");
  return r.fail(`IntOrString type ${String(type)} is neither 0 (int) nor 1 (string)`, start);
}

/** RawExtension / FieldsV1: field 1 holds JSON bytes (or, for RawExtension, a nested protobuf object). */
function decodeEmbeddedJson(r: WireReader, depth: number): JsonValue {
  const start = r.pos;
  const raw = lastScalars(r).get(1);
  if (raw === undefined) return null;
  if (raw.wt !== WIRE_LEN) return r.fail(`raw bytes with wire type ${raw.wt}`, start);
  const { span } = raw;
  if (span.end === span.start) return null;
  if (hasMagic(r.buf, span.start, span.end)) return decodeEnvelope(r.buf, span, depth + 1, r.path);
  try {
    return JSON.parse(utf8.decode(r.buf.subarray(span.start, span.end))) as JsonValue;
  } catch (err) {
    return r.fail(
      `embedded bytes are neither JSON nor protobuf (${(err as Error).message})`,
      span.start,
    );
  }
}

interface FieldValues {
  single?: JsonValue;
  list?: JsonValue[];
  map?: JsonObject;
}

function decodeObject(r: WireReader, typeName: string, depth: number): JsonObject {
  const info = messageInfo(typeName);
  if (!info) return r.fail(`type ${typeName} is not in the field tables`);
  const values = new Map<number, FieldValues>();
  while (!r.done()) {
    const { num, wt, at } = r.tag();
    const field = info.byNumber.get(num);
    const v = r.value(wt, at);
    if (!field) continue; // unknown field: skipped, forward compatible
    const fieldPath = joinPath(r.path, field.jsonName ?? field.name);
    let slot = values.get(num);
    if (!slot) {
      slot = {};
      values.set(num, slot);
    }
    if (field.map) {
      if (v.wt !== WIRE_LEN) r.fail(`field ${fieldPath}: map entry with wire type ${v.wt}`, at);
      const [key, value] = decodeMapEntry(r.buf, v.span, field, fieldPath, depth);
      (slot.map ??= {})[key] = value;
    } else if (field.isMessage) {
      if (v.wt !== WIRE_LEN) r.fail(`field ${fieldPath}: message with wire type ${v.wt}`, at);
      const index = field.repeated ? `[${slot.list?.length ?? 0}]` : "";
      const value = decodeMessage(r.buf, v.span, field.type, fieldPath + index, depth + 1);
      if (field.repeated) (slot.list ??= []).push(value);
      else slot.single = value;
    } else if (field.repeated) {
      const list = (slot.list ??= []);
      if (v.wt === WIRE_LEN && wireTypeOf(field.type) !== WIRE_LEN) {
        // packed encoding of a repeated numeric field
        const packed: WireReader = new WireReader(r.buf, v.span.start, v.span.end, fieldPath);
        while (!packed.done()) {
          const pat = packed.pos;
          list.push(
            scalarFromWire(
              packed,
              field.type,
              packed.value(wireTypeOf(field.type), pat),
              pat,
              fieldPath,
            ),
          );
        }
      } else {
        list.push(scalarFromWire(r, field.type, v, at, fieldPath));
      }
    } else {
      slot.single = scalarFromWire(r, field.type, v, at, fieldPath);
    }
  }

  const out: JsonObject = {};
  for (const field of info.fields) {
    const slot = values.get(field.number);
    if (isInlineField(typeName, field)) {
      if (isJsonObject(slot?.single)) Object.assign(out, slot.single);
      continue;
    }
    const key = field.jsonName;
    if (key === undefined) continue;
    if (field.map) {
      if (slot?.map) out[key] = slot.map;
    } else if (field.repeated) {
      if (slot?.list && slot.list.length > 0) out[key] = slot.list;
    } else if (field.isMessage) {
      if (slot && "single" in slot) out[key] = slot.single as JsonValue;
    } else if (slot && "single" in slot) {
      const value = slot.single as JsonValue;
      if (!(field.omitempty && !field.pointer && isZeroScalar(value))) out[key] = value;
    } else if (!field.omitempty && !field.pointer && field.type !== "bytes") {
      out[key] = zeroScalar(field.type);
    }
  }
  return out;
}

function decodeMapEntry(
  buf: Uint8Array,
  span: Span,
  field: FieldInfo,
  path: string,
  depth: number,
): [string, JsonValue] {
  const map = field.map as NonNullable<FieldInfo["map"]>;
  const r: WireReader = new WireReader(buf, span.start, span.end, path);
  let key = "";
  let value: JsonValue | undefined;
  while (!r.done()) {
    const { num, wt, at } = r.tag();
    const v = r.value(wt, at);
    if (num === 1) {
      key = scalarFromWire(r, map.key, v, at, path) as string;
    } else if (num === 2) {
      if (map.valueIsMessage) {
        if (v.wt !== WIRE_LEN) r.fail(`field ${path}: map value with wire type ${v.wt}`, at);
        value = decodeMessage(buf, v.span, map.value, joinPath(path, key), depth + 1);
      } else {
        value = scalarFromWire(r, map.value, v, at, joinPath(path, key));
      }
    }
  }
  if (value === undefined) {
    value = map.valueIsMessage
      ? decodeMessage(
          buf,
          { start: span.end, end: span.end },
          map.value,
          joinPath(path, key),
          depth + 1,
        )
      : map.value === "bytes"
        ? ""
        : zeroScalar(map.value);
  }
  return [key, value];
}

function hasMagic(buf: Uint8Array, start: number, end: number): boolean {
  return end - start >= MAGIC.length && MAGIC.every((b, i) => buf[start + i] === b);
}

/** Decodes `k8s\0` + runtime.Unknown at `span`. */
function decodeEnvelope(buf: Uint8Array, span: Span, depth: number, path: string): JsonObject {
  const r: WireReader = new WireReader(buf, span.start, span.end, path);
  if (!hasMagic(buf, span.start, span.end)) {
    r.fail('missing the "k8s\\0" magic prefix of a Kubernetes protobuf body');
  }
  if (depth > MAX_DEPTH) r.fail(`objects nested deeper than ${MAX_DEPTH}`);
  r.pos += MAGIC.length;
  let apiVersion = "";
  let kind = "";
  let raw: Span = { start: r.end, end: r.end };
  let contentEncoding = "";
  let contentType = "";
  while (!r.done()) {
    const { num, wt, at } = r.tag();
    const v = r.value(wt, at);
    if (num < 1 || num > 4) continue;
    if (v.wt !== WIRE_LEN) r.fail(`runtime.Unknown field ${num} with wire type ${v.wt}`, at);
    if (num === 1) {
      const tm: WireReader = new WireReader(
        buf,
        v.span.start,
        v.span.end,
        joinPath(path, "typeMeta"),
      );
      for (const [n, tv] of lastScalars(tm)) {
        if (n === 1)
          apiVersion = scalarFromWire(tm, "string", tv, v.span.start, "apiVersion") as string;
        if (n === 2) kind = scalarFromWire(tm, "string", tv, v.span.start, "kind") as string;
      }
    } else if (num === 2) {
      raw = v.span;
    } else {
      const text = utf8.decode(buf.subarray(v.span.start, v.span.end));
      if (num === 3) contentEncoding = text;
      else contentType = text;
    }
  }
  if (contentEncoding !== "")
    r.fail(`unsupported contentEncoding "${contentEncoding}"`, span.start);
  if (contentType !== "" && contentType !== PROTOBUF_CONTENT_TYPE) {
    r.fail(`unsupported contentType "${contentType}"`, span.start);
  }
  const typeName = messageForKind(apiVersion, kind);
  if (!typeName) {
    r.fail(`no built-in type for apiVersion "${apiVersion}", kind "${kind}"`, span.start);
  }
  const body = decodeMessage(buf, raw, typeName, path, depth + 1);
  return { apiVersion, kind, ...(body as JsonObject) };
}

/**
 * Decodes a `application/vnd.kubernetes.protobuf` body (`k8s\0` + runtime.Unknown) into the
 * object's JSON form, `apiVersion` and `kind` first. Throws {@link ProtobufDecodeError}
 * for a bad magic, a truncated or malformed body, a GVK with no built-in type, or an
 * envelope with a content encoding/type other than plain protobuf.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): JsonObject {
  return decodeEnvelope(body, { start: 0, end: body.length }, 0, "");
}

// ---------------------------------------------------------------------------------------
// Encoding

class WireWriter {
  #buf = new Uint8Array(256);
  length = 0;

  #ensure(extra: number): void {
    if (this.length + extra <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
  }

  byte(b: number): void {
    this.#ensure(1);
    this.#buf[this.length++] = b;
  }

  varint(value: bigint | number): void {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.byte(Number(v));
  }

  tag(num: number, wt: number): void {
    this.varint(num * 8 + wt);
  }

  bytes(num: number, data: Uint8Array): void {
    this.tag(num, WIRE_LEN);
    this.varint(data.length);
    this.#ensure(data.length);
    this.#buf.set(data, this.length);
    this.length += data.length;
  }

  fixed(num: number, wt: typeof WIRE_FIXED32 | typeof WIRE_FIXED64, value: number): void {
    this.tag(num, wt);
    const size = wt === WIRE_FIXED64 ? 8 : 4;
    this.#ensure(size);
    const view = new DataView(this.#buf.buffer, this.length, size);
    if (size === 8) view.setFloat64(0, value, true);
    else view.setFloat32(0, value, true);
    this.length += size;
  }

  finish(): Uint8Array {
    return this.#buf.slice(0, this.length);
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function encodeFail(path: string, what: string): never {
  throw new ProtobufEncodeError(`${path || "<root>"}: ${what}`);
}

/** Inclusive minimum and exclusive maximum of each integer type. */
const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31],
  uint32: [0, 2 ** 32],
  int64: [-(2 ** 63), 2 ** 63],
  uint64: [0, 2 ** 64],
};

function writeScalar(
  w: WireWriter,
  num: number,
  type: string,
  value: JsonValue,
  path: string,
): void {
  switch (type) {
    case "string":
      if (typeof value !== "string")
        encodeFail(path, `expected a string, got ${JSON.stringify(value)}`);
      w.bytes(num, utf8Encoder.encode(value));
      return;
    case "bytes":
      if (typeof value !== "string" || !BASE64.test(value))
        encodeFail(path, "expected a base64 string");
      w.bytes(num, Buffer.from(value, "base64"));
      return;
    case "bool":
      if (typeof value !== "boolean")
        encodeFail(path, `expected a boolean, got ${JSON.stringify(value)}`);
      w.tag(num, WIRE_VARINT);
      w.varint(value ? 1 : 0);
      return;
    case "double":
    case "float":
      if (typeof value !== "number")
        encodeFail(path, `expected a number, got ${JSON.stringify(value)}`);
      w.fixed(num, type === "double" ? WIRE_FIXED64 : WIRE_FIXED32, value);
      return;
    default: {
      const [min, max] = INT_RANGES[type] ?? encodeFail(path, `unsupported scalar type ${type}`);
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value >= max) {
        encodeFail(path, `expected a ${type}, got ${JSON.stringify(value)}`);
      }
      w.tag(num, WIRE_VARINT);
      w.varint(BigInt(value));
    }
  }
}

function parseTime(value: string, path: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(value);
  if (!m) encodeFail(path, `"${value}" is not an RFC 3339 time`);
  const n = (i: number): number => Number(m[i] ?? "0");
  const date = new Date(0);
  date.setUTCFullYear(n(1), n(2) - 1, n(3));
  date.setUTCHours(n(4), n(5), n(6));
  const valid =
    date.getUTCFullYear() === n(1) &&
    date.getUTCMonth() === n(2) - 1 &&
    date.getUTCDate() === n(3) &&
    date.getUTCHours() === n(4) &&
    date.getUTCMinutes() === n(5) &&
    date.getUTCSeconds() === n(6);
  if (!valid) encodeFail(path, `"${value}" is not a valid date and time`);
  const offsetMinutes = m[8] ? 0 : (m[9] === "-" ? -1 : 1) * (n(10) * 60 + n(11));
  const nanos = Number((m[7] ?? "").padEnd(9, "0"));
  return { seconds: date.getTime() / 1000 - offsetMinutes * 60, nanos };
}

/** Writes the content (no tag or length) of message `typeName` for `value`. */
function encodeMessage(w: WireWriter, value: JsonValue, typeName: string, path: string): void {
  switch (messageJsonShape(typeName)) {
    case "time":
    case "microTime": {
      if (value === null) return;
      if (typeof value !== "string")
        encodeFail(path, `expected a time string, got ${JSON.stringify(value)}`);
      const { seconds, nanos } = parseTime(value, path);
      w.tag(1, WIRE_VARINT);
      w.varint(seconds);
      w.tag(2, WIRE_VARINT);
      w.varint(nanos);
      return;
    }
    case "intOrString": {
      const isString = typeof value === "string";
      if (!isString && value !== null && !(typeof value === "number" && Number.isInteger(value))) {
        encodeFail(path, `expected an integer or a string, got ${JSON.stringify(value)}`);
      }
      writeScalar(w, 1, "int64", isString ? 1 : 0, path);
      writeScalar(w, 2, "int32", isString ? 0 : (value ?? 0), path);
      writeScalar(w, 3, "string", isString ? value : "", path);
      return;
    }
    case "quantity": {
      if (value !== null && typeof value !== "string" && typeof value !== "number") {
        encodeFail(path, `expected a quantity string, got ${JSON.stringify(value)}`);
      }
      w.bytes(1, utf8Encoder.encode(value === null ? "0" : String(value)));
      return;
    }
    case "rawExtension":
    case "fieldsV1":
      if (value !== null) w.bytes(1, utf8Encoder.encode(JSON.stringify(value)));
      return;
    case "stringList":
      if (value === null) return;
      if (!Array.isArray(value)) encodeFail(path, "expected an array of strings");
      value.forEach((item, i) => writeScalar(w, 1, "string", item, `${path}[${i}]`));
      return;
    case "object":
      encodeObject(w, value, typeName, path);
  }
}

function encodeObject(w: WireWriter, value: JsonValue, typeName: string, path: string): void {
  if (value !== null && !isJsonObject(value))
    encodeFail(path, `expected an object, got ${JSON.stringify(value)}`);
  const obj: JsonObject = value ?? {};
  const info = messageInfo(typeName);
  const known = jsonFieldsOf(typeName);
  if (!info || !known) return encodeFail(path, `type ${typeName} is not in the field tables`);
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) encodeFail(joinPath(path, key), `unknown field "${key}" in ${typeName}`);
  }
  const fields = [...info.fields].sort((a, b) => a.number - b.number);
  for (const field of fields) {
    if (isInlineField(typeName, field)) {
      const inner = jsonFieldsOf(field.type);
      const part: JsonObject = {};
      for (const key of Object.keys(obj)) if (inner?.has(key)) part[key] = obj[key] as JsonValue;
      writeMessageField(w, field.number, part, field.type, path);
      continue;
    }
    if (field.jsonName === undefined) continue;
    const fieldPath = joinPath(path, field.jsonName);
    const v = obj[field.jsonName];
    if (field.map) {
      if (v === undefined || v === null) continue;
      if (!isJsonObject(v)) encodeFail(fieldPath, "expected an object (a map)");
      for (const key of Object.keys(v).sort()) {
        const entry = new WireWriter();
        writeScalar(entry, 1, "string", key, fieldPath);
        const item = v[key] as JsonValue;
        if (field.map.valueIsMessage)
          writeMessageField(entry, 2, item, field.map.value, joinPath(fieldPath, key));
        else
          writeScalar(
            entry,
            2,
            field.map.value,
            item ?? zeroScalar(field.map.value),
            joinPath(fieldPath, key),
          );
        w.bytes(field.number, entry.finish());
      }
    } else if (field.repeated) {
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v)) encodeFail(fieldPath, "expected an array");
      v.forEach((item, i) => {
        const itemPath = `${fieldPath}[${i}]`;
        if (field.isMessage) writeMessageField(w, field.number, item, field.type, itemPath);
        else writeScalar(w, field.number, field.type, item, itemPath);
      });
    } else if (v === undefined || v === null) {
      if (field.pointer || field.type === "bytes") continue;
      if (field.isMessage) writeMessageField(w, field.number, null, field.type, fieldPath);
      else writeScalar(w, field.number, field.type, zeroScalar(field.type), fieldPath);
    } else if (field.isMessage) {
      writeMessageField(w, field.number, v, field.type, fieldPath);
    } else {
      writeScalar(w, field.number, field.type, v, fieldPath);
    }
  }
}

function writeMessageField(
  w: WireWriter,
  num: number,
  value: JsonValue,
  typeName: string,
  path: string,
): void {
  const inner = new WireWriter();
  encodeMessage(inner, value, typeName, path);
  w.bytes(num, inner.finish());
}

/**
 * Encodes a built-in object (with `apiVersion` and `kind`) as an
 * `application/vnd.kubernetes.protobuf` body, the way apimachinery does: fields in number
 * order, non-pointer scalars and structs always written (zero when absent), map entries
 * sorted by key. Throws {@link ProtobufEncodeError} for a GVK with no built-in type, a field
 * the type does not have, or a value of the wrong JSON type. Inverse of
 * {@link decodeKubernetesProtobuf} up to the zero values Go's JSON adds.
 */
export function encodeKubernetesProtobuf(obj: JsonObject): Uint8Array {
  const { apiVersion, kind, ...rest } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    encodeFail("", "apiVersion and kind must be strings");
  }
  const typeName = messageForKind(apiVersion, kind);
  if (!typeName) encodeFail("", `no built-in type for apiVersion "${apiVersion}", kind "${kind}"`);
  const raw = new WireWriter();
  encodeMessage(raw, rest, typeName, "");
  const typeMeta = new WireWriter();
  writeScalar(typeMeta, 1, "string", apiVersion, "apiVersion");
  writeScalar(typeMeta, 2, "string", kind, "kind");
  const envelope = new WireWriter();
  for (const b of MAGIC) envelope.byte(b);
  envelope.bytes(1, typeMeta.finish());
  envelope.bytes(2, raw.finish());
  writeScalar(envelope, 3, "string", "", "contentEncoding");
  writeScalar(envelope, 4, "string", "", "contentType");
  return envelope.finish();
}
