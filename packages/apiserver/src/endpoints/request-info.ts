import { decodePathSegment } from "./request-target.js";

/** What a request to the embedded server addresses, parsed from its method and path. */
export type RequestInfo =
  { readonly kind: "nonResource"; readonly path: string } | ResourceRequestInfo;

/** A request for a resource (or a collection, or a subresource). */
export interface ResourceRequestInfo {
  readonly kind: "resource";
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  /** `""` for cluster-scoped requests and for cross-namespace lists. */
  readonly namespace: string;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
  /** The path used the deprecated `/watch/` prefix. */
  readonly legacyWatch: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/** Whether a `watch` query value asks for a watch (anything but absent, "false" and "0"). */
export function isWatchParam(value: string | null): boolean {
  return value !== null && value !== "false" && value !== "0";
}

/**
 * Parses a path like kube-apiserver's RequestInfoResolver. Returns `undefined` for paths
 * that can only be a 404 (e.g. `/apis/g` with too many segments).
 */
export function parseRequestInfo(
  method: string,
  pathname: string,
  watchParam: string | null,
): RequestInfo | undefined {
  const parts = pathname.split("/").filter((p) => p !== "");
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    version = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1] as string;
    version = parts[2] as string;
    rest = parts.slice(3);
  } else {
    return { kind: "nonResource", path: pathname };
  }
  let legacyWatch = false;
  if (rest[0] === "watch") {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = decodePathSegment(rest[1] as string);
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const resource = rest[0] as string;
  const name = rest[1] !== undefined ? decodePathSegment(rest[1]) : "";
  const subresource = rest[2] ?? "";
  const isCollection = name === "";
  let verb: string;
  switch (method) {
    case "GET":
    case "HEAD":
      verb =
        legacyWatch || (isCollection && isWatchParam(watchParam))
          ? "watch"
          : isCollection
            ? "list"
            : "get";
      break;
    case "POST":
      verb = "create";
      break;
    case "PUT":
      verb = "update";
      break;
    case "PATCH":
      verb = "patch";
      break;
    case "DELETE":
      verb = isCollection ? "deletecollection" : "delete";
      break;
    default:
      verb = method.toLowerCase();
  }
  return {
    kind: "resource",
    verb,
    group,
    version,
    namespace,
    resource,
    name,
    subresource,
    legacyWatch,
  };
}
