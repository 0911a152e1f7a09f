import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";

/**
 * The protobuf form of a Swagger 2.0 document that kubectl asks `/openapi/v2` for
 * (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): the message
 * `openapi.v2.Document` of gnostic's `openapiv2/OpenAPIv2.proto`, which client-go decodes
 * and kube-openapi's `pkg/util/proto` parses for `kubectl explain -o plaintext-openapiv2` and
 * client-side validation.
 *
 * Only what the server's documents contain is encoded: `swagger`, `info` (title, version),
 * `paths` (vendor extensions only) and `definitions`, whose schemas carry `$ref`, `format`,
 * `title`, `description`, `default`, the numeric and length bounds, `pattern`, `uniqueItems`,
 * `required`, `enum`, `additionalProperties`, `type`, `items`, `allOf`, `properties`,
 * `readOnly`, `example` and the `x-` vendor extensions. A value gnostic holds as `Any` (a
 * default, an enum entry, an example, an extension's value) is written as its JSON text in
 * `Any.yaml`, which is valid YAML. A keyword whose value has the wrong JSON type is left out
 * rather than failing the document.
 */

/** Field numbers of `openapi.v2.Schema`. */
const SCHEMA = {
  ref: 1,
  format: 2,
  title: 3,
  description: 4,
  default: 5,
  multipleOf: 6,
  maximum: 7,
  exclusiveMaximum: 8,
  minimum: 9,
  exclusiveMinimum: 10,
  maxLength: 11,
  minLength: 12,
  pattern: 13,
  maxItems: 14,
  minItems: 15,
  uniqueItems: 16,
  maxProperties: 17,
  minProperties: 18,
  required: 19,
  enum: 20,
  additionalProperties: 21,
  type: 22,
  items: 23,
  allOf: 24,
  properties: 25,
  readOnly: 27,
  example: 30,
  vendorExtension: 31,
} as const;

const STRING_KEYWORDS = [
  ["$ref", SCHEMA.ref],
  ["format", SCHEMA.format],
  ["title", SCHEMA.title],
  ["description", SCHEMA.description],
  ["pattern", SCHEMA.pattern],
] as const;
const DOUBLE_KEYWORDS = [
  ["multipleOf", SCHEMA.multipleOf],
  ["maximum", SCHEMA.maximum],
  ["minimum", SCHEMA.minimum],
] as const;
const INT_KEYWORDS = [
  ["maxLength", SCHEMA.maxLength],
  ["minLength", SCHEMA.minLength],
  ["maxItems", SCHEMA.maxItems],
  ["minItems", SCHEMA.minItems],
  ["maxProperties", SCHEMA.maxProperties],
  ["minProperties", SCHEMA.minProperties],
] as const;
const BOOL_KEYWORDS = [
  ["exclusiveMaximum", SCHEMA.exclusiveMaximum],
  ["exclusiveMinimum", SCHEMA.exclusiveMinimum],
  ["uniqueItems", SCHEMA.uniqueItems],
  ["readOnly", SCHEMA.readOnly],
] as const;

/** Encodes a Swagger 2.0 document (as `openApiV2Document` builds it) as gnostic protobuf. */
export function encodeOpenApiV2Protobuf(doc: JsonObject): Uint8Array {
  const w = new BinaryWriter();
  if (typeof doc["swagger"] === "string") w.tag(1, WireType.LengthDelimited).string(doc["swagger"]);
  const info = doc["info"];
  if (isJsonObject(info)) {
    w.tag(2, WireType.LengthDelimited).fork();
    if (typeof info["title"] === "string") w.tag(1, WireType.LengthDelimited).string(info["title"]);
    if (typeof info["version"] === "string") {
      w.tag(2, WireType.LengthDelimited).string(info["version"]);
    }
    w.join();
  }
  // Paths: present (possibly empty) so that kubectl sees a document with paths.
  w.tag(8, WireType.LengthDelimited).fork().join();
  const definitions = doc["definitions"];
  if (isJsonObject(definitions)) {
    w.tag(9, WireType.LengthDelimited).fork();
    writeNamedSchemas(w, definitions);
    w.join();
  }
  return w.finish();
}

