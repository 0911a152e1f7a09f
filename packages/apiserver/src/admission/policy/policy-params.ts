/**
 * The params of a (policy, binding) pair, read from storage (kube's `CollectParams` in
 * `k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go` and the paramKind
 * resolution of `policy_source.go`): a policy without `paramKind`, or a binding without
 * `paramRef`, evaluates once with `params` null; `paramRef.name` reads one object, `selector`
 * every matching one (one evaluation each); a namespaced param kind is read from
 * `paramRef.namespace`, else from the request's namespace. No param found with
 * `parameterNotFoundAction: Deny` is a configuration error; with `Allow` nothing is evaluated.
 * Params may be of any served kind: ConfigMaps, custom resources, ….
 */
import { LabelSelector, type JsonObject, type LabelSelectorSpec } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { ServedResource } from "../../registry/served-resource.js";
import { storageIdOf } from "../../registry/registry.js";
import type { ServerContext } from "../../server/server-context.js";
import type { ParamKind } from "./compiled-policy.js";

/** The resolved params, or the configuration error (kube's wording, without its prefix). */
export type ParamsResult =
  | { readonly ok: true; readonly params: readonly (JsonObject | null)[] }
  | { readonly ok: false; readonly error: string };

/** The served resource of `paramKind`, or kube's configuration error text when none serves it. */
export function resolveParamKind(
  ctx: ServerContext,
  paramKind: ParamKind,
): { readonly resource: ServedResource } | { readonly error: string } {
  const slash = paramKind.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : paramKind.apiVersion.slice(0, slash);
  const version = slash < 0 ? paramKind.apiVersion : paramKind.apiVersion.slice(slash + 1);
  const served = ctx.registry
    .servedGroups()
    .find((g) => g.name === group)
    ?.versions.find((v) => v.version === version)
    ?.resources.find((r) => r.kind === paramKind.kind);
  if (served) return { resource: served };
  return {
    error: `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${paramKind.kind}'`,
  };
}

function withTypeMeta(obj: JsonObject, paramKind: ParamKind): JsonObject {
  return { ...obj, apiVersion: paramKind.apiVersion, kind: paramKind.kind };
}

function readParams(
  ctx: ServerContext,
  resource: ServedResource,
  paramRef: JsonObject,
  namespace: string,
): JsonObject[] | string {
  const storageId = storageIdOf(resource);
  const name = paramRef["name"];
  const prefix = resource.namespaced ? `${namespace}/` : "";
  if (typeof name === "string" && name !== "") {
    const obj = ctx.storage.get(storageId, `${prefix}${name}`);
    return obj ? [obj] : [];
  }
  const selectorSpec = paramRef["selector"];
  if (!isJsonObject(selectorSpec)) return "one of name or selector must be provided";
  let selector: LabelSelector;
  try {
    selector = LabelSelector.fromLabelSelector(selectorSpec as unknown as LabelSelectorSpec);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const all = resource.namespaced
    ? ctx.storage.withPrefix(storageId, prefix)
    : ctx.storage.current(storageId);
  const out: JsonObject[] = [];
  for (const [, obj] of all) {
    const labels = (obj["metadata"] as JsonObject | undefined)?.["labels"];
    if (selector.matches(isJsonObject(labels) ? (labels as Record<string, string>) : {}))
      out.push(obj);
  }
  return out;
}

/**
 * The params to evaluate a policy with for one binding and a request in `requestNamespace`
 * (see the module comment). `resource` is the resolved paramKind.
 */
export function collectParams(
  ctx: ServerContext,
  paramKind: ParamKind | undefined,
  resource: ServedResource | undefined,
  paramRef: JsonObject | undefined,
  requestNamespace: string,
): ParamsResult {
  if (!paramKind || !resource || !paramRef) return { ok: true, params: [null] };
  const refNamespace = typeof paramRef["namespace"] === "string" ? paramRef["namespace"] : "";
  let namespace = "";
  if (resource.namespaced) {
    namespace = refNamespace || requestNamespace;
    if (namespace === "") {
      return {
        ok: false,
        error:
          "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      };
    }
  } else if (refNamespace !== "") {
    return {
      ok: false,
      error: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    };
  }
  const found = readParams(ctx, resource, paramRef, namespace);
  if (typeof found === "string") return { ok: false, error: found };
  if (found.length === 0 && paramRef["parameterNotFoundAction"] === "Deny") {
    return {
      ok: false,
      error: "no params found for policy binding with `Deny` parameterNotFoundAction",
    };
  }
  return { ok: true, params: found.map((p) => withTypeMeta(p, paramKind)) };
}
