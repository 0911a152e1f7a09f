/**
 * Opaque CEL values of the Kubernetes libraries (`kubernetes.Quantity`, `kubernetes.URL`,
 * `net.IP`, `net.CIDR`, `kubernetes.NamedFormat`) and `optional_type`. `@bufbuild/cel` types
 * every non-primitive value by its protobuf message type, so each opaque type is a one-field
 * message (`value`: a canonical text used by `==`) declared at runtime; the parsed payload rides
 * alongside in a WeakMap keyed by the message, so methods never re-parse.
 */
import { create, createFileRegistry, type DescMessage, type Registry } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { isReflectMessage } from "@bufbuild/protobuf/reflect";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { objectType, type CelObjectType, type CelValue } from "@bufbuild/cel";
import { type DeclType, opaqueDecl } from "./decl-type.js";

const TYPE_FILES: readonly { readonly pkg: string; readonly names: readonly string[] }[] = [
  { pkg: "kubernetes", names: ["Quantity", "URL", "NamedFormat"] },
  { pkg: "net", names: ["IP", "CIDR"] },
  {
    pkg: "kubernetes.authorization",
    names: ["Authorizer", "PathCheck", "GroupCheck", "ResourceCheck", "Decision"],
  },
  { pkg: "", names: ["optional_type"] },
];

function buildRegistry(): Registry {
  const files = TYPE_FILES.map(({ pkg, names }) =>
    create(FileDescriptorProtoSchema, {
      name: `kubekit/cel/${pkg || "optional"}.proto`,
      package: pkg,
      syntax: "proto3",
      messageType: names.map((name) => ({
        name,
        field: [
          {
            name: "value",
            number: 1,
            jsonName: "value",
            type: FieldDescriptorProto_Type.STRING,
            label: FieldDescriptorProto_Label.OPTIONAL,
          },
        ],
      })),
    }),
  );
  const registries = files.map((f) => createFileRegistry(f, () => undefined));
  return createFileRegistry(...registries);
}

/** The protobuf registry holding the opaque types; pass it to `celEnv({ registry })`. */
export const opaqueRegistry: Registry = buildRegistry();

/** One opaque CEL type whose values carry a payload `P`. */
export class OpaqueType<P> {
  readonly #desc: DescMessage;
  readonly #payloads = new WeakMap<object, P>();
  /** The type as `@bufbuild/cel` function signatures take it. */
  readonly celType: CelObjectType;
  /** The type as the checker sees it. */
  readonly decl: DeclType;

  constructor(typeName: string) {
    const desc = opaqueRegistry.getMessage(typeName);
    if (!desc) throw new Error(`opaque CEL type ${typeName} is not registered`);
    this.#desc = desc;
    this.celType = objectType(desc);
    this.decl = opaqueDecl(typeName);
  }

  /** A CEL value of this type carrying `payload`; `canonical` decides `==` between values. */
  wrap(payload: P, canonical: string): ReflectMessage {
    const message = create(this.#desc, { value: canonical } as never);
    this.#payloads.set(message, payload);
    return reflect(this.#desc, message);
  }

  /** The payload of `v`, or `undefined` when `v` is not a value of this type. */
  unwrap(v: CelValue | undefined): P | undefined {
    if (!isReflectMessage(v, this.#desc)) return undefined;
    return this.#payloads.get(v.message);
  }

  /** The payload of `v`; throws when `v` is not a value of this type (a CEL evaluation error). */
  payload(v: CelValue): P {
    const p = this.unwrap(v);
    if (p === undefined) throw new Error(`no such overload: ${this.decl.name}`);
    return p;
  }
}
