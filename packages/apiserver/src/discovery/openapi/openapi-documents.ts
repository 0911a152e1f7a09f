import type { JsonObject } from "kubekit";
import type { ServedGroup, ServedResource } from "../../registry/served-resource.js";
import { openApiBodyHash, openApiV3Document, openApiV3Index } from "../openapi.js";
import { openApiV2Document } from "../openapi-v2.js";
import { encodeOpenApiV2Protobuf } from "./gnostic-protobuf.js";

/** What the documents are built from: the served resources and a counter of their changes. */
export interface OpenApiSource {
  /** Increments whenever the served set changes. */
  readonly version: number;
  servedGroups(): ServedGroup[];
}

/** A serialized document with its content hash (the `ETag` and the index's `?hash=`). */
export interface OpenApiBody {
  readonly body: string;
  readonly hash: string;
}

interface GroupVersionEntry extends OpenApiBody {
  readonly resources: readonly ServedResource[];
}

interface V2Entry extends OpenApiBody {
  readonly sourceVersion: number;
  protobuf?: { readonly bytes: Uint8Array; readonly hash: string };
}

/**
 * The server's OpenAPI documents, built lazily on first request and cached: a group version's
 * v3 document is rebuilt only when the resources it describes change (a CRD of that group
 * added, changed or removed), and the v2 document (and its protobuf form) only when the
 * registry's version changes. Definitions of built-in types are generated once per process
 * (`builtin-definitions.ts`), so a rebuild costs the serialization of the document. Memory is
 * bounded by one cached document per served group version plus one v2 document.
 */
export class OpenApiDocuments {
  readonly #source: OpenApiSource;
  readonly #gitVersion: () => string;
  readonly #groupVersions = new Map<string, GroupVersionEntry>();
  #v2: V2Entry | undefined;

  constructor(source: OpenApiSource, gitVersion: () => string) {
    this.#source = source;
    this.#gitVersion = gitVersion;
  }

  /** The `/openapi/v3` index; every URL carries its document's current hash. */
  v3Index(): OpenApiBody {
    const groups = this.#source.servedGroups();
    const served = new Set<string>();
    const index = openApiV3Index(groups, (group, version, resources) => {
      served.add(`${group}/${version}`);
      return this.#groupVersion(group, version, resources).hash;
    });
    for (const key of this.#groupVersions.keys()) {
      if (!served.has(key)) this.#groupVersions.delete(key);
    }
    const body = JSON.stringify(index);
    return { body, hash: openApiBodyHash(body) };
  }

  /** The v3 document of one group version, or `undefined` when it is not served. */
  v3GroupVersion(group: string, version: string): OpenApiBody | undefined {
    const resources = this.#source
      .servedGroups()
      .find((g) => g.name === group)
      ?.versions.find((v) => v.version === version)?.resources;
    if (resources) return this.#groupVersion(group, version, resources);
    this.#groupVersions.delete(`${group}/${version}`);
    return undefined;
  }

  /** The `/openapi/v2` document as JSON. */
  v2Json(): OpenApiBody {
    return this.#v2Entry();
  }

  /** The `/openapi/v2` document as gnostic protobuf, with the hash of those bytes. */
  v2Protobuf(): { readonly bytes: Uint8Array; readonly hash: string } {
    const entry = this.#v2Entry();
    if (!entry.protobuf) {
      const bytes = encodeOpenApiV2Protobuf(JSON.parse(entry.body) as JsonObject);
      entry.protobuf = { bytes, hash: openApiBodyHash(bytes) };
    }
    return entry.protobuf;
  }

  #v2Entry(): V2Entry {
    const version = this.#source.version;
    if (this.#v2?.sourceVersion !== version) {
      const doc = openApiV2Document(this.#source.servedGroups(), this.#gitVersion());
      const body = JSON.stringify(doc);
      this.#v2 = { sourceVersion: version, body, hash: openApiBodyHash(body) };
    }
    return this.#v2;
  }

  #groupVersion(
    group: string,
    version: string,
    resources: readonly ServedResource[],
  ): GroupVersionEntry {
    const key = `${group}/${version}`;
    const cached = this.#groupVersions.get(key);
    if (cached && sameResources(cached.resources, resources)) return cached;
    const body = JSON.stringify(openApiV3Document(group, version, resources));
    const entry = { resources, body, hash: openApiBodyHash(body) };
    this.#groupVersions.set(key, entry);
    return entry;
  }
}

/** The registry keeps a resource's info object until the resource changes. */
function sameResources(a: readonly ServedResource[], b: readonly ServedResource[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}
