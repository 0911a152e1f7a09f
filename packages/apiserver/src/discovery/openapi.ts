import { createHash } from "node:crypto";
import type { JsonObject } from "kubekit";
import type { ServedGroup, ServedResource } from "../registry/served-resource.js";
import { definitionsForResources } from "./openapi/resource-definitions.js";

/**
 * The `/openapi/v3` documents: an index of group versions and, per group version, an OpenAPI
 * 3.0 document listing every resource's paths and operations
 * (`staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go`), with the schemas
 * of its kinds in `components.schemas` (`kubectl explain` finds a resource's GVK on its
 * operations, then the schema carrying that GVK in `x-kubernetes-group-version-kind`).
 * kubectl decides that the server supports `fieldValidation` (and dry-run) by finding the PATCH
 * operation tagged with the object's GroupVersionKind and checking its query parameters, so
 * every PATCH operation here carries `x-kubernetes-group-version-kind` and the write parameters.
 *
 * PATCH operations deliberately have **no `requestBody`**: a PATCH that declares the
 * strategic-merge content type makes client-side `kubectl apply` compute its patches from the
 * document's schemas instead of its compiled-in patch metadata for built-in kinds. Both carry
 * the same directives (the schemas are generated from the same field tables), but the
 * compiled-in path is the one kubectl has always taken against this server.
 */

/** One entry of the `/openapi/v3` index. */
export interface OpenApiIndexEntry {
  /** `/openapi/v3/apis/apps/v1?hash=<HASH>`; the hash changes whenever the document changes. */
  readonly serverRelativeURL: string;
}

/** The `/openapi/v3` index document. */
export interface OpenApiV3Index {
  /** Keyed `api/v1`, `apis/apps/v1`, … (no leading slash). */
  readonly paths: Record<string, OpenApiIndexEntry>;
}

/** The hash of the document of one group version (its `?hash=` in the index). */
export type OpenApiDocumentHasher = (
  group: string,
  version: string,
  resources: readonly ServedResource[],
) => string;

/**
 * The `/openapi/v3` index for every group version in `groups`. Each URL carries the hash of
 * the document `openApiV3Document` produces for that group version (computed by `hashOf`,
 * which a server answers from its cache), so any change to a group version's resources (a CRD
 * added, removed or changed) changes its URL, which lets the server mark the documents
 * `Cache-Control: public, immutable`.
 */
export function openApiV3Index(
  groups: readonly ServedGroup[],
  hashOf: OpenApiDocumentHasher = (group, version, resources) =>
    openApiDocumentHash(openApiV3Document(group, version, resources)),
): OpenApiV3Index {
  const paths: Record<string, OpenApiIndexEntry> = {};
  for (const group of groups) {
    for (const served of group.versions) {
      const key =
        group.name === "" ? `api/${served.version}` : `apis/${group.name}/${served.version}`;
      const hash = hashOf(group.name, served.version, served.resources);
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
  }
  return { paths };
}

/**
 * The OpenAPI 3.0 document of one group version. For every resource it has the collection
 * path (namespaced, plus the all-namespaces list path, or cluster-wide), the item path and one
 * path per subresource, with an operation for each verb the resource serves:
 *
 * - `get` (list / read), `post` (create), `put` (replace), `patch`, `delete` (delete /
 *   deletecollection), each with `operationId`, `x-kubernetes-action` and
 *   `x-kubernetes-group-version-kind` `{group, version, kind}` (a subresource's own kind,
 *   e.g. autoscaling/v1 `Scale`);
 * - query parameters inline on each operation (`dryRun`, `fieldManager`, `fieldValidation`
 *   on writes, `force` on patches, list and delete options where they apply), and `name`,
 *   `namespace` and `pretty` on the path item.
 *
 * `components.schemas` holds the definitions of the group version's kinds, list kinds and
 * subresource kinds, and of everything they reference (`openapi/resource-definitions.ts`).
 */
export function openApiV3Document(
  group: string,
  version: string,
  resources: readonly ServedResource[],
): JsonObject {
  const paths: JsonObject = {};
  const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const gvName = operationGroupVersion(group, version);
  for (const r of resources) addResourcePaths(paths, prefix, gvName, r);
  const schemas = Object.fromEntries(definitionsForResources(resources, "v3"));
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "unversioned" },
    paths,
    components: { schemas },
  };
}