/** `repeated NamedSchema additional_properties = 1` of Definitions and Properties. */
function writeNamedSchemas(w: BinaryWriter, schemas: JsonObject): void {
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isJsonObject(schema)) continue;
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(name);
    w.tag(2, WireType.LengthDelimited).fork();
    writeSchema(w, schema);
    w.join();
    w.join();
  }
}

/** An `Any` message holding `value` as YAML (JSON text). */
function writeAny(w: BinaryWriter, field: number, value: JsonValue): void {
  w.tag(field, WireType.LengthDelimited).fork();
  w.tag(2, WireType.LengthDelimited).string(JSON.stringify(value));
  w.join();
}

function writeSchema(w: BinaryWriter, s: JsonObject): void {
  writeScalarKeywords(w, s);
  if (s["default"] !== undefined) writeAny(w, SCHEMA.default, s["default"]);
  for (const name of stringList(s["required"])) {
    w.tag(SCHEMA.required, WireType.LengthDelimited).string(name);
  }
  if (Array.isArray(s["enum"])) for (const v of s["enum"]) writeAny(w, SCHEMA.enum, v);
  const additional = s["additionalProperties"];
  if (typeof additional === "boolean" || isJsonObject(additional)) {
    w.tag(SCHEMA.additionalProperties, WireType.LengthDelimited).fork();
    if (typeof additional === "boolean") w.tag(2, WireType.Varint).bool(additional);
    else writeSubSchema(w, 1, additional);
    w.join();
  }
  const type = s["type"];
  const types = typeof type === "string" ? [type] : stringList(type);
  if (types.length > 0) {
    w.tag(SCHEMA.type, WireType.LengthDelimited).fork();
    for (const t of types) w.tag(1, WireType.LengthDelimited).string(t);
    w.join();
  }
  writeItems(w, s["items"]);
  if (Array.isArray(s["allOf"])) {
    for (const sub of s["allOf"]) if (isJsonObject(sub)) writeSubSchema(w, SCHEMA.allOf, sub);
  }
  const properties = s["properties"];
  if (isJsonObject(properties)) {
    w.tag(SCHEMA.properties, WireType.LengthDelimited).fork();
    writeNamedSchemas(w, properties);
    w.join();
  }
  if (s["example"] !== undefined) writeAny(w, SCHEMA.example, s["example"]);
  for (const [key, value] of Object.entries(s)) {
    if (!key.startsWith("x-")) continue;
    w.tag(SCHEMA.vendorExtension, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(key);
    writeAny(w, 2, value);
    w.join();
  }
}

function writeScalarKeywords(w: BinaryWriter, s: JsonObject): void {
  for (const [key, field] of STRING_KEYWORDS) {
    const v = s[key];
    if (typeof v === "string") w.tag(field, WireType.LengthDelimited).string(v);
  }
  for (const [key, field] of DOUBLE_KEYWORDS) {
    const v = s[key];
    if (typeof v === "number") w.tag(field, WireType.Bit64).double(v);
  }
  for (const [key, field] of INT_KEYWORDS) {
    const v = s[key];
    if (typeof v === "number" && Number.isSafeInteger(v)) w.tag(field, WireType.Varint).int64(v);
  }
  for (const [key, field] of BOOL_KEYWORDS) {
    const v = s[key];
    if (typeof v === "boolean") w.tag(field, WireType.Varint).bool(v);
  }
}

/** `ItemsItem { repeated Schema schema = 1 }`: one schema, or a tuple's schemas. */
function writeItems(w: BinaryWriter, items: JsonValue | undefined): void {
  const list = isJsonObject(items)
    ? [items]
    : Array.isArray(items)
      ? items.filter(isJsonObject)
      : [];
  if (list.length === 0) return;
  w.tag(SCHEMA.items, WireType.LengthDelimited).fork();
  for (const item of list) writeSubSchema(w, 1, item);
  w.join();
}

function writeSubSchema(w: BinaryWriter, field: number, schema: JsonObject): void {
  w.tag(field, WireType.LengthDelimited).fork();
  writeSchema(w, schema);
  w.join();
}

function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
