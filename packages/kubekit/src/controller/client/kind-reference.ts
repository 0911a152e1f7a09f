/**
 * How the Manager's cache-backed client and the controller builder are told which kind to
 * read or watch: a typed informer accessor of the informer factory (built-in kinds, typed),
 * or a resource (`GroupVersionResource`, or a `ResourceInfo` row) for any kind, custom
 * resources included, as unstructured objects.
 */
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
 * A {@link KindReference} of any object type: where the type does not matter (e.g. the
 * client's `uncached` kinds).
 */
export type AnyKindReference =
  ((informers: TypedInformerFactory) => unknown) | ResourceKind | ResourceInfo;

/** A kind as the cache and client use it: its resource, scope, kind and which factory serves it. */
export interface ResolvedKind extends InformerResource {
  /** The kind, when known (built-in resources, or given). */
  readonly kind: string | undefined;
  /** `true`: the typed factory (typed accessors); `false`: the unstructured one. */
  readonly typed: boolean;
  /** `typed:` or `dynamic:` then `group/version/resource`: one informer per key. */
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
  if (typeof kind === "function") {
    const resource = accessorResource(kind);
    const info = findBuiltinResource(resource.group, resource.version, resource.resource);
    return { ...resource, kind: info?.kind, typed: true, key: `typed:${gvrKey(resource)}` };
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
    key: `dynamic:${gvrKey(gvr)}`,
  };
}