/**
 * The content hash of an OpenAPI document, for the index's `?hash=` and the `ETag`: the
 * uppercase hex SHA-512 of its JSON text, as kube-openapi's handlers compute it. Documents
 * built by `openApiV3Document` from the same resources always hash the same.
 */
export function openApiDocumentHash(doc: unknown): string {
  return openApiBodyHash(JSON.stringify(doc));
}

/** `openApiDocumentHash` of an already serialized document (JSON text or protobuf bytes). */
export function openApiBodyHash(body: string | Uint8Array): string {
  return createHash("sha512").update(body).digest("hex").toUpperCase();
}

type Method = "get" | "post" | "put" | "patch" | "delete";

interface OperationSpec {
  readonly method: Method;
  readonly action: string;
  readonly operationId: string;
  readonly description: string;
  readonly gvk: JsonObject;
  readonly parameters: readonly JsonObject[];
}

/** The common facts of a resource's paths and operation ids. */
interface ResourcePaths {
  readonly prefix: string;
  readonly gvName: string;
  readonly r: ServedResource;
  readonly kind: string;
  readonly scope: string;
  readonly collection: string;
  readonly item: string;
  readonly gvk: JsonObject;
  readonly verbs: ReadonlySet<string>;
}

function addResourcePaths(
  paths: JsonObject,
  prefix: string,
  gvName: string,
  r: ServedResource,
): void {
  const collection = r.namespaced
    ? `${prefix}/namespaces/{namespace}/${r.plural}`
    : `${prefix}/${r.plural}`;
  const at: ResourcePaths = {
    prefix,
    gvName,
    r,
    kind: r.kind,
    scope: r.namespaced ? "Namespaced" : "",
    collection,
    item: `${collection}/{name}`,
    gvk: { group: r.group, version: r.version, kind: r.kind },
    verbs: new Set(r.verbs),
  };
  addCollectionPaths(paths, at);
  addItemPaths(paths, at);
  addSubresourcePaths(paths, at);
}

/** The collection's list, create and deletecollection, and the all-namespaces list. */
function addCollectionPaths(paths: JsonObject, at: ResourcePaths): void {
  const { prefix, gvName, r, kind, scope, collection, gvk, verbs } = at;
  const collectionOps: OperationSpec[] = [];
  if (verbs.has("list")) {
    collectionOps.push(
      op(
        "get",
        "list",
        `list${gvName}${scope}${kind}`,
        `list or watch objects of kind ${kind}`,
        gvk,
        LIST_PARAMS,
      ),
    );
  }
  if (verbs.has("create")) {
    collectionOps.push(
      op("post", "post", `create${gvName}${scope}${kind}`, `create a ${kind}`, gvk, WRITE_PARAMS),
    );
  }
  if (verbs.has("deletecollection")) {
    collectionOps.push(
      op(
        "delete",
        "deletecollection",
        `delete${gvName}Collection${scope}${kind}`,
        `delete collection of ${kind}`,
        gvk,
        [...DELETE_PARAMS, ...LIST_SELECTION_PARAMS],
      ),
    );
  }
  setPath(paths, collection, collectionOps, r.namespaced ? [NAMESPACE_PARAM] : []);

  if (r.namespaced && verbs.has("list")) {
    setPath(
      paths,
      `${prefix}/${r.plural}`,
      [
        op(
          "get",
          "list",
          `list${gvName}${kind}ForAllNamespaces`,
          `list or watch objects of kind ${kind}`,
          gvk,
          LIST_PARAMS,
        ),
      ],
      [],
    );
  }
}

