/**
 * How the Manager's cache-backed client and the controller builder are told which kind to
 * read or watch: a typed informer accessor of the informer factory (built-in kinds, typed),
 * or a resource (`GroupVersionResource`, or a `ResourceInfo` row) for any kind, custom
 * resources included, as unstructured objects.
 */
import type { KubeObject } from "../../client/kube-object.js";
import type { GroupVersionResource } from "../../core/gvk.js";
import { findBuiltinResource } from "../../core/resource-table.js";
import type { ResourceInfo } from "../../core/resource-table.js";
import { TypedInformerFactory } from "../../informers/generated/typed-informers.js";
import { gvrKey } from "../../informers/gvr-key.js";
import { informerResourceOf } from "../../informers/informer-resource-of.js";
import type { InformerResource, ResourceInformer } from "../../informers/resource-informer.js";

/**
 * A typed accessor of an informer factory, naming a built-in kind with its object type:
 * `(informers) => informers.appsV1.deployments()`. It is called on the Manager's own
 * factory (and, to learn the resource, on a probe that creates nothing).
 */
export type InformerAccessor<T> = (informers: TypedInformerFactory) => ResourceInformer<T, unknown>;

/**
 * A resource named by group, version and plural (`resource`), read as unstructured
 * {@link KubeObject}s: custom resources, or built-in ones without their typed accessor.
 * `kind` is needed to watch objects it owns (the builder's `owns`), and `namespaced: false`
 * for a cluster-scoped custom resource (built-in resources know their scope).
 */
export interface ResourceKind extends GroupVersionResource {
  /** The kind (`Website`); built-in resources know theirs. */
  readonly kind?: string;
  /** Whether objects live in namespaces (default: the built-in table's, else true). */
  readonly namespaced?: boolean;
}

/**
 * What names a kind to {@link CachedClient.resource} and to the controller builder: a typed
 * informer accessor (`(i) => i.coreV1.configMaps()`, objects typed as the accessor's), a
 * {@link ResourceKind} (`{ group, version, resource, kind }`), or a `ResourceInfo` row of
 * the built-in resource table (both read as unstructured objects).
 */
export type KindReference<T> = InformerAccessor<T> | ResourceKind | ResourceInfo;

/**
 * A kind whose informer in the Manager's cache is lazy (metadata-first, issue 24 §2): made by
 * {@link lazyKind}. The informer holds `LazyObject<T>`s (metadata read at once, the body
 * parsed on first `object()`), so the builder's predicates and handlers of it see
 * `LazyObject<T>`, `mgr.client.informer(lazyKind(...))` is a
 * `SharedIndexInformer<LazyObject<T>>`, and `mgr.client.resource(lazyKind(...))` reads `T`s,
 * parsing only the objects it returns.
 */
export interface LazyKind<T> {
  /** The kind, named as it would be without laziness. */
  readonly lazyOf: KindReference<T>;
}

/**
 * `kind` with a lazy informer in the Manager's cache: one informer per resource, shared by
 * every `lazyKind` naming it (typed accessor or resource), besides the eager informer the
 * plain name gets. A read of the plain name (`mgr.client.resource(kind)`) is served by the
 * lazy informer when only that one exists, so a controller that watches a kind lazily and
 * reads it by its plain name keeps one informer of it (and parses what it reads).
 *
 * @example
 * ```ts
 * import { KubeConfig, Manager, lazyKind, signalHandler, splitKey } from "kubekit";
 *
 * const mgr = new Manager({ kubeConfig: await KubeConfig.load() });
 * const pods = lazyKind((i) => i.coreV1.pods());
 * mgr
 *   .controller("replica-sets")
 *   .for((i) => i.appsV1.replicaSets())
 *   .owns(pods) // every pod is watched; the watch parses none
 *   .complete(async (key, signal) => {
 *     const { namespace, name } = splitKey(key);
 *     const owned = await mgr.client
 *       .resource(pods, namespace)
 *       .list({ labelSelector: `app=${name}`, signal }); // parses the pods returned
 *     console.log(key, owned.items.map((pod) => pod.status?.phase));
 *   });
 * await mgr.start(signalHandler());
 * ```
 */
