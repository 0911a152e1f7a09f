/**
 * Generates `packages/kubekit/src/client/generated/typed-clientset.ts`: one typed client class per group
 * version of the built-in resource table, with one accessor per resource typed with the
 * `kubernetes-types` object and list types and limited to the verbs the resource serves.
 *
 *     npm run generate                                 # rewrite it and the other generated file
 *     node --import tsx tools/generate-clientset.ts          # rewrite this file only
 *
 * A unit test (test/unit/client/typed-clientset-generated.test.ts) fails when the committed
 * file differs from what this produces, so rerun it after changing the resource table or
 * upgrading kubernetes-types.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { formatGenerated, writeGeneratedIfMain } from "./generated-file.js";
import type { ResourceInfo } from "../packages/kubekit/src/core/resource-table.js";
import { builtinResources } from "../packages/kubekit/src/core/resource-table.js";

/** Where the generated file is written, relative to the repository root. */
export const GENERATED_PATH = "packages/kubekit/src/client/generated/typed-clientset.ts";

/** The client methods each discovery verb of a resource makes available. */
const METHODS_OF_VERB: Readonly<Record<string, readonly string[]>> = {
  get: ["get"],
  list: ["list", "listAll", "listPages"],
  watch: ["watch"],
  create: ["create"],
  update: ["update"],
  patch: ["patch", "apply"],
  delete: ["delete"],
  deletecollection: ["deleteCollection"],
};

/** The methods of a subresource verb: `status/update` → `updateStatus`, ... */
const METHODS_OF_SUBRESOURCE_VERB: Readonly<Record<string, readonly string[]>> = {
  "status/update": ["updateStatus"],
  "scale/get": ["getScale"],
  "scale/update": ["updateScale"],
  "scale/patch": ["patchScale"],
};

/** The properties every resource client type keeps, whatever verbs it serves. */
const COMMON_PROPERTIES: readonly string[] = ["restClient", "target"];

/** The methods an all-namespaces client keeps. */
const COLLECTION_METHODS: ReadonlySet<string> = new Set([
  "list",
  "listAll",
  "listPages",
  "watch",
  "deleteCollection",
]);

/** Resources with a client class of their own, and the subresource methods it adds. */
const SPECIAL_CLIENTS: Readonly<
  Record<
    string,
    {
      readonly className: string;
      readonly module: string;
      readonly methods: Readonly<Record<string, readonly string[]>>;
    }
  >
> = {
  "/pods": {
    className: "PodResourceClient",
    module: "../pod-client.js",
    methods: {
      "attach/get": ["attach"],
      "binding/create": ["bind"],
      "eviction/create": ["evict"],
      "exec/get": ["copyFromPod", "copyToPod", "exec"],
      "log/get": ["log"],
      "portforward/get": ["portForward"],
    },
  },
  "/serviceaccounts": {
    className: "ServiceAccountResourceClient",
    module: "../service-account-client.js",
    methods: { "token/create": ["createToken"] },
  },
};

/** `ServiceCIDR` → `serviceCIDR`, `APIService` → `apiService`, `Pod` → `pod`. */
function lowerInitial(kind: string): string {
  const run = /^[A-Z]+/.exec(kind)?.[0] ?? "";
  if (run.length <= 1) return kind.charAt(0).toLowerCase() + kind.slice(1);
  if (run.length === kind.length) return kind.toLowerCase();
  return run.slice(0, -1).toLowerCase() + kind.slice(run.length - 1);
}

/**
 * The accessor of a resource: the camel-case kind, pluralized as the resource's plural
 * (`ConfigMap` + `configmaps` → `configMaps`, `NetworkPolicy` + `networkpolicies` →
 * `networkPolicies`, `Endpoints` → `endpoints`).
 */
export function resourceAccessorName(kind: string, plural: string): string {
  const camel = lowerInitial(kind);
  let common = 0;
  while (
    common < camel.length &&
    common < plural.length &&
    camel[common]?.toLowerCase() === plural[common]
  ) {
    common++;
  }
  return camel.slice(0, common) + plural.slice(common);
}

/** The accessor of a group version: first DNS label of the group (`core` for "") + version. */
export function groupAccessorName(group: string, version: string): string {
  const label = group === "" ? "core" : (group.split(".")[0] ?? group);
  const camelLabel = label.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return camelLabel + version.charAt(0).toUpperCase() + version.slice(1);
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The folder of a group in kubernetes-types (`rbac` for rbac.authorization.k8s.io). */
export function typesFolder(group: string): string {
  return group === "" ? "core" : (group.split(".")[0] ?? group);
}

/** The interfaces `kubernetes-types/<folder>/<version>.d.ts` exports (empty when absent). */
export function exportedTypes(group: string, version: string): ReadonlySet<string> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("kubernetes-types/package.json"));
  let text: string;
  try {
    text = readFileSync(join(root, typesFolder(group), `${version}.d.ts`), "utf8");
  } catch {
    return new Set();
  }
  return new Set([...text.matchAll(/^export interface (\w+)\b/gm)].map((m) => m[1] ?? ""));
}

