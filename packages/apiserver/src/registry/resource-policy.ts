import type { JsonObject } from "kubekit";

/**
 * Per-type switches of kube-apiserver's generic registry store that the embedded server
 * reproduces (`staging/src/k8s.io/apiserver/pkg/registry/rest/{create,update,delete}.go` and
 * each kind's `pkg/registry/<group>/<resource>/strategy.go`). A kind sets the ones that differ
 * from {@link GENERIC_POLICY} in its strategy (`kinds/*.ts`).
 */
export interface ResourcePolicy {
  /** `metadata.generation` is 1 on create and bumps when anything outside metadata/status changes. */
  readonly tracksGeneration: boolean;
  /** PUT on a missing object creates it (Lease, Endpoints, core Event). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without `metadata.resourceVersion` is an unconditional update (false: 422). */
  readonly allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object rather than a Success Status. */
  readonly deleteReturnsObject: boolean;
  /** The name rule applied to `metadata.name`. */
  readonly nameRule: "subdomain" | "label" | "dns1035" | "path-segment";
  /** Field selector fields beyond metadata.name/namespace, with how to read them from an object. */
  readonly selectableFields: Readonly<Record<string, (obj: JsonObject) => string>>;
}

/** The generic store's defaults, for every kind that does not say otherwise. */
export const GENERIC_POLICY: ResourcePolicy = {
  tracksGeneration: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  deleteReturnsObject: false,
  nameRule: "subdomain",
  selectableFields: {},
};

function str(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : String(v);
}

/** The value at a dotted path of an object (undefined when a step is missing). */
export function valueAt(obj: JsonObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Selectable fields read at their own dotted paths, printed as kube's field sets print them. */
export function selectableFields(...paths: string[]): Record<string, (obj: JsonObject) => string> {
  return Object.fromEntries(paths.map((p) => [p, (o: JsonObject) => str(valueAt(o, p))]));
}
