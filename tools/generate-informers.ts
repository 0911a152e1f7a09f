/**
 * Generates `packages/kubekit/src/informers/generated/typed-informers.ts`: the typed informer accessors of
 * the SharedInformerFactory, one class per group version of the built-in resource table
 * with one accessor per resource that serves both `list` and `watch`, and one typed lister
 * per such resource (with a namespace accessor named after the resource when it is
 * namespaced). Object types come from `kubernetes-types`; accessor names are the
 * clientset's (tools/generate-clientset.ts).
 *
 *     npm run generate                                 # rewrite it and the other generated file
 *     node --import tsx tools/generate-informers.ts          # rewrite this file only
 *
 * A unit test (test/unit/informers/typed-informers-generated.test.ts) fails when the
 * committed file differs from what this produces, so rerun it after changing the resource
 * table or upgrading kubernetes-types.
 */
import { formatGenerated, writeGeneratedIfMain } from "./generated-file.js";
import type { ResourceInfo } from "../packages/kubekit/src/core/resource-table.js";
import {
  exportedTypes,
  groupVersionPlans,
  groupAccessorName,
  resourceAccessorName,
  typesFolder,
} from "./generate-clientset.js";

/** Where the generated file is written, relative to the repository root. */
export const GENERATED_PATH = "packages/kubekit/src/informers/generated/typed-informers.ts";

/** Members of the typed listers that a generated namespace accessor must not shadow. */
const LISTER_MEMBERS: ReadonlySet<string> = new Set(["list", "namespace", "get", "constructor"]);

