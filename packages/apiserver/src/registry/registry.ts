import {
  builtinGroupVersions,
  builtinResources,
  type ResourceInfo,
  type SubresourceInfo,
  type JsonObject,
} from "kubekit";
import { conversionWebhookOf } from "../apiextensions/conversion/conversion-webhook-spec.js";
import { CustomResourceSchema } from "../apiextensions/custom-resource-schema.js";
import { EVENT_STORAGE_ID } from "../kinds/event.js";
import { METRICS_GROUP_VERSION, METRICS_RESOURCES } from "../metrics-api/metrics-resources.js";
import { strategyFor } from "../kinds/strategies.js";
import { GENERIC_POLICY, type ResourcePolicy } from "./resource-policy.js";
import type {
  CustomResourceVersions,
  PrinterColumn,
  ServedGroup,
  ServedResource,
} from "./served-resource.js";

/**
 * Custom resources (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`):
 * generation tracked, no unconditional update.
 */
const CUSTOM_RESOURCE_POLICY: ResourcePolicy = {
  ...GENERIC_POLICY,
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
};

/** The policy of a served resource: its kind's strategy over the generic defaults. */
export function policyFor(resource: ServedResource): ResourcePolicy {
  const custom = resource.custom;
  if (custom) {
    if (custom.compiled.selectableFields.length === 0) return CUSTOM_RESOURCE_POLICY;
    // `selectableFields` (apiextensions-apiserver's crConverter.ConvertFieldLabel).
    const selectable: Record<string, (obj: JsonObject) => string> = {};
    for (const f of custom.compiled.selectableFields) {
      selectable[f.name] = (obj) => custom.compiled.selectableValues(obj)[f.name] ?? "";
    }
    return { ...CUSTOM_RESOURCE_POLICY, selectableFields: selectable };
  }
  return { ...GENERIC_POLICY, ...strategyFor(resource).policy };
}

/**
 * kube's default deprecation warning of a CRD version (`defaultDeprecationWarning` in
 * `pkg/apiserver/customresource_handler.go`): `<group>/<version> <Kind> is deprecated`, then
 * `; use <group>/<v> <Kind>` naming the most preferred served, non-deprecated version that
 * is preferred over the deprecated one.
 */
function deprecationWarning(spec: JsonObject, version: JsonObject): string | undefined {
  if (version["deprecated"] !== true) return undefined;
  if (typeof version["deprecationWarning"] === "string") return version["deprecationWarning"];
  const group = String(spec["group"]);
  const kind = String((spec["names"] as JsonObject)["kind"]);
  const name = String(version["name"]);
  const newer = ((spec["versions"] as JsonObject[] | undefined) ?? [])
    .filter((v) => v["served"] === true && v["deprecated"] !== true)
    .map((v) => String(v["name"]))
    .filter((v) => sortVersions([v, name])[0] === v && v !== name);
  const message = `${group}/${name} ${kind} is deprecated`;
  const [best] = sortVersions(newer);
  return best === undefined ? message : `${message}; use ${group}/${best} ${kind}`;
}

/** The compiled schemas of a CRD's versions, reused while its spec stays the same. */
interface CompiledCrd {
  readonly specText: string;
  readonly versions: CustomResourceVersions;
}

function compileCrd(spec: JsonObject): CompiledCrd {
  const schemas = new Map<string, CustomResourceSchema>();
  let storageVersion = "";
  for (const v of (spec["versions"] as JsonObject[] | undefined) ?? []) {
    const compiled = CustomResourceSchema.compile(v);
    schemas.set(compiled.version, compiled);
    if (v["storage"] === true) storageVersion = compiled.version;
  }
  return {
    specText: JSON.stringify(spec),
    versions: {
      storageVersion,
      schemaOf: (version) => schemas.get(version),
      webhook: conversionWebhookOf(spec),
    },
  };
}

/**
 * The storage id of a resource, `group/plural`, shared by every version: events.k8s.io/v1
 * events share the core/v1 storage, as kube-apiserver serves both from one internal type.
 */
