/**
 * The attributes an authorizer decides on, as kube-apiserver's `authorizer.AttributesRecord`
 * (`staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go`), built from the
 * request info as `staging/src/k8s.io/apiserver/pkg/endpoints/filters/authorization.go`
 * GetAuthorizerAttributes does.
 */
import type { UserInfo } from "../auth/authentication.js";
import type { RequestInfo } from "../endpoints/request-info.js";

/** What one request (or one access review) asks to do, and who asks. */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  /**
   * The verb: a Kubernetes verb for resource requests (get, list, watch, create, ...,
   * impersonate), the lower-cased HTTP method for non-resource requests (get, post, head, ...).
   */
  readonly verb: string;
  /** Whether the request addresses a resource (`/api/...`, `/apis/...`) or a plain path. */
  readonly resourceRequest: boolean;
  /** The request path, as sent (non-resource requests are authorized on it). */
  readonly path: string;
  /** `""` for cluster-scoped resources, cross-namespace requests and non-resource requests. */
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  /** `""` for collections. */
  readonly name: string;
}

/**
 * The attributes of an HTTP request: its parsed request info and method for resource
 * requests; the lower-cased method and the path (as sent, trailing slash kept) otherwise.
 */
export function requestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  info: RequestInfo | undefined,
): AuthorizationAttributes {
  if (info?.kind === "resource") {
    return {
      user,
      verb: info.verb,
      resourceRequest: true,
      path,
      namespace: info.namespace,
      apiGroup: info.group,
      apiVersion: info.version,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    };
  }
  return nonResourceAttributes(user, method.toLowerCase(), path);
}

/** The attributes of a non-resource request: a verb on a path. */
export function nonResourceAttributes(
  user: UserInfo,
  verb: string,
  path: string,
): AuthorizationAttributes {
  return {
    user,
    verb,
    resourceRequest: false,
    path,
    namespace: "",
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    name: "",
  };
}
