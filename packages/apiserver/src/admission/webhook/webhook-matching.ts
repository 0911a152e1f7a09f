/**
 * Whether a webhook is called for a request, and as which resource (kube's
 * `generic.Webhook.ShouldCallHook`, `staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go`,
 * with the predicates of `predicates/namespace`, `predicates/object`, `predicates/rules`):
 * `namespaceSelector` against the request namespace's labels (a Namespace's own labels on
 * its create and update), `objectSelector` against the new or the old object's labels,
 * `rules` against the requested resource, then — `matchPolicy: Equivalent` — against the
 * other versions and groups serving the same objects; finally `matchConditions`.
 */
import { newInternalError, newForbidden, newNotFound, type JsonObject } from "kubekit";
import { labelsOf } from "kubekit/apimachinery";
import { NAMESPACE_STORAGE_ID } from "../../kinds/namespace.js";
import type { ResourceEntry } from "../../registry/registry.js";
import { groupResource } from "../../registry/served-entry.js";
import type { ServerContext } from "../../server/server-context.js";
import type { AdmissionAttributes } from "../admission-attributes.js";
import { ruleMatches } from "../policy/match-resources.js";
import type { CompiledWebhook } from "./compiled-webhook.js";
import { evaluateMatchConditions } from "./match-conditions.js";

/** The resource (and its kind) a webhook is called as: the request's, or an equivalent one. */
export interface WebhookInvocation {
  readonly webhook: CompiledWebhook;
  /** The entry the webhook matched: the request's, or an equivalent version or group. */
  readonly entry: ResourceEntry;
  /** The kind of the object sent (a subresource's own kind, e.g. autoscaling/v1 Scale). */
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
}

/** Whether `attrs` is about a Namespace object itself (its name is the request's namespace). */
export function isNamespaceRequest(attrs: AdmissionAttributes): boolean {
  return attrs.entry.storageId === NAMESPACE_STORAGE_ID && !attrs.entry.info.custom;
}

/**
 * The namespace a request is in, as kube's attributes carry it: a request on a Namespace
 * object (`/api/v1/namespaces/NAME`) is in that namespace; its create (on the collection) in none.
 */
export function requestNamespace(attrs: AdmissionAttributes): string {
  if (!isNamespaceRequest(attrs)) return attrs.namespace;
  return attrs.operation === "CREATE" ? "" : attrs.name;
}

/** The kind of the object a request on `entry` carries (a subresource's own kind). */
export function objectKindOf(entry: ResourceEntry, subresource: string): WebhookInvocation["kind"] {
  const info = entry.info;
  const sub =
    subresource === "" ? undefined : info.subresources.find((s) => s.name === subresource);
  if (sub) return { group: sub.group, version: sub.version, kind: sub.kind };
  return { group: info.group, version: info.version, kind: info.kind };
}

function matchesAs(
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
  entry: ResourceEntry,
): boolean {
  const as = { group: entry.info.group, version: entry.info.version, resource: entry.info.plural };
  const scoped = { ...attrs, namespace: requestNamespace(attrs) };
  return hook.rules.some((rule) => ruleMatches(rule, scoped, as));
}

/**
 * The entry a webhook's rules match `attrs` as: the request's own, or (matchPolicy
 * Equivalent, earlier rules first) another version or group of the same storage.
 */
export function matchingEntry(
  ctx: ServerContext,
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
): ResourceEntry | undefined {
  if (matchesAs(hook, attrs, attrs.entry)) return attrs.entry;
  if (hook.matchPolicy !== "Equivalent") return undefined;
  const equivalents = ctx.registry
    .entriesFor(attrs.entry.storageId)
    .filter((e) => e !== attrs.entry && e.info.plural === attrs.entry.info.plural);
  for (const rule of hook.rules) {
    for (const entry of equivalents) {
      const as = {
        group: entry.info.group,
        version: entry.info.version,
        resource: entry.info.plural,
      };
      if (ruleMatches(rule, { ...attrs, namespace: requestNamespace(attrs) }, as)) return entry;
    }
  }
  return undefined;
}

/** Whether the namespace selector admits the request (throws kube's 404 when the namespace is missing). */
function namespaceMatches(
  ctx: ServerContext,
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
): boolean {
  const namespace = requestNamespace(attrs);
  // Cluster-scoped resources other than Namespaces are never exempted by the selector.
  if (namespace === "" && !isNamespaceRequest(attrs)) return true;
  const selector = hook.namespaceSelector;
  if (!selector || selector.isEmpty()) return true;
  const own = isNamespaceRequest(attrs) && attrs.subresource === "";
  if (own && (attrs.operation === "CREATE" || attrs.operation === "UPDATE")) {
    return selector.matches(labelsOf(attrs.object ?? {}));
  }
  const ns = ctx.storage.get(NAMESPACE_STORAGE_ID, namespace);
  if (!ns) throw newNotFound({ group: "", resource: "namespaces" }, namespace);
  return selector.matches(labelsOf(ns));
}

/** Whether the object selector admits the new or the old object. */
function objectMatches(hook: CompiledWebhook, attrs: AdmissionAttributes): boolean {
  const selector = hook.objectSelector;
  if (!selector || selector.isEmpty()) return true;
  const matches = (obj: JsonObject | undefined): boolean =>
    obj !== undefined && selector.matches(labelsOf(obj));
  return matches(attrs.object) || matches(attrs.oldObject);
}

/**
 * The invocation of `hook` for `attrs`, or undefined when it does not apply. Throws kube's
 * errors: a malformed selector (500), a missing namespace (404), matchConditions that fail
 * under failurePolicy Fail (403 Forbidden).
 */
export function shouldCallWebhook(
  ctx: ServerContext,
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
  requestOf: (invocation: WebhookInvocation) => JsonObject,
): WebhookInvocation | undefined {
  const entry = matchingEntry(ctx, hook, attrs);
  if (!entry) return undefined;
  if (hook.selectorError !== undefined) throw newInternalError(hook.selectorError);
  if (!namespaceMatches(ctx, hook, attrs) || !objectMatches(hook, attrs)) return undefined;
  const invocation = { webhook: hook, entry, kind: objectKindOf(entry, attrs.subresource) };
  if (hook.matchConditions.conditions.length === 0) return invocation;
  const outcome = evaluateMatchConditions(hook.matchConditions, {
    object: attrs.object,
    oldObject: attrs.oldObject,
    request: requestOf(invocation),
  });
  if ("error" in outcome) throw newForbidden(groupResource(attrs.entry), attrs.name, outcome.error);
  return outcome.matches ? invocation : undefined;
}