export function storageIdOf(info: ResourceInfo | ServedResource): string {
  const custom = "custom" in info && info.custom !== undefined;
  if (info.group === "events.k8s.io" && info.plural === "events" && !custom)
    return EVENT_STORAGE_ID;
  return `${info.group}/${info.plural}`;
}

/** A served resource together with the server's rules for it. */
export interface ResourceEntry {
  readonly info: ServedResource;
  readonly policy: ResourcePolicy;
  /**
   * Storage identity shared by every version of the resource: `group/plural` (events.k8s.io
   * events share the core `/events` storage).
   */
  readonly storageId: string;
}

/**
 * What the embedded server serves: the built-in resource table plus the resources of every
 * established CustomResourceDefinition. Discovery and routing both read it, so a CRD's
 * resource appears in discovery in the same step that makes it routable.
 */
export class ResourceRegistry {
  readonly #byPath = new Map<string, ResourceEntry>();
  readonly #crdEntries = new Map<string, ResourceEntry[]>();
  readonly #compiledCrds = new Map<string, CompiledCrd>();
  #generation = 0;
  #groupsCache: { generation: number; groups: ServedGroup[] } | undefined;

  constructor() {
    for (const info of builtinResources) this.#addEntry(info);
    for (const info of METRICS_RESOURCES) this.#addEntry(info);
  }

  /** Increments whenever the served set changes (discovery ETags, OpenAPI hashes). */
  get version(): number {
    return this.#generation;
  }

  /** The resource served at `group/version/plural`. */
  lookup(group: string, version: string, plural: string): ResourceEntry | undefined {
    return this.#byPath.get(`${group}/${version}/${plural}`);
  }