export interface GroupVersionPlan {
  readonly group: string;
  readonly version: string;
  readonly accessor: string;
  readonly resources: ResourceInfo[];
}

/**
 * The group versions of the resource table holding at least one resource that `include`
 * accepts, each with its accessor name and those resources, sorted by accessor.
 */
export function groupVersionPlans(
  include: (info: ResourceInfo) => boolean = () => true,
): GroupVersionPlan[] {
  const plans: GroupVersionPlan[] = [];
  for (const info of builtinResources) {
    if (!include(info)) continue;
    let plan = plans.find((p) => p.group === info.group && p.version === info.version);
    if (plan === undefined) {
      plan = {
        group: info.group,
        version: info.version,
        accessor: groupAccessorName(info.group, info.version),
        resources: [],
      };
      plans.push(plan);
    }
    plan.resources.push(info);
  }
  const accessors = new Set<string>();
  for (const plan of plans) {
    if (accessors.has(plan.accessor)) throw new Error(`duplicate group accessor ${plan.accessor}`);
    accessors.add(plan.accessor);
  }
  return plans.sort((a, b) => (a.accessor < b.accessor ? -1 : a.accessor > b.accessor ? 1 : 0));
}

/** The client methods a resource serves, sorted. */
function methodsOf(info: ResourceInfo): string[] {
  const methods = new Set<string>();
  for (const verb of info.verbs) for (const m of METHODS_OF_VERB[verb] ?? []) methods.add(m);
  const special = SPECIAL_CLIENTS[`${info.group}/${info.plural}`];
  for (const sub of info.subresources) {
    for (const verb of sub.verbs) {
      const key = `${sub.name}/${verb}`;
      for (const m of METHODS_OF_SUBRESOURCE_VERB[key] ?? []) methods.add(m);
      for (const m of special?.methods[key] ?? []) methods.add(m);
    }
  }
  return [...methods].sort();
}

/** The union of the picked members: the common properties, then the methods. */
function union(methods: readonly string[]): string {
  return [...COMMON_PROPERTIES, ...methods].map((m) => JSON.stringify(m)).join(" | ");
}

