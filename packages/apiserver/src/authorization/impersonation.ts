/**
 * Impersonation (`kubectl --as`, `--as-group`, `--as-uid`), as kube-apiserver's
 * `staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`: the requesting user
 * must be allowed the `impersonate` verb on each requested user (or service account), group,
 * extra value and uid; the request then runs as the impersonated user, whose groups get
 * `system:authenticated` (or `system:unauthenticated` for `system:anonymous`).
 */
import type { IncomingMessage } from "node:http";
import { newInternalError } from "kubekit";
import {
  ANONYMOUS_USER_NAME,
  AUTHENTICATED_GROUP,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
} from "../auth/authentication.js";
import { serviceAccountGroups, splitServiceAccountUsername } from "../auth/service-account-user.js";
import type { AuthorizationAttributes } from "./authorization-attributes.js";
import type { Authorizer } from "./authorizer.js";
import { forbiddenError } from "./forbidden.js";

const USER_HEADER = "impersonate-user";
const UID_HEADER = "impersonate-uid";
const GROUP_HEADER = "impersonate-group";
const EXTRA_HEADER_PREFIX = "impersonate-extra-";

/** One thing to impersonate and the `impersonate` check it needs. */
interface ImpersonationCheck {
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** Whether the request carries any impersonation header. */
export function hasImpersonation(req: IncomingMessage): boolean {
  return Object.keys(req.headers).some(
    (h) =>
      h === USER_HEADER ||
      h === UID_HEADER ||
      h === GROUP_HEADER ||
      h.startsWith(EXTRA_HEADER_PREFIX),
  );
}

/**
 * The user a request runs as after its impersonation headers (removed from `req`), each
 * checked with `authorizer` for `requester`.
 *
 * @throws {StatusError} 403 Forbidden in kube's words for the first check not allowed; 500
 * when groups, extra or uid are asked without a user (kube's InternalError).
 */
export function impersonatedUser(
  req: IncomingMessage,
  requester: UserInfo,
  authorizer: Authorizer,
): UserInfo {
  const values = (header: string): string[] => req.headersDistinct[header] ?? [];
  const username = values(USER_HEADER)[0];
  const groups = values(GROUP_HEADER);
  const uid = values(UID_HEADER)[0];
  const extra: Record<string, string[]> = {};
  for (const header of Object.keys(req.headers)) {
    if (!header.startsWith(EXTRA_HEADER_PREFIX)) continue;
    const key = safeDecode(header.slice(EXTRA_HEADER_PREFIX.length));
    extra[key] = values(header);
  }
  for (const header of Object.keys(req.headers))
    if (
      header === USER_HEADER ||
      header === UID_HEADER ||
      header === GROUP_HEADER ||
      header.startsWith(EXTRA_HEADER_PREFIX)
    )
      delete req.headers[header];
  if (username === undefined) {
    throw newInternalError(
      "requested impersonation of groups, extra or uid without impersonating a user",
    );
  }
  const serviceAccount = splitServiceAccountUsername(username);
  const checks: ImpersonationCheck[] = [
    serviceAccount
      ? {
          apiGroup: "",
          resource: "serviceaccounts",
          subresource: "",
          namespace: serviceAccount.namespace,
          name: serviceAccount.name,
        }
      : { apiGroup: "", resource: "users", subresource: "", namespace: "", name: username },
    ...groups.map((name) => ({
      apiGroup: "",
      resource: "groups",
      subresource: "",
      namespace: "",
      name,
    })),
    ...Object.entries(extra).flatMap(([key, vals]) =>
      vals.map((name) => ({
        apiGroup: "authentication.k8s.io",
        resource: "userextras",
        subresource: key,
        namespace: "",
        name,
      })),
    ),
    ...(uid === undefined
      ? []
      : [
          {
            apiGroup: "authentication.k8s.io",
            resource: "uids",
            subresource: "",
            namespace: "",
            name: uid,
          },
        ]),
  ];
  for (const check of checks) {
    const attributes: AuthorizationAttributes = {
      user: requester,
      verb: "impersonate",
      resourceRequest: true,
      path: "",
      apiVersion: "",
      ...check,
    };
    const decision = authorizer.authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  }
  return {
    name: username,
    groups: impersonatedGroups(username, groups, serviceAccount?.namespace),
    ...(uid === undefined ? {} : { uid }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  };
}

/** The impersonated user's groups: the asked ones (a service account's when none), plus kube's. */
function impersonatedGroups(
  username: string,
  asked: readonly string[],
  serviceAccountNamespace: string | undefined,
): string[] {
  const groups =
    asked.length === 0 && serviceAccountNamespace !== undefined
      ? serviceAccountGroups(serviceAccountNamespace)
      : [...asked];
  if (username === ANONYMOUS_USER_NAME) {
    if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  } else if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(AUTHENTICATED_GROUP);
  }
  return groups;
}

/** The extra key of a header name: percent-decoded (kube's unescapeExtraKey), kept as is when malformed. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
