import type { JsonObject } from "kubekit";
import { isJsonObject, messageNameForKind } from "kubekit/apimachinery";
import {
  customResourceDefinitions,
  CUSTOM_RESOURCE_REFERENCED_DEFINITIONS,
} from "../../apiextensions/openapi/custom-resource-definitions.js";
import type { ServedResource } from "../../registry/served-resource.js";
import { builtinDefinitions, type BuiltinKind } from "./builtin-definitions.js";
import {
  gvkExtension,
  LIST_META_DEFINITION,
  OBJECT_META_DEFINITION,
  refSchema,
  typeMetaProperties,
  type GroupVersionKind,
  type OpenApiFlavor,
} from "./openapi-flavor.js";

/**
 * The definitions an OpenAPI document publishes for a set of served resources: for a
 * built-in resource its kind, its list kind (when it can be listed) and its subresources' kinds (Scale, Eviction,
 * Binding, TokenRequest, ...) from the field tables, with everything they reference; for a
 * custom resource the kind and list of its version's schema. Kinds the field tables do not
 * describe (apiextensions.k8s.io's CustomResourceDefinition) are published as objects with
 * `apiVersion`, `kind` and `metadata` that preserve unknown fields.
 */
export function definitionsForResources(
  resources: readonly ServedResource[],
  flavor: OpenApiFlavor,
): Map<string, JsonObject> {
  const builtinKinds: BuiltinKind[] = [];
  const untyped: { gvk: GroupVersionKind; list: boolean }[] = [];
  const custom = new Map<string, JsonObject>();
  const addKind = (gvk: GroupVersionKind, list = false): void => {
    const messageName = messageNameForKind(gvk.group, gvk.version, gvk.kind);
    if (messageName) builtinKinds.push({ messageName, gvk });
    else untyped.push({ gvk, list });
  };
  for (const r of resources) {
    if (r.custom) {
      const schema = r.custom.schema;
      const input = {
        group: r.group,
        version: r.version,
        kind: r.kind,
        listKind: r.listKind,
        schema: isJsonObject(schema) ? schema : undefined,
        selectableFields: r.custom.compiled.selectableFields.map((f) => f.name),
      };
      for (const [name, def] of customResourceDefinitions(input, flavor)) custom.set(name, def);
      continue;
    }
    addKind({ group: r.group, version: r.version, kind: r.kind });
    if (r.verbs.includes("list")) {
      addKind({ group: r.group, version: r.version, kind: r.listKind }, true);
    }
    for (const sub of r.subresources) {
      if (sub.kind !== r.kind) addKind({ group: sub.group, version: sub.version, kind: sub.kind });
    }
  }
  const metaMessages = CUSTOM_RESOURCE_REFERENCED_DEFINITIONS.map(
    (name) => `k8s.io.${name.slice("io.k8s.".length)}`,
  );
  const out = builtinDefinitions(builtinKinds, flavor, metaMessages);
  for (const { gvk, list } of untyped) {
    out.set(untypedDefinitionName(gvk), untypedKindDefinition(gvk, list, flavor));
  }
  for (const [name, def] of custom) out.set(name, def);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Where kube's Go packages of the built-in groups the field tables lack live. */
const UNTYPED_PACKAGES: Readonly<Record<string, string>> = {
  "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
  "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
};

function untypedDefinitionName(gvk: GroupVersionKind): string {
  const pkg =
    UNTYPED_PACKAGES[gvk.group] ??
    `io.k8s.api.${gvk.group === "" ? "core" : (gvk.group.split(".")[0] ?? gvk.group)}`;
  return `${pkg}.${gvk.version}.${gvk.kind}`;
}

function untypedKindDefinition(
  gvk: GroupVersionKind,
  list: boolean,
  flavor: OpenApiFlavor,
): JsonObject {
  const meta = list ? LIST_META_DEFINITION : OBJECT_META_DEFINITION;
  return {
    type: "object",
    properties: { ...typeMetaProperties(), metadata: refSchema(meta, flavor) },
    "x-kubernetes-preserve-unknown-fields": true,
    "x-kubernetes-group-version-kind": gvkExtension([gvk]),
  };
}