function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** The TypeScript source of the typed clientset, before formatting. */
function source(): string {
  const plans = groupVersionPlans();
  const usedTypeModules = new Set<string>();
  const usedSpecialClients = new Set<string>();
  let usesResourceClient = false;
  let usesGenericObjects = false;
  const untyped: string[] = [];
  const aliases: string[] = [];
  const classes: string[] = [];

  for (const plan of plans) {
    const types = exportedTypes(plan.group, plan.version);
    const gv = apiVersionOf(plan.group, plan.version);
    const groupLabel = plan.group === "" ? "core" : plan.group;
    const className = `${pascal(plan.accessor)}Client`;
    const members: string[] = [];
    const accessors = new Set<string>();
    for (const info of plan.resources) {
      const accessor = resourceAccessorName(info.kind, info.plural);
      if (accessors.has(accessor))
        throw new Error(`duplicate accessor ${plan.accessor}.${accessor}`);
      accessors.add(accessor);
      const hasList = info.verbs.includes("list");
      let objectType: string;
      let typeArgs: string;
      if (types.has(info.kind)) {
        usedTypeModules.add(`${plan.accessor}|${typesFolder(plan.group)}/${plan.version}`);
        objectType = `${plan.accessor}.${info.kind}`;
        typeArgs =
          hasList && types.has(info.listKind)
            ? `${objectType}, ${plan.accessor}.${info.listKind}`
            : objectType;
      } else {
        usesGenericObjects = true;
        untyped.push(`${gv} ${info.kind}`);
        objectType = "KubeObject";
        typeArgs = "KubeObject, KubeObjectList";
      }
      const special = SPECIAL_CLIENTS[`${info.group}/${info.plural}`];
      const runtimeType = special ? special.className : `ResourceClient<${typeArgs}>`;
      if (special) usedSpecialClients.add(`${special.className}|${special.module}`);
      else usesResourceClient = true;
      const methods = methodsOf(info);
      const collectionMethods = info.namespaced
        ? methods.filter((m) => COLLECTION_METHODS.has(m))
        : [];
      const aliasBase = `${pascal(plan.accessor)}${pascal(accessor)}`;
      const clientAlias = `${aliasBase}Client`;
      const allAlias = `${aliasBase}AllNamespacesClient`;
      const description = `\`${info.plural}\` (${groupLabel}/${plan.version} ${info.kind})`;
      const typing =
        objectType === "KubeObject"
          ? ` Objects are typed as \`KubeObject\`: the installed kubernetes-types has no ${gv} ${info.kind}.`
          : "";
      aliases.push(
        ``,
        `/** The verbs of ${description}${info.namespaced ? " in one namespace" : ""}.${typing} */`,
        `export type ${clientAlias} = Pick<${runtimeType}, ${union(methods)}>;`,
      );
      if (collectionMethods.length > 0) {
        aliases.push(
          `/** The verbs of ${description} across all namespaces. */`,
          `export type ${allAlias} = Pick<${runtimeType}, ${union(collectionMethods)}>;`,
        );
      }
      const target = (namespace: string): string =>
        `{ group: ${JSON.stringify(info.group)}, version: ${JSON.stringify(info.version)}, resource: ${JSON.stringify(info.plural)}, namespace${namespace}, kind: ${JSON.stringify(info.kind)} }`;
      const construct = special
        ? `new ${special.className}(this.#restClient, `
        : `new ResourceClient<${typeArgs}>(this.#restClient, `;
      if (!info.namespaced) {
        members.push(
          `/** The client of ${description}, cluster-scoped.${typing} */`,
          `${accessor}(): ${clientAlias} {`,
          `return ${construct}${target(': ""')});`,
          `}`,
          ``,
        );
      } else if (collectionMethods.length > 0) {
        members.push(
          `/**`,
          ` * The client of ${description} in \`namespace\`; without one (or with \`""\`), the`,
          ` * collection verbs across all namespaces.${typing}`,
          ` */`,
          `${accessor}(namespace: string): ${clientAlias};`,
          `${accessor}(): ${allAlias};`,
          `${accessor}(namespace = ""): ${runtimeType} {`,
          `return ${construct}${target("")});`,
          `}`,
          ``,
        );
      } else {
        members.push(
          `/** The client of ${description} in \`namespace\`.${typing} */`,
          `${accessor}(namespace: string): ${clientAlias} {`,
          `return ${construct}${target("")});`,
          `}`,
          ``,
        );
      }
    }
    classes.push(
      `/** The clients of the ${groupLabel}/${plan.version} resources (\`clientset.${plan.accessor}\`). */`,
      `export class ${className} {`,
      `readonly #restClient: RESTClient;`,
      ``,
      `constructor(restClient: RESTClient) {`,
      `this.#restClient = restClient;`,
      `}`,
      ``,
      ...members,
      `}`,
      ``,
    );
  }

  const imports: string[] = [];
  for (const entry of [...usedTypeModules].sort()) {
    const [name, path] = entry.split("|");
    imports.push(`import type * as ${name} from "kubernetes-types/${path}.js";`);
  }
  imports.push(`import type { RESTClient } from "../../rest/rest-client.js";`);
  if (usesGenericObjects) {
    imports.push(`import type { KubeObject, KubeObjectList } from "../kube-object.js";`);
  }
  const valueImports = [...usedSpecialClients].map((entry) => {
    const [name, path] = entry.split("|");
    return { name: name ?? "", path: path ?? "" };
  });
  if (usesResourceClient) {
    valueImports.push({ name: "ResourceClient", path: "../resource-client.js" });
  }
  for (const { name, path } of valueImports.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    imports.push(`import { ${name} } from "${path}";`);
  }

  const clientset = [
    `/**`,
    ` * One typed client per built-in group version, all sending through one RESTClient (one`,
    ` * transport, one client-side rate limiter). \`Clientset\` is this class built from a`,
    ` * RestConfig or a shared RESTClient.`,
    ` */`,
    `export class TypedClientset {`,
    `/** The RESTClient every group client sends through. */`,
    `readonly restClient: RESTClient;`,
    ...plans.flatMap((plan) => [
      `/** The ${plan.group === "" ? "core" : plan.group}/${plan.version} clients. */`,
      `readonly ${plan.accessor}: ${pascal(plan.accessor)}Client;`,
    ]),
    ``,
    `constructor(restClient: RESTClient) {`,
    `this.restClient = restClient;`,
    ...plans.map(
      (plan) => `this.${plan.accessor} = new ${pascal(plan.accessor)}Client(restClient);`,
    ),
    `}`,
    `}`,
  ];

  return [
    `// Code generated by tools/generate-clientset.ts from src/core/resource-table.ts. DO NOT EDIT.`,
    `/**`,
    ` * The typed clients of every built-in resource, grouped by group version: object and list`,
    ` * types from kubernetes-types, and per resource only the verbs it serves.`,
    ...(untyped.length > 0
      ? [
          ` *`,
          ` * Typed as \`KubeObject\` because the installed kubernetes-types lacks them:`,
          ...untyped.map((name) => ` * - ${name}`),
        ]
      : []),
    ` */`,
    ...imports,
    ``,
    ...aliases,
    ``,
    ...classes,
    ...clientset,
    ``,
  ].join("\n");
}

/** The generated file's content, formatted with the repository's prettier settings. */
export async function generateTypedClientset(): Promise<string> {
  return formatGenerated(GENERATED_PATH, source());
}

await writeGeneratedIfMain(import.meta.url, GENERATED_PATH, generateTypedClientset);
