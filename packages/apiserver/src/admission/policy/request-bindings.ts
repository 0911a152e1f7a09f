/**
 * What a policy's expressions are bound to for one request (kube's `CreateAdmissionRequest`,
 * `CreateNamespaceObject` and the authorizer variables of
 * `k8s.io/apiserver/pkg/admission/plugin/cel/`): `object` and `oldObject` (at the version the
 * policy matched), `request`, `namespaceObject`, `authorizer` and `authorizer.requestResource`.
 * `params` is bound per param by the plugin.
 */
import type { CelInput } from "@bufbuild/cel";
import type { JsonObject } from "kubekit";
import { metadataOf } from "kubekit/apimachinery";
import {
  authorizerValue,
  type CelAuthorize,
  requestResourceValue,
} from "../../apiextensions/cel/library/authz.js";
import type { UserInfo } from "../../auth/authentication.js";
import { NAMESPACE_STORAGE_ID } from "../../kinds/namespace.js";
import type { ServerContext } from "../../server/server-context.js";
import type { AdmissionAttributes } from "../admission-attributes.js";
import type { MatchedResource } from "./match-resources.js";
import { policyInput, requestInput } from "./policy-cel.js";
import type { PolicyBindings } from "./policy-evaluation.js";

/** The request kind (the subresource's object kind for a subresource write). */
function requestKind(attrs: AdmissionAttributes): { group: string; version: string; kind: string } {
  const info = attrs.entry.info;
  const sub = info.subresources.find((s) => s.name === attrs.subresource);
  if (attrs.subresource !== "" && sub)
    return { group: sub.group, version: sub.version, kind: sub.kind };
  return { group: info.group, version: info.version, kind: info.kind };
}

/** kube's `CreateAdmissionRequest` (no uid, object or oldObject: those are bound separately). */
function admissionRequest(attrs: AdmissionAttributes, matched: MatchedResource): JsonObject {
  const info = attrs.entry.info;
  const kind = requestKind(attrs);
  const sameKind = matched.group === info.group && matched.version === info.version;
  return {
    kind: sameKind ? kind : { group: matched.group, version: matched.version, kind: matched.kind },
    resource: { group: matched.group, version: matched.version, resource: matched.resource },
    subResource: attrs.subresource,
    requestKind: kind,
    requestResource: { group: info.group, version: info.version, resource: info.plural },
    requestSubResource: attrs.subresource,
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo: {
      username: attrs.userInfo.name,
      ...(attrs.userInfo.uid ? { uid: attrs.userInfo.uid } : {}),
      groups: [...attrs.userInfo.groups],
    },
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
}

/**
 * The object at the version of the resource the policy matched (`matchPolicy: Equivalent`):
 * built-in equivalents and custom resources without conversion differ by `apiVersion` only.
 */
function versioned(
  obj: JsonObject | undefined,
  attrs: AdmissionAttributes,
  matched: MatchedResource,
): JsonObject | undefined {
  const info = attrs.entry.info;
  if (!obj || attrs.subresource !== "") return obj;
  if (matched.group === info.group && matched.version === info.version) return obj;
  return {
    ...obj,
    apiVersion: matched.group ? `${matched.group}/${matched.version}` : matched.version,
  };
}

const NAMESPACE_META_FIELDS = [
  "name",
  "generateName",
  "namespace",
  "labels",
  "annotations",
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "ownerReferences",
];

/** kube's `CreateNamespaceObject`: the request's Namespace with selected metadata, spec and status. */
function namespaceObject(ctx: ServerContext, attrs: AdmissionAttributes): JsonObject | undefined {
  if (attrs.namespace === "" || attrs.entry.storageId === NAMESPACE_STORAGE_ID) return undefined;
  const ns = ctx.storage.get(NAMESPACE_STORAGE_ID, attrs.namespace);
  if (!ns) return undefined;
  const meta = metadataOf(ns) ?? {};
  const metadata: JsonObject = {};
  for (const key of NAMESPACE_META_FIELDS) if (meta[key] !== undefined) metadata[key] = meta[key];
  return {
    metadata,
    ...(ns["spec"] !== undefined ? { spec: ns["spec"] } : {}),
    ...(ns["status"] !== undefined ? { status: ns["status"] } : {}),
  };
}

/**
 * The checks of `authorizer`: the server's authorizer (RBAC or AlwaysAllow, as the server was
 * started); a context without access control allows everything.
 */
function authorizeFor(ctx: ServerContext): CelAuthorize {
  const authorizer = ctx.access?.authorizer;
  if (!authorizer) return () => ({ allowed: true, reason: "" });
  // The request's user is the request's UserInfo itself; a serviceAccount() user is built whole.
  return (a) => authorizer.authorize({ ...a, user: a.user as UserInfo });
}

/** `authorizer` and `authorizer.requestResource` for `attrs`. */
function authorizerBindings(
  ctx: ServerContext,
  attrs: AdmissionAttributes,
): { authorizer: CelInput; requestResource: CelInput } {
  const authorize = authorizeFor(ctx);
  const info = attrs.entry.info;
  return {
    authorizer: authorizerValue(authorize, attrs.userInfo) as CelInput,
    requestResource: requestResourceValue(authorize, attrs.userInfo, {
      group: info.group,
      resource: info.plural,
      subresource: attrs.subresource,
      namespace: attrs.namespace,
      name: attrs.name,
    }) as CelInput,
  };
}

/**
 * The bindings of every expression of a policy for `attrs`, matched as `matched`; `params` is
 * null (the plugin binds each param).
 */
export function requestBindings(
  ctx: ServerContext,
  attrs: AdmissionAttributes,
  matched: MatchedResource,
): PolicyBindings {
  return {
    object: policyInput(versioned(attrs.object, attrs, matched)),
    oldObject: policyInput(versioned(attrs.oldObject, attrs, matched)),
    request: requestInput(admissionRequest(attrs, matched)),
    namespaceObject: policyInput(namespaceObject(ctx, attrs)),
    params: null,
    ...authorizerBindings(ctx, attrs),
  };
}
