import { builtinResources, type JsonObject } from "kubekit";
import { CustomResourceSchema } from "../../../packages/apiserver/src/apiextensions/custom-resource-schema.js";
import type { JSONSchemaProps } from "../../../packages/apiserver/src/apiextensions/schema-props.js";
import type {
  PrinterColumn,
  ServedGroup,
  ServedResource,
} from "../../../packages/apiserver/src/registry/served-resource.js";

/** The built-in resources of one group version, as the server serves them. */
export function builtinVersion(group: string, version: string): ServedResource[] {
  return builtinResources.filter((r) => r.group === group && r.version === version);
}

/** One built-in resource; throws when the table has no such row. */
export function builtin(group: string, version: string, plural: string): ServedResource {
  const r = builtinResources.find(
    (x) => x.group === group && x.version === version && x.plural === plural,
  );
  if (!r) throw new Error(`no built-in ${group}/${version}/${plural}`);
  return r;
}

/** A namespaced `widgets.example.com` custom resource with status and scale subresources. */
export function widgetResource(
  version = "v1",
  printerColumns: readonly PrinterColumn[] = [],
  schema?: JSONSchemaProps,
): ServedResource {
  const compiled = CustomResourceSchema.compile({
    name: version,
    ...(schema === undefined ? {} : { schema: { openAPIV3Schema: schema as JsonObject } }),
  });
  return {
    group: "example.com",
    version,
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
    shortNames: ["wd"],
    categories: [],
    subresources: [
      {
        name: "scale",
        verbs: ["get", "patch", "update"],
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
      },
      {
        name: "status",
        verbs: ["get", "patch", "update"],
        group: "example.com",
        version,
        kind: "Widget",
      },
    ],
    custom: {
      crdName: "widgets.example.com",
      printerColumns,
      hasStatus: true,
      terminating: false,
      ...(schema === undefined ? {} : { schema }),
      compiled,
      versions: {
        storageVersion: version,
        schemaOf: (v) => (v === version ? compiled : undefined),
      },
      warnings: [],
    },
  };
}

/** The core group (v1) and apps (v1) from the built-in table, plus example.com (v1, v1beta1). */
export function servedGroups(): ServedGroup[] {
  return [
    { name: "", versions: [{ version: "v1", resources: builtinVersion("", "v1") }] },
    { name: "apps", versions: [{ version: "v1", resources: builtinVersion("apps", "v1") }] },
    {
      name: "example.com",
      versions: [
        { version: "v1", resources: [widgetResource("v1")] },
        { version: "v1beta1", resources: [widgetResource("v1beta1")] },
      ],
    },
  ];
}
