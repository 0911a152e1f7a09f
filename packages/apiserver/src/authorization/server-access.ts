/**
 * The access control `ApiServer.start` builds from its `auth` and `authorization` options, and
 * the bootstrap RBAC policy it stores when RBAC is on (kube-apiserver's `rbac/bootstrap-roles`
 * post-start hook, `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`).
 */
import type { Clock, JsonObject } from "kubekit";
import type { AuthenticationConfig, UserInfo } from "../auth/authentication.js";
import { ServiceAccountTokens } from "../auth/service-account-token/service-account-tokens.js";
import type { ServerContext } from "../server/server-context.js";
import type { Storage } from "../storage/storage.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { AccessControl } from "./access-control.js";
import { createAlwaysAllowAuthorizer } from "./always-allow-authorizer.js";
import { AUTHORIZATION_MODES, type AuthorizationMode } from "./authorizer.js";
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from "./bootstrap-policy.js";
import { createRbacAuthorizer } from "./rbac-authorizer.js";

/** The authentication options of `ApiServer.start` (its `auth`). */
export interface ServerAuthOptions {
  readonly tokens?: Readonly<Record<string, UserInfo | string>>;
  readonly clientCertificates?: boolean;
  readonly anonymous?: boolean;
}

/** What {@link createServerAccess} makes. */
export interface ServerAccess {
  readonly access: AccessControl;
  /** The first static token, which the kubeconfig carries (undefined without tokens). */
  readonly firstToken: string | undefined;
}

/**
 * Checks an `authorization` option: the mode, default AlwaysAllow.
 *
 * @throws {TypeError} naming the accepted modes for anything else.
 */
export function authorizationModeOf(value: unknown): AuthorizationMode {
  if (value === undefined) return "AlwaysAllow";
  if (typeof value === "string" && (AUTHORIZATION_MODES as readonly string[]).includes(value))
    return value as AuthorizationMode;
  throw new TypeError(
    `authorization must be one of ${AUTHORIZATION_MODES.join(", ")}, got ${JSON.stringify(value)}`,
  );
}

/**
 * Builds the access control of a server: authentication from `auth` (none without it; static
 * tokens, client certificates, service-account tokens, anonymous unless `anonymous: false`),
 * and the authorizer of `mode` (AlwaysAllow restricting anonymous requests to the public
 * paths when authentication is on and `anonymous` is not explicitly true, or RBAC).
 */
export function createServerAccess(
  storage: Storage,
  clock: Clock,
  auth: ServerAuthOptions | undefined,
  mode: AuthorizationMode,
): ServerAccess {
  const serviceAccountTokens = new ServiceAccountTokens(storage, clock);
  let authentication: AuthenticationConfig | undefined;
  let firstToken: string | undefined;
  if (auth) {
    const tokens: Record<string, UserInfo> = {};
    for (const [token, user] of Object.entries(auth.tokens ?? {})) {
      tokens[token] = typeof user === "string" ? { name: user, groups: [] } : user;
    }
    firstToken = Object.keys(tokens)[0];
    authentication = {
      ...(auth.tokens ? { tokens } : {}),
      ...(auth.clientCertificates ? { clientCertificates: true } : {}),
      ...(auth.anonymous !== undefined ? { anonymous: auth.anonymous } : {}),
      serviceAccountTokens,
    };
  }
  const authorizer =
    mode === "RBAC"
      ? createRbacAuthorizer(storage)
      : createAlwaysAllowAuthorizer({
          restrictAnonymous: authentication !== undefined && auth?.anonymous !== true,
        });
  return { access: { authentication, authorizer, serviceAccountTokens }, firstToken };
}

/** Stores the bootstrap ClusterRoles and ClusterRoleBindings (RBAC servers, at start). */
export function installBootstrapPolicy(ctx: ServerContext): void {
  const ops = new ResourceOperations(ctx);
  const create = (plural: string, obj: JsonObject): void => {
    const entry = ctx.registry.lookup("rbac.authorization.k8s.io", "v1", plural);
    if (!entry) return;
    ops.create(entry, "", obj, {
      dryRun: false,
      fieldManager: "kube-apiserver",
      fieldValidation: "Ignore",
      warnings: [],
    });
  };
  for (const role of bootstrapClusterRoles()) create("clusterroles", role);
  for (const binding of bootstrapClusterRoleBindings()) create("clusterrolebindings", binding);
}
