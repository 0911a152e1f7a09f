/**
 * Who a request is and whether it may do what it asks: kube-apiserver's authentication,
 * impersonation and authorization filters
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/{authentication,impersonation,authorization}.go`),
 * in that order, for the plain handler and the streaming upgrades alike.
 */
import type { IncomingMessage } from "node:http";
import {
  ANONYMOUS_USER,
  authenticateRequest,
  type AuthenticationConfig,
  type UserInfo,
} from "../auth/authentication.js";
import { ServiceAccountTokens } from "../auth/service-account-token/service-account-tokens.js";
import type { RequestInfo } from "../endpoints/request-info.js";
import type { Clock } from "kubekit";
import type { Storage } from "../storage/storage.js";
import { createAlwaysAllowAuthorizer } from "./always-allow-authorizer.js";
import { requestAttributes } from "./authorization-attributes.js";
import type { Authorizer } from "./authorizer.js";
import { forbiddenError } from "./forbidden.js";
import { hasImpersonation, impersonatedUser } from "./impersonation.js";

/** The authentication and authorization of one server. */
export interface AccessControl {
  /** Undefined: no authentication, every request is anonymous. */
  readonly authentication: AuthenticationConfig | undefined;
  readonly authorizer: Authorizer;
  /** The server's service-account token issuer and authenticator. */
  readonly serviceAccountTokens: ServiceAccountTokens;
}

/** What a default access control needs of a server context. */
interface ContextParts {
  readonly storage: Storage;
  readonly clock: Clock;
}

const defaults = new WeakMap<ContextParts, AccessControl>();

/**
 * The access control of a context built without one: no authentication, AlwaysAllow, and
 * service-account tokens of its own (one per context).
 */
export function defaultAccessControl(ctx: ContextParts): AccessControl {
  let access = defaults.get(ctx);
  if (!access) {
    access = {
      authentication: undefined,
      authorizer: createAlwaysAllowAuthorizer({ restrictAnonymous: false }),
      serviceAccountTokens: new ServiceAccountTokens(ctx.storage, ctx.clock),
    };
    defaults.set(ctx, access);
  }
  return access;
}

/**
 * Authenticates, impersonates and authorizes a request: the user it runs as, or "unauthorized"
 * (answer 401) when authentication fails.
 *
 * `path` is the request path as sent (non-resource requests are authorized on it); `info` the
 * parsed request info (undefined for a path that can only be a 404: authorized as a path).
 * `publicPath`: a health path, readable without credentials even when anonymous access is off.
 *
 * @throws {StatusError} 403 Forbidden (kube's wording) when the authorizer does not allow the
 * request or an impersonation; 500 for impersonation headers without a user.
 */
export function admitRequest(
  access: AccessControl,
  req: IncomingMessage,
  path: string,
  info: RequestInfo | undefined,
  publicPath: boolean,
): UserInfo | "unauthorized" {
  let user: UserInfo = ANONYMOUS_USER;
  if (access.authentication) {
    const config = publicPath
      ? { ...access.authentication, anonymous: true }
      : access.authentication;
    const result = authenticateRequest(req, config);
    if (!result.ok) return "unauthorized";
    user = result.user;
  }
  if (hasImpersonation(req)) user = impersonatedUser(req, user, access.authorizer);
  const attributes = requestAttributes(user, req.method ?? "GET", path, info);
  const decision = access.authorizer.authorize(attributes);
  if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  return user;
}
