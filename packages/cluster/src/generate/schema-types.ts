/**
 * TypeScript declarations from a CRD version's OpenAPI v3 schema, as kopium maps a structural
 * schema to Rust (`kopium/src/analyzer.rs`): one interface per object with properties, named
 * after its path (`WebsiteSpec`, `WebsiteStatusConditions`), required properties required,
 * enums as unions of their values, `x-kubernetes-int-or-string` as `number | string`,
 * `additionalProperties` as a `Record`, `x-kubernetes-preserve-unknown-fields` as an index
 * signature of `unknown` values, `x-kubernetes-embedded-resource` as an object with
 * `apiVersion`, `kind` and `metadata`, `nullable` as `| null`. Descriptions become TSDoc.
 */
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import { docComment, schemaDocLines } from "./doc-comment.js";
import { propertyKey, upperCamelCase } from "./type-names.js";
import { WIDTH } from "./typescript-layout.js";

/** A TypeScript type as the alternatives of a union (one for a type that is not a union). */
type TypeAlternatives = readonly string[];

/** The fixed members an object declaration starts with (the root's and an embedded resource's). */
export interface FixedMember {
  readonly key: string;
  readonly type: string;
  readonly optional: boolean;
}

/** How {@link SchemaTypeEmitter.declareObject} declares one interface. */
export interface ObjectDeclaration {
  /** The name wanted; a taken one gets a number appended (unless {@link nameReserved}). */
  readonly name: string;
  /** Whether `name` was reserved for this declaration when the emitter was made: used as is. */
  readonly nameReserved?: boolean;
  readonly schema: JSONSchemaProps;
  /** An `extends` clause, e.g. `ObjectWithMetadata`. */
  readonly extends?: string;
  /** Members written first, before the schema's properties (which then skip their keys). */
  readonly fixed?: readonly FixedMember[];
  /** Documentation used when the schema has no description. */
  readonly fallbackDoc?: readonly string[];
  /** Extra documentation lines appended (e.g. `@deprecated ...`). */
  readonly extraDoc?: readonly string[];
}

/** The object-with-metadata members an embedded resource has (`x-kubernetes-embedded-resource`). */
const EMBEDDED_MEMBERS: readonly FixedMember[] = [
  { key: "apiVersion", type: "string", optional: true },
  { key: "kind", type: "string", optional: true },
  { key: "metadata", type: "ObjectMeta", optional: true },
];

/** The `x-kubernetes-*` flags a structural schema may set (kubernetes-types' JSONSchemaProps lacks them). */
type SchemaExtension =
  | "x-kubernetes-embedded-resource"
  | "x-kubernetes-int-or-string"
  | "x-kubernetes-preserve-unknown-fields";

/** Whether the schema node sets the `x-kubernetes-*` flag `name` to true. */
function hasExtension(schema: JSONSchemaProps, name: SchemaExtension): boolean {
  return (schema as Record<string, unknown>)[name] === true;
}

