/**
 * The typed accessors of a lazy (metadata-first) informer factory: the generated accessors
 * of every built-in resource, with each object type `T` read as `LazyObject<T>` (issue 24 §2).
 */
import type { LazyObject } from "../cache/lazy-object.js";
import type { NamespaceLister } from "../cache/lister.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { BaseInformerFactory, InformerFactorySettings } from "./base-informer-factory.js";
import { TypedInformerFactory } from "./generated/typed-informers.js";
import type { ResourceInformer } from "./resource-informer.js";

/**
 * The typed lister `L` of objects `T` (e.g. `CoreV1PodLister`) over a lazy informer's cache:
 * the same methods (`list(selector)`, `namespace(ns)`, `pods(ns)`, `get(name)`), handing out
 * `LazyObject<T>`s (a method returning a `NamespaceLister<T>`, `T[]` or `T` returns the
 * same of `LazyObject<T>`). Selection runs on metadata; no body is parsed by a lister.
 */
export type LazyLister<L, T> = {
  readonly [K in keyof L]: L[K] extends (...args: infer A) => infer R
    ? (
        ...args: A
      ) => R extends NamespaceLister<T>
        ? NamespaceLister<LazyObject<T>>
        : R extends T[]
          ? LazyObject<T>[]
          : R extends T
            ? LazyObject<T>
            : R
    : L[K];
};

/** A typed accessor's informer and lister, over `LazyObject`s of its object type. */
export type LazyResourceInformer<R> =
  R extends ResourceInformer<infer T, infer L>
    ? ResourceInformer<LazyObject<T>, LazyLister<L, T>>
    : never;

/** The accessors of one group version (`CoreV1Informers`) of a lazy factory. */
export type LazyGroupInformers<G> = {
  readonly [K in keyof G]: G[K] extends () => infer R ? () => LazyResourceInformer<R> : G[K];
};

/** The names of the typed factory's group version accessors: `coreV1`, `appsV1`, ... */
export type TypedInformerGroup = Exclude<
  keyof TypedInformerFactory,
  keyof BaseInformerFactory<ObjectWithMetadata>
>;

/**
 * A lazy factory with the typed accessors of every built-in resource:
 * `factory.coreV1.pods()` is a `ResourceInformer<LazyObject<Pod>, LazyLister<CoreV1PodLister, Pod>>`,
 * besides the factory's `start`, `waitForCacheSync`, `shutdown` and `informerFor`.
 */
export type LazyTypedInformerFactory = BaseInformerFactory<LazyObject<ObjectWithMetadata>> & {
  // Mapped over the typed factory's own keys, so that each group keeps its documentation.
  readonly [G in keyof Pick<TypedInformerFactory, TypedInformerGroup>]: LazyGroupInformers<
    TypedInformerFactory[G]
  >;
};

/**
 * The base class of `LazySharedInformerFactory`: the generated typed factory, whose
 * accessors ask `informerFor` for their informers, over settings whose ListerWatchers hand
 * out `LazyObject`s, typed as what it then holds. Build a `LazySharedInformerFactory`
 * rather than this.
 */
export const LazyTypedInformerFactory = TypedInformerFactory as unknown as new (
  settings: InformerFactorySettings<LazyObject<ObjectWithMetadata>>,
) => LazyTypedInformerFactory;
