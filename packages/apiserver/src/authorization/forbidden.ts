/**
 * The 403 Forbidden of a request the authorizer did not allow, worded as kube-apiserver's
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go` Forbidden
 * and forbiddenMessage word it, wrapped by `apierrors.NewForbidden`:
 * `pods "web" is forbidden: User "jane" cannot get resource "pods" in API group "" in the
 * namespace "default"`, `nodes is forbidden: User "jane" cannot list resource "nodes" in API
 * group "" at the cluster scope`, `forbidden: User "system:anonymous" cannot get path "/api"`,
 * with `: <reason>` appended when the authorizer gave one.
 */
import { newForbidden, type StatusError } from "kubekit";
import { quoteGo } from "kubekit/apimachinery";
import type { AuthorizationAttributes } from "./authorization-attributes.js";

/** kube's forbiddenMessage for `attributes`. */
export function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const user = quoteGo(attributes.user.name);
  if (!attributes.resourceRequest)
    return `User ${user} cannot ${attributes.verb} path ${quoteGo(attributes.path)}`;
  const resource =
    attributes.subresource === ""
      ? attributes.resource
      : `${attributes.resource}/${attributes.subresource}`;
  const what = `User ${user} cannot ${attributes.verb} resource ${quoteGo(resource)} in API group ${quoteGo(attributes.apiGroup)}`;
  return attributes.namespace === ""
    ? `${what} at the cluster scope`
    : `${what} in the namespace ${quoteGo(attributes.namespace)}`;
}

/** kube's sanitizer: a message never looks like HTML (`&`, `<`, `>` escaped). */
function sanitize(message: string): string {
  return message.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The 403 StatusError kube-apiserver answers for a request the authorizer did not allow. */
export function forbiddenError(attributes: AuthorizationAttributes, reason: string): StatusError {
  const message = sanitize(forbiddenMessage(attributes));
  return newForbidden(
    { group: attributes.apiGroup, resource: attributes.resource },
    attributes.name,
    reason === "" ? message : `${message}: ${reason}`,
  );
}