  /** Whether any resource is served under this group version. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.servedGroups().some(
      (g) => g.name === group && g.versions.some((v) => v.version === version),
    );
  }

  /** All served groups (core first), versions in preference order. */
  servedGroups(): ServedGroup[] {
    if (this.#groupsCache?.generation === this.#generation) return this.#groupsCache.groups;
    const groups: ServedGroup[] = [];
    const order: { group: string; versions: readonly string[] }[] = [
      { group: "", versions: ["v1"] },
      ...builtinGroupVersions,
      // Served as kube-apiserver's aggregator lists metrics-server's APIService, after the built-ins.
      { group: METRICS_GROUP_VERSION.group, versions: [METRICS_GROUP_VERSION.version] },
    ];
    for (const entries of this.#crdEntries.values()) {
      const first = entries[0];
      if (!first) continue;
      const known = order.find((g) => g.group === first.info.group);
      const versions = sortVersions([...new Set(entries.map((e) => e.info.version))]);
      if (known) {
        order[order.indexOf(known)] = {
          group: known.group,
          versions: sortVersions([...new Set([...known.versions, ...versions])]),
        };
      } else order.push({ group: first.info.group, versions });
    }
    for (const { group, versions } of order) {
      const served = versions
        .map((version) => ({
          version,
          resources: [...this.#byPath.values()]
            .filter((e) => e.info.group === group && e.info.version === version)
            .map((e) => e.info),
        }))
        .filter((v) => v.resources.length > 0);
      if (served.length > 0) groups.push({ name: group, versions: served });
    }
    this.#groupsCache = { generation: this.#generation, groups };
    return groups;
  }

  /**
   * Every entry for a storage id (one per served version); a custom resource's storage
   * version first when it is served (the form its objects are stored in).
   */
  entriesFor(storageId: string): ResourceEntry[] {
    const entries = [...this.#byPath.values()].filter((e) => e.storageId === storageId);
    const isStorage = (e: ResourceEntry): boolean =>
      e.info.custom?.versions.storageVersion === e.info.version;
    return [...entries.filter(isStorage), ...entries.filter((e) => !isStorage(e))];
  }

  /**
   * Serves (or re-serves, after an update) the resources of a CRD. Returns the storage id.
   */
  installCrd(crd: JsonObject, terminating: boolean): string {
    const name = String((crd["metadata"] as JsonObject)["name"]);
    const spec = crd["spec"] as JsonObject;
    // Schemas (and their CEL programs) are compiled once per spec, not per status write.
    const previous = this.#compiledCrds.get(name);
    const compiled = previous?.specText === JSON.stringify(spec) ? previous : compileCrd(spec);
    this.removeCrd(name);
    this.#compiledCrds.set(name, compiled);
    const names = spec["names"] as JsonObject;
    const group = String(spec["group"]);
    const kind = String(names["kind"]);
    const plural = String(names["plural"]);
    const entries: ResourceEntry[] = [];
    for (const v of (spec["versions"] as JsonObject[]) ?? []) {
      if (v["served"] === false) continue;
      const version = String(v["name"]);
      const schema = compiled.versions.schemaOf(version);
      if (!schema) continue;
      const warning = deprecationWarning(spec, v);
      const sub = (v["subresources"] as JsonObject | undefined) ?? {};
      const scale = sub["scale"] as JsonObject | undefined;
      const subresources: SubresourceInfo[] = [];
      if (scale)
        subresources.push({
          name: "scale",
          verbs: ["get", "patch", "update"],
          group: "autoscaling",
          version: "v1",
          kind: "Scale",
        });
      if (sub["status"])
        subresources.push({
          name: "status",
          verbs: ["get", "patch", "update"],
          group,
          version,
          kind,
        });
      const info: ServedResource = {
        group,
        version,
        kind,
        listKind: String(names["listKind"] ?? `${kind}List`),
        plural,
        singular: String(names["singular"] ?? kind.toLowerCase()),
        namespaced: spec["scope"] !== "Cluster",
        verbs: terminating
          ? ["delete", "deletecollection", "get", "list", "watch"]
          : ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        shortNames: ((names["shortNames"] as string[] | undefined) ?? []).slice(),
        categories: ((names["categories"] as string[] | undefined) ?? []).slice(),
        subresources,
        custom: {
          crdName: name,
          printerColumns: (
            (v["additionalPrinterColumns"] as unknown as PrinterColumn[]) ?? []
          ).slice(),
          ...(scale
            ? {
                scale: {
                  specReplicasPath: String(scale["specReplicasPath"] ?? ".spec.replicas"),
                  statusReplicasPath: String(scale["statusReplicasPath"] ?? ".status.replicas"),
                  ...(scale["labelSelectorPath"]
                    ? { labelSelectorPath: String(scale["labelSelectorPath"]) }
                    : {}),
                },
              }
            : {}),
          hasStatus: Boolean(sub["status"]),
          ...(schema.schema ? { schema: schema.schema } : {}),
          compiled: schema,
          versions: compiled.versions,
          warnings: warning === undefined ? [] : [warning],
          terminating,
        },
      };
      entries.push(this.#addEntry(info));
    }
    this.#crdEntries.set(name, entries);
    this.#generation++;
    return `${group}/${plural}`;
  }

  /** Stops serving a CRD's resources. */
  removeCrd(name: string): void {
    const entries = this.#crdEntries.get(name);
    if (!entries) return;
    for (const e of entries)
      this.#byPath.delete(`${e.info.group}/${e.info.version}/${e.info.plural}`);
    this.#crdEntries.delete(name);
    this.#compiledCrds.delete(name);
    this.#generation++;
  }

  #addEntry(info: ResourceInfo | ServedResource): ResourceEntry {
    const entry: ResourceEntry = {
      info,
      policy: policyFor(info),
      storageId: storageIdOf(info),
    };
    this.#byPath.set(`${info.group}/${info.version}/${info.plural}`, entry);
    return entry;
  }
}

/** Kube-aware version order: GA > beta > alpha, higher numbers first, others lexical last. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  return versions.sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
    return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
  });
}