/** The item's get, put, patch and delete. */
function addItemPaths(paths: JsonObject, at: ResourcePaths): void {
  const { gvName, r, kind, scope, item, gvk, verbs } = at;
  const itemOps: OperationSpec[] = [];
  if (verbs.has("get"))
    itemOps.push(
      op("get", "get", `read${gvName}${scope}${kind}`, `read the specified ${kind}`, gvk, []),
    );
  if (verbs.has("update")) {
    itemOps.push(
      op(
        "put",
        "put",
        `replace${gvName}${scope}${kind}`,
        `replace the specified ${kind}`,
        gvk,
        WRITE_PARAMS,
      ),
    );
  }
  if (verbs.has("patch")) {
    itemOps.push(
      op(
        "patch",
        "patch",
        `patch${gvName}${scope}${kind}`,
        `partially update the specified ${kind}`,
        gvk,
        PATCH_PARAMS,
      ),
    );
  }
  if (verbs.has("delete")) {
    itemOps.push(
      op(
        "delete",
        "delete",
        `delete${gvName}${scope}${kind}`,
        `delete a ${kind}`,
        gvk,
        DELETE_PARAMS,
      ),
    );
  }
  setPath(paths, item, itemOps, itemParams(r.namespaced, kind));
}

/** Each subresource's operations, by its own verbs and kind. */
function addSubresourcePaths(paths: JsonObject, at: ResourcePaths): void {
  const { gvName, r, kind, scope, item } = at;
  for (const sub of r.subresources) {
    const subGvk: JsonObject = { group: sub.group, version: sub.version, kind: sub.kind };
    const suffix = camel(sub.name);
    const subVerbs = new Set(sub.verbs);
    const subOps: OperationSpec[] = [];
    const what = `${sub.name} of the specified ${kind}`;
    if (subVerbs.has("get"))
      subOps.push(
        op("get", "get", `read${gvName}${scope}${kind}${suffix}`, `read ${what}`, subGvk, []),
      );
    if (subVerbs.has("create")) {
      subOps.push(
        op(
          "post",
          "post",
          `create${gvName}${scope}${kind}${suffix}`,
          `create ${what}`,
          subGvk,
          WRITE_PARAMS,
        ),
      );
    }
    if (subVerbs.has("update")) {
      subOps.push(
        op(
          "put",
          "put",
          `replace${gvName}${scope}${kind}${suffix}`,
          `replace ${what}`,
          subGvk,
          WRITE_PARAMS,
        ),
      );
    }
    if (subVerbs.has("patch")) {
      subOps.push(
        op(
          "patch",
          "patch",
          `patch${gvName}${scope}${kind}${suffix}`,
          `partially update ${what}`,
          subGvk,
          PATCH_PARAMS,
        ),
      );
    }
    if (subVerbs.has("delete")) {
      subOps.push(
        op(
          "delete",
          "delete",
          `delete${gvName}${scope}${kind}${suffix}`,
          `delete ${what}`,
          subGvk,
          [],
        ),
      );
    }
    setPath(paths, `${item}/${sub.name}`, subOps, itemParams(r.namespaced, kind));
  }
}

function op(
  method: Method,
  action: string,
  operationId: string,
  description: string,
  gvk: JsonObject,
  parameters: readonly JsonObject[],
): OperationSpec {
  return { method, action, operationId, description, gvk, parameters };
}

function setPath(
  paths: JsonObject,
  path: string,
  ops: readonly OperationSpec[],
  pathParams: readonly JsonObject[],
): void {
  if (ops.length === 0) return;
  const pathItem: JsonObject = {};
  for (const o of ops) {
    const operation: JsonObject = {
      description: o.description,
      operationId: o.operationId,
      responses: responsesFor(o.method),
      "x-kubernetes-action": o.action,
      "x-kubernetes-group-version-kind": { ...o.gvk },
    };
    if (o.parameters.length > 0) operation["parameters"] = o.parameters.map((p) => ({ ...p }));
    pathItem[o.method] = operation;
  }
  pathItem["parameters"] = [...pathParams.map((p) => ({ ...p })), { ...PRETTY_PARAM }];
  paths[path] = pathItem;
}

function responsesFor(method: Method): JsonObject {
  switch (method) {
    case "post":
      return {
        "200": { description: "OK" },
        "201": { description: "Created" },
        "202": { description: "Accepted" },
        "401": { description: "Unauthorized" },
      };
    case "put":
    case "patch":
      return {
        "200": { description: "OK" },
        "201": { description: "Created" },
        "401": { description: "Unauthorized" },
      };
    case "delete":
      return {
        "200": { description: "OK" },
        "202": { description: "Accepted" },
        "401": { description: "Unauthorized" },
      };
    default:
      return { "200": { description: "OK" }, "401": { description: "Unauthorized" } };
  }
}