/** A JSON enum value as a TypeScript literal type, or undefined when it has none. */
function literalType(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** `alternatives` joined as a union, parenthesized when it is one (for `T[]`). */
function unionText(alternatives: TypeAlternatives, parenthesize: boolean): string {
  const text = alternatives.join(" | ");
  return parenthesize && alternatives.length > 1 ? `(${text})` : text;
}

/**
 * Collects the declarations of one generated file, in the order they are first needed (a
 * parent before its children), with names unique in the file.
 */
export class SchemaTypeEmitter {
  readonly #taken: Set<string>;
  readonly #declarations: string[] = [];

  /** An emitter whose names avoid `taken` (imports, kinds and list kinds of the file). */
  constructor(taken: Iterable<string>) {
    this.#taken = new Set(taken);
  }

  /** The declarations emitted so far, each ending with a newline. */
  get declarations(): readonly string[] {
    return this.#declarations;
  }

  /** `wanted`, or `wanted2`, `wanted3`, ... whichever is free in the file; now taken. */
  allocate(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.#taken.has(name); n++) name = `${wanted}${n}`;
    this.#taken.add(name);
    return name;
  }

  /** Declares an interface for an object schema; returns its name. */
  declareObject(declaration: ObjectDeclaration): string {
    const name =
      declaration.nameReserved === true ? declaration.name : this.allocate(declaration.name);
    const slot = this.#declarations.push("") - 1;
    const { schema } = declaration;
    const fixed = declaration.fixed ?? [];
    const fixedKeys = new Set(fixed.map((member) => member.key));
    const required = new Set(schema.required ?? []);
    const members = fixed.map((member) => this.#member(member.key, [member.type], member.optional));
    for (const [key, property] of Object.entries(schema.properties ?? {}).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )) {
      if (fixedKeys.has(key)) continue;
      const type = this.typeOf(property, `${name}${upperCamelCase(key)}`);
      const doc = docComment(schemaDocLines(property), "  ");
      members.push(doc + this.#member(key, type, !required.has(key)));
    }
    if (hasExtension(schema, "x-kubernetes-preserve-unknown-fields")) {
      members.push("  [key: string]: unknown;\n");
    }
    let doc = schemaDocLines(schema);
    if (doc.length === 0) doc = [...(declaration.fallbackDoc ?? [])];
    if (declaration.extraDoc !== undefined && declaration.extraDoc.length > 0) {
      doc = doc.length > 0 ? [...doc, "", ...declaration.extraDoc] : [...declaration.extraDoc];
    }
    const heritage = declaration.extends !== undefined ? ` extends ${declaration.extends}` : "";
    const body = members.length === 0 ? "{}" : `{\n${members.join("")}}`;
    this.#declarations[slot] =
      `${docComment(doc, "")}export interface ${name}${heritage} ${body}\n`;
    return name;
  }

  /** One member line (or a broken union, as prettier breaks one past the width). */
  #member(key: string, type: TypeAlternatives, optional: boolean): string {
    const head = `  ${propertyKey(key)}${optional ? "?" : ""}:`;
    const line = `${head} ${unionText(type, false)};`;
    if (line.length <= WIDTH || type.length === 1) return `${line}\n`;
    return `${head}\n${type.map((alternative) => `    | ${alternative}`).join("\n")};\n`;
  }

  /**
   * The type of a value of `schema`, declaring the interfaces it needs; `name` names the
   * interface of an object with properties.
   */
  typeOf(schema: JSONSchemaProps, name: string): TypeAlternatives {
    const base = this.#baseType(schema, name);
    return schema.nullable === true && !base.includes("null") && !base.includes("unknown")
      ? [...base, "null"]
      : base;
  }

  #baseType(schema: JSONSchemaProps, name: string): TypeAlternatives {
    if (hasExtension(schema, "x-kubernetes-int-or-string")) return ["number", "string"];
    if (hasExtension(schema, "x-kubernetes-embedded-resource")) {
      return [
        this.declareObject({
          name,
          schema,
          extends: "ObjectWithMetadata",
          fixed: EMBEDDED_MEMBERS,
          fallbackDoc: ["An embedded Kubernetes object."],
        }),
      ];
    }
    const literals = (schema.enum ?? []).map(literalType);
    if (literals.length > 0 && literals.every((literal) => literal !== undefined)) {
      return [...new Set(literals as string[])];
    }
    switch (schema.type) {
      case "string":
        return ["string"];
      case "integer":
      case "number":
        return ["number"];
      case "boolean":
        return ["boolean"];
      case "array":
        return [this.#arrayType(schema, name)];
      case "object":
        return [this.#objectType(schema, name)];
      default:
        return ["unknown"];
    }
  }

  #arrayType(schema: JSONSchemaProps, name: string): string {
    const items = schema.items;
    // `items` may be a list of schemas in JSONSchemaProps; structural schemas allow one schema.
    if (items === undefined || Array.isArray(items)) return "unknown[]";
    return `${unionText(this.typeOf(items as JSONSchemaProps, name), true)}[]`;
  }

  #objectType(schema: JSONSchemaProps, name: string): string {
    if (Object.keys(schema.properties ?? {}).length > 0) {
      return this.declareObject({ name, schema });
    }
    const additional = schema.additionalProperties;
    if (additional !== undefined && additional !== null && typeof additional === "object") {
      return `Record<string, ${unionText(this.typeOf(additional as JSONSchemaProps, name), false)}>`;
    }
    if (additional === true || hasExtension(schema, "x-kubernetes-preserve-unknown-fields")) {
      return "{ [key: string]: unknown }";
    }
    // Without properties every field is pruned: the only value kept is the empty object.
    return "Record<string, never>";
  }
}