export function lazyKind<T>(kind: InformerAccessor<T>): LazyKind<T>;
export function lazyKind<T extends object = KubeObject>(
  kind: ResourceKind | ResourceInfo,
): LazyKind<T>;
export function lazyKind<T>(kind: KindReference<T>): LazyKind<T> {
  return Object.freeze({ lazyOf: kind });
}

/**
 * A {@link KindReference} of any object type: where the type does not matter (e.g. the
 * client's `uncached` kinds).
 */
export type AnyKindReference =
  | ((informers: TypedInformerFactory) => unknown)
  | ResourceKind
  | ResourceInfo
  | {
      readonly lazyOf: ((informers: TypedInformerFactory) => unknown) | ResourceKind | ResourceInfo;
    };

/** A kind as the cache and client use it: its resource, scope, kind and which factory serves it. */
export interface ResolvedKind extends InformerResource {
  /** The kind, when known (built-in resources, or given). */
  readonly kind: string | undefined;
  /** `true`: the typed factory (typed accessors); `false`: the unstructured one. */
  readonly typed: boolean;
  /** Whether the kind was named with {@link lazyKind}: its informer holds `LazyObject`s. */
  readonly lazy: boolean;
  /**
   * `typed:`, `dynamic:` or `lazy:` then `group/version/resource`: one informer per key (a
   * lazy kind's objects are the same however it is named).
   */
  readonly key: string;
}

/** Thrown by the probe's `informerFor` to stop the accessor once the resource is known. */
const PROBE_STOP = Symbol("kind probe");

/**
 * A factory whose `informerFor` records the resource it is asked for and creates nothing,
 * so that an accessor can name its resource without creating an informer anywhere.
 */
class KindProbe extends TypedInformerFactory {
  requested: InformerResource | undefined;

  constructor() {
    super({
      newListerWatcher: () => {
        throw new Error("a kind probe never lists");
      },
    });
  }

  override informerFor(resource: InformerResource): never {
    this.requested = resource;
    throw PROBE_STOP;
  }
}

let probe: KindProbe | undefined;

/** The resource a typed informer accessor names, without creating an informer. */
function accessorResource(
  accessor: (informers: TypedInformerFactory) => unknown,
): InformerResource {
  probe ??= new KindProbe();
  probe.requested = undefined;
  try {
    accessor(probe);
  } catch (error) {
    if (error !== PROBE_STOP) throw error;
  }
  const requested = probe.requested;
  if (requested === undefined) {
    throw new TypeError(
      "the informer accessor did not ask its factory for an informer: pass e.g. (informers) => informers.appsV1.deployments()",
    );
  }
  return requested;
}

/**
 * `kind` resolved to its resource, scope and kind name.
 *
 * @throws {TypeError} when an accessor asks for no informer, or a resource's version or
 *   plural is empty or contains `/`.
 */
export function resolveKind(kind: AnyKindReference): ResolvedKind {
  if (typeof kind === "object" && "lazyOf" in kind) {
    const eager = resolveKind(kind.lazyOf);
    return { ...eager, lazy: true, key: `lazy:${gvrKey(eager)}` };
  }
  if (typeof kind === "function") {
    const resource = accessorResource(kind);
    const info = findBuiltinResource(resource.group, resource.version, resource.resource);
    return {
      ...resource,
      kind: info?.kind,
      typed: true,
      lazy: false,
      key: `typed:${gvrKey(resource)}`,
    };
  }
  const gvr: GroupVersionResource =
    "plural" in kind
      ? { group: kind.group, version: kind.version, resource: kind.plural }
      : { group: kind.group, version: kind.version, resource: kind.resource };
  const scoped = informerResourceOf(gvr);
  const info = findBuiltinResource(gvr.group, gvr.version, gvr.resource);
  return {
    ...scoped,
    namespaced: kind.namespaced ?? scoped.namespaced,
    kind: kind.kind ?? info?.kind,
    typed: false,
    lazy: false,
    key: `dynamic:${gvrKey(gvr)}`,
  };
}