/** Whether an informer can be built for the resource: it serves list and watch. */
export function isInformable(info: ResourceInfo): boolean {
  return info.verbs.includes("list") && info.verbs.includes("watch");
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The typed lister of a resource: group version accessor + kind (`CoreV1PodLister`). */
export function listerClassName(group: string, version: string, kind: string): string {
  return `${pascal(groupAccessorName(group, version))}${kind}Lister`;
}

/** The TypeScript source of the typed informers, before formatting. */
function source(): string {
  const plans = groupVersionPlans(isInformable);
  const usedTypeModules = new Set<string>();
  let usesKubeObject = false;
  let usesNamespaced = false;
  let usesCluster = false;
  const untyped: string[] = [];
  const listers: string[] = [];
  const classes: string[] = [];
  const listerNames = new Set<string>();

  for (const plan of plans) {
    const types = exportedTypes(plan.group, plan.version);
    const groupLabel = plan.group === "" ? "core" : plan.group;
    const className = `${pascal(plan.accessor)}Informers`;
    const members: string[] = [];
    const accessors = new Set<string>();
    for (const info of plan.resources) {
      const accessor = resourceAccessorName(info.kind, info.plural);
      if (accessors.has(accessor)) {
        throw new Error(`duplicate accessor ${plan.accessor}.${accessor}`);
      }
      accessors.add(accessor);
      let objectType: string;
      if (types.has(info.kind)) {
        usedTypeModules.add(`${plan.accessor}|${typesFolder(plan.group)}/${plan.version}`);
        objectType = `${plan.accessor}.${info.kind}`;
      } else {
        usesKubeObject = true;
        untyped.push(`${groupLabel}/${plan.version} ${info.kind}`);
        objectType = "KubeObject";
      }
      const listerName = listerClassName(plan.group, plan.version, info.kind);
      if (listerNames.has(listerName)) throw new Error(`duplicate lister ${listerName}`);
      listerNames.add(listerName);
      const description = `\`${info.plural}\` (${groupLabel}/${plan.version} ${info.kind})`;
      const typing =
        objectType === "KubeObject"
          ? ` Objects are typed as \`KubeObject\`: the installed kubernetes-types has no ${groupLabel}/${plan.version} ${info.kind}.`
          : "";
      if (info.namespaced) {
        if (LISTER_MEMBERS.has(accessor)) {
          throw new Error(`namespace accessor ${listerName}.${accessor} shadows a lister member`);
        }
        usesNamespaced = true;
        listers.push(
          `/** The lister of ${description}: \`list(selector)\` across namespaces, \`${accessor}(namespace)\`.${typing} */`,
          `export class ${listerName} extends NamespacedResourceLister<${objectType}> {`,
          `/** The cached ${info.plural} in \`namespace\`: \`list(selector)\`, \`get(name)\`. Same as \`namespace(namespace)\`. */`,
          `${accessor}(namespace: string): NamespaceLister<${objectType}> {`,
          `return this.namespace(namespace);`,
          `}`,
          `}`,
          ``,
        );
      } else {
        usesCluster = true;
        listers.push(
          `/** The lister of ${description}, cluster-scoped: \`list(selector)\`, \`get(name)\`.${typing} */`,
          `export type ${listerName} = ClusterResourceLister<${objectType}>;`,
          ``,
        );
      }
      const target = `{ group: ${JSON.stringify(info.group)}, version: ${JSON.stringify(info.version)}, resource: ${JSON.stringify(info.plural)}, namespaced: ${String(info.namespaced)} }`;
      const groupResource = `{ group: ${JSON.stringify(info.group)}, resource: ${JSON.stringify(info.plural)} }`;
      const listerClass = info.namespaced ? listerName : `ClusterResourceLister<${objectType}>`;
      members.push(
        `/**`,
        ` * The shared informer of ${description}${info.namespaced ? " in the factory's namespace" : ", cluster-wide"}, and its`,
        ` * lister. Created on the first call, the same informer afterwards (also from`,
        ` * \`forResource\`); started by the factory's next \`start()\`.${typing}`,
        ` */`,
        `${accessor}(): ResourceInformer<${objectType}, ${listerName}> {`,
        `const informer = this.#source.informerFor<${objectType}>(${target});`,
        `return { informer, lister: new ${listerClass}(informer.indexer, ${groupResource}) };`,
        `}`,
        ``,
      );
    }
    classes.push(
      `/** The informers of the ${groupLabel}/${plan.version} resources (\`factory.${plan.accessor}\`). */`,
      `export class ${className} {`,
      `readonly #source: InformerSource<ObjectWithMetadata>;`,
      ``,
      `constructor(source: InformerSource<ObjectWithMetadata>) {`,
      `this.#source = source;`,
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
  if (usesNamespaced) imports.push(`import type { NamespaceLister } from "../../cache/lister.js";`);
  imports.push(
    `import type { ${usesKubeObject ? "KubeObject, " : ""}ObjectWithMetadata } from "../../client/kube-object.js";`,
  );
  imports.push(
    `import type { InformerFactorySettings, InformerSource } from "../base-informer-factory.js";`,
  );
  imports.push(`import { BaseInformerFactory } from "../base-informer-factory.js";`);
  if (usesCluster)
    imports.push(`import { ClusterResourceLister } from "../cluster-resource-lister.js";`);
  if (usesNamespaced) {
    imports.push(`import { NamespacedResourceLister } from "../namespaced-resource-lister.js";`);
  }
  imports.push(`import type { ResourceInformer } from "../resource-informer.js";`);

  const factory = [
    `/**`,
    ` * The typed informer accessors of every built-in resource that can be listed and watched,`,
    ` * one property per group version. \`SharedInformerFactory\` is this class built from a`,
    ` * Clientset.`,
    ` */`,
    `export class TypedInformerFactory extends BaseInformerFactory<ObjectWithMetadata> {`,
    ...plans.flatMap((plan) => [
      `/** The ${plan.group === "" ? "core" : plan.group}/${plan.version} informers. */`,
      `readonly ${plan.accessor}: ${pascal(plan.accessor)}Informers;`,
    ]),
    ``,
    `/** A factory over \`settings\`; no informer is created until an accessor is called. */`,
    `constructor(settings: InformerFactorySettings<ObjectWithMetadata>) {`,
    `super(settings);`,
    ...plans.map((plan) => `this.${plan.accessor} = new ${pascal(plan.accessor)}Informers(this);`),
    `}`,
    `}`,
  ];

  return [
    `// Code generated by tools/generate-informers.ts from src/core/resource-table.ts. DO NOT EDIT.`,
    `/**`,
    ` * The typed informers and listers of every built-in resource that serves list and watch,`,
    ` * grouped by group version, with object types from kubernetes-types.`,
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
    ...listers,
    ...classes,
    ...factory,
    ``,
  ].join("\n");
}

/** The generated file's content, formatted with the repository's prettier settings. */
export async function generateTypedInformers(): Promise<string> {
  return formatGenerated(GENERATED_PATH, source());
}

await writeGeneratedIfMain(import.meta.url, GENERATED_PATH, generateTypedInformers);