function itemParams(namespaced: boolean, kind: string): JsonObject[] {
  const name = pathParam("name", `name of the ${kind}`);
  return namespaced ? [name, NAMESPACE_PARAM] : [name];
}

function pathParam(name: string, description: string): JsonObject {
  return {
    name,
    in: "path",
    description,
    required: true,
    schema: { type: "string", uniqueItems: true },
  };
}

function queryParam(
  name: string,
  type: "string" | "boolean" | "integer",
  description: string,
): JsonObject {
  return { name, in: "query", description, schema: { type, uniqueItems: true } };
}

const NAMESPACE_PARAM = pathParam(
  "namespace",
  "object name and auth scope, such as for teams and projects",
);
const PRETTY_PARAM = queryParam(
  "pretty",
  "string",
  "If 'true', then the output is pretty printed.",
);

const DRY_RUN = queryParam(
  "dryRun",
  "string",
  "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
);
const FIELD_MANAGER = queryParam(
  "fieldManager",
  "string",
  "fieldManager is a name associated with the actor or entity that is making these changes.",
);
const FIELD_VALIDATION = queryParam(
  "fieldValidation",
  "string",
  "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default) and Strict.",
);
const FORCE = queryParam(
  "force",
  "boolean",
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
);

const WRITE_PARAMS: readonly JsonObject[] = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
const PATCH_PARAMS: readonly JsonObject[] = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE];
const DELETE_PARAMS: readonly JsonObject[] = [
  DRY_RUN,
  queryParam(
    "gracePeriodSeconds",
    "integer",
    "The duration in seconds before the object should be deleted.",
  ),
  queryParam(
    "propagationPolicy",
    "string",
    "Whether and how garbage collection will be performed: Orphan, Background or Foreground.",
  ),
  queryParam("orphanDependents", "boolean", "Deprecated: please use the PropagationPolicy."),
];
const LIST_SELECTION_PARAMS: readonly JsonObject[] = [
  queryParam(
    "continue",
    "string",
    "The continue option should be set when retrieving more results from the server.",
  ),
  queryParam(
    "fieldSelector",
    "string",
    "A selector to restrict the list of returned objects by their fields.",
  ),
  queryParam(
    "labelSelector",
    "string",
    "A selector to restrict the list of returned objects by their labels.",
  ),
  queryParam(
    "limit",
    "integer",
    "limit is a maximum number of responses to return for a list call.",
  ),
  queryParam(
    "resourceVersion",
    "string",
    "resourceVersion sets a constraint on what resource versions a request may be served from.",
  ),
  queryParam(
    "resourceVersionMatch",
    "string",
    "resourceVersionMatch determines how resourceVersion is applied to list calls.",
  ),
  queryParam("timeoutSeconds", "integer", "Timeout for the list/watch call."),
];
const LIST_PARAMS: readonly JsonObject[] = [
  queryParam(
    "allowWatchBookmarks",
    "boolean",
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
  ),
  ...LIST_SELECTION_PARAMS,
  queryParam(
    "sendInitialEvents",
    "boolean",
    "`sendInitialEvents=true` may be set together with `watch=true`.",
  ),
  queryParam(
    "watch",
    "boolean",
    "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
  ),
];

/** `AppsV1`, `CoreV1`, `RbacAuthorizationV1`, `ExampleComV1`: the group version part of an operationId. */
function operationGroupVersion(group: string, version: string): string {
  const groupPart =
    group === ""
      ? "Core"
      : group
          .replace(/\.k8s\.io$/, "")
          .split(/[.-]/)
          .map(capitalize)
          .join("");
  return `${groupPart}${capitalize(version)}`;
}

function camel(name: string): string {
  return name.split(/[.-]/).map(capitalize).join("");
}

function capitalize(word: string): string {
  return word === "" ? word : word.charAt(0).toUpperCase() + word.slice(1);
}
