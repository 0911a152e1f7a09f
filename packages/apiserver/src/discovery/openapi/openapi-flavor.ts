import type { JsonObject } from "kubekit";

/**
 * The two OpenAPI dialects kube-apiserver publishes: Swagger 2.0 (`/openapi/v2`, definitions
 * under `#/definitions/`) and OpenAPI 3.0 (`/openapi/v3/...`, schemas under
 * `#/components/schemas/`).
 */
export type OpenApiFlavor = "v2" | "v3";

/** A GroupVersionKind as the `x-kubernetes-group-version-kind` extension lists it. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `#/definitions/<name>` (v2) or `#/components/schemas/<name>` (v3). */
export function definitionRef(name: string, flavor: OpenApiFlavor): string {
  return flavor === "v2" ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/** A schema that is only a reference to the named definition. */
export function refSchema(name: string, flavor: OpenApiFlavor): JsonObject {
  return { $ref: definitionRef(name, flavor) };
}

/**
 * The `x-kubernetes-group-version-kind` value: a list of `{group, kind, version}` objects, the
 * form kubectl compares (`kubectl explain` matches it with an operation's single GVK by deep
 * equality, so no other keys may appear).
 */
export function gvkExtension(gvks: readonly GroupVersionKind[]): JsonObject[] {
  return gvks.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
}

/** The `apiVersion` and `kind` properties of TypeMeta, which every kind's definition has. */
export function typeMetaProperties(): JsonObject {
  return {
    apiVersion: {
      description: "The group and version of the schema this object is written in, e.g. apps/v1.",
      type: "string",
    },
    kind: {
      description: "The kind of this object, in CamelCase, e.g. Deployment.",
      type: "string",
    },
  };
}

/** The definition name of meta/v1 ObjectMeta, which every kind's `metadata` references. */
export const OBJECT_META_DEFINITION = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/** The definition name of meta/v1 ListMeta, which every list's `metadata` references. */
export const LIST_META_DEFINITION = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
