/**
 * Kubernetes' authorization library (`k8s.io/apiserver/pkg/cel/library/authz.go`), for the
 * `authorizer` variable of admission policy expressions: `authorizer.path(p)` and
 * `authorizer.group(g).resource(r)` build checks, `.subresource(s)`, `.namespace(ns)` and
 * `.name(n)` narrow a resource check, `.check(verb)` asks the server's authorizer (resource
 * checks with `apiVersion: "*"`), and the decision answers `allowed()`, `reason()`,
 * `errored()`, `error()`. `authorizer.serviceAccount(ns, name)` checks as that service account
 * (`system:serviceaccount:<ns>:<name>`, groups `system:serviceaccounts` and
 * `system:serviceaccounts:<ns>`). The `fieldSelector`/`labelSelector` narrowing is not
 * provided.
 */
import { celMethod, CelScalar, type CelFunc, type CelValue } from "@bufbuild/cel";
import { OpaqueType } from "../opaque-values.js";

/** The user a check is made as. */
export interface CelAuthzUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
}

/** One authorization question (kube's `authorizer.AttributesRecord`). */
export interface CelAuthzAttributes {
  readonly user: CelAuthzUser;
  readonly verb: string;
  readonly resourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** What answers the checks: the server's authorizer. Must not throw. */
export type CelAuthorize = (attributes: CelAuthzAttributes) => {
  readonly allowed: boolean;
  readonly reason: string;
};

interface AuthorizerPayload {
  readonly authorize: CelAuthorize;
  readonly user: CelAuthzUser;
}

interface ResourceCheckPayload {
  readonly authz: AuthorizerPayload;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

interface DecisionPayload {
  readonly allowed: boolean;
  readonly reason: string;
}

/** `kubernetes.authorization.Authorizer` values. */
export const AUTHORIZER_TYPE = new OpaqueType<AuthorizerPayload>(
  "kubernetes.authorization.Authorizer",
);
const PATH_CHECK = new OpaqueType<{ authz: AuthorizerPayload; path: string }>(
  "kubernetes.authorization.PathCheck",
);
const GROUP_CHECK = new OpaqueType<{ authz: AuthorizerPayload; group: string }>(
  "kubernetes.authorization.GroupCheck",
);
/** `kubernetes.authorization.ResourceCheck` values. */
export const RESOURCE_CHECK_TYPE = new OpaqueType<ResourceCheckPayload>(
  "kubernetes.authorization.ResourceCheck",
);
const DECISION = new OpaqueType<DecisionPayload>("kubernetes.authorization.Decision");

/** The value bound to `authorizer`: checks made as `user`, answered by `authorize`. */
export function authorizerValue(authorize: CelAuthorize, user: CelAuthzUser): CelValue {
  return AUTHORIZER_TYPE.wrap(
    { authorize, user },
    `authorizer:${user.name}`,
  ) as unknown as CelValue;
}

/** The value bound to `authorizer.requestResource`: a resource check of the request's resource. */
export function requestResourceValue(
  authorize: CelAuthorize,
  user: CelAuthzUser,
  resource: Omit<ResourceCheckPayload, "authz">,
): CelValue {
  return resourceCheck({ authz: { authorize, user }, ...resource });
}

function resourceCheck(p: ResourceCheckPayload): CelValue {
  const canonical = JSON.stringify([
    p.authz.user.name,
    p.group,
    p.resource,
    p.subresource,
    p.namespace,
    p.name,
  ]);
  return RESOURCE_CHECK_TYPE.wrap(p, canonical) as unknown as CelValue;
}

function decision(d: DecisionPayload): CelValue {
  return DECISION.wrap(d, JSON.stringify(d)) as unknown as CelValue;
}

function narrowed(self: CelValue, change: Partial<ResourceCheckPayload>): CelValue {
  return resourceCheck({ ...RESOURCE_CHECK_TYPE.payload(self), ...change });
}

const { STRING, BOOL } = CelScalar;
const A = AUTHORIZER_TYPE.celType;
const P = PATH_CHECK.celType;
const G = GROUP_CHECK.celType;
const R = RESOURCE_CHECK_TYPE.celType;
const D = DECISION.celType;
type Self = CelValue;

/** The authorization functions. */
export const authzLibrary: readonly CelFunc[] = [
  celMethod("path", A, [STRING], P, function (this: Self, path: string) {
    const authz = AUTHORIZER_TYPE.payload(this);
    return PATH_CHECK.wrap({ authz, path }, path) as unknown as CelValue;
  } as never),
  celMethod("group", A, [STRING], G, function (this: Self, group: string) {
    const authz = AUTHORIZER_TYPE.payload(this);
    return GROUP_CHECK.wrap({ authz, group }, group) as unknown as CelValue;
  } as never),
  celMethod("serviceAccount", A, [STRING, STRING], A, function (
    this: Self,
    ns: string,
    name: string,
  ) {
    const { authorize } = AUTHORIZER_TYPE.payload(this);
    const user = {
      name: `system:serviceaccount:${ns}:${name}`,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`],
    };
    return authorizerValue(authorize, user);
  } as never),
  celMethod("resource", G, [STRING], R, function (this: Self, resource: string) {
    const { authz, group } = GROUP_CHECK.payload(this);
    return resourceCheck({ authz, group, resource, subresource: "", namespace: "", name: "" });
  } as never),
  celMethod("subresource", R, [STRING], R, function (this: Self, subresource: string) {
    return narrowed(this, { subresource });
  } as never),
  celMethod("namespace", R, [STRING], R, function (this: Self, namespace: string) {
    return narrowed(this, { namespace });
  } as never),
  celMethod("name", R, [STRING], R, function (this: Self, name: string) {
    return narrowed(this, { name });
  } as never),
  celMethod("check", R, [STRING], D, function (this: Self, verb: string) {
    const r = RESOURCE_CHECK_TYPE.payload(this);
    return decision(
      r.authz.authorize({
        user: r.authz.user,
        verb,
        resourceRequest: true,
        path: "",
        apiGroup: r.group,
        apiVersion: "*",
        resource: r.resource,
        subresource: r.subresource,
        namespace: r.namespace,
        name: r.name,
      }),
    );
  } as never),
  celMethod("check", P, [STRING], D, function (this: Self, verb: string) {
    const { authz, path } = PATH_CHECK.payload(this);
    return decision(
      authz.authorize({
        user: authz.user,
        verb,
        resourceRequest: false,
        path,
        apiGroup: "",
        apiVersion: "",
        resource: "",
        subresource: "",
        namespace: "",
        name: "",
      }),
    );
  } as never),
  celMethod("allowed", D, [], BOOL, function (this: Self) {
    return DECISION.payload(this).allowed;
  } as never),
  celMethod("reason", D, [], STRING, function (this: Self) {
    return DECISION.payload(this).reason;
  } as never),
  // The server's authorizer never fails a check: decisions carry no error.
  celMethod("errored", D, [], BOOL, function (this: Self) {
    DECISION.payload(this);
    return false;
  } as never),
  celMethod("error", D, [], STRING, function (this: Self) {
    DECISION.payload(this);
    return "";
  } as never),
];
