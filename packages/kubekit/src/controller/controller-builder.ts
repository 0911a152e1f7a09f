/**
 * The controller builder (controller-runtime's `pkg/builder/controller.go`):
 * `mgr.controller(name).for(kind).owns(kind).watches(source, handler).complete(reconcile)`,
 * with every informer taken from the Manager's cache, so that none is forgotten.
 */
import type { KubeObject, ObjectWithMetadata } from "../client/kube-object.js";
import type { ResourceInfo } from "../core/resource-table.js";
import type { InformerCache } from "./client/informer-cache.js";
import type { LazyObject } from "../cache/lazy-object.js";
import type {
  InformerAccessor,
  KindReference,
  LazyKind,
  ResolvedKind,
  ResourceKind,
} from "./client/kind-reference.js";
import { resolveKind } from "./client/kind-reference.js";
import type { ControllerOptions, ControllerWatchOptions } from "./controller.js";
import { Controller } from "./controller.js";
import type { MapFunc } from "./handler/enqueue-handler.js";
import type { MetadataView } from "./handler/metadata-view.js";
import type { Predicate } from "./handler/predicate.js";
import type { Reconciler } from "./reconciler.js";
import type { WatchedInformer } from "./source/kind-source.js";
import type { Source } from "./source/source.js";

/** The controller settings a builder's `withOptions` takes: all but the name and reconciler. */
export type ControllerBuilderOptions = Omit<ControllerOptions, "name" | "reconcile">;

/** Filters of one `for` or `owns` watch (controller-runtime's `builder.WithPredicates`). */
export interface BuilderWatchOptions<T> {
  /** All must let a notification through, after the builder's event filters. */
  readonly predicates?: readonly Predicate<T>[];
}

/** Options of `owns`: filters, and which owner references count. */
export interface BuilderOwnsOptions<T> extends BuilderWatchOptions<T> {
  /**
   * Only the controller reference (`controller: true`) enqueues its owner (default true,
   * controller-runtime's `Owns`); `false`: every owner reference of the `for` kind
   * (`builder.MatchEveryOwner`).
   */
  readonly onlyController?: boolean;
}

/** What a builder needs of its Manager: the informer cache and a way to add the controller. */
export interface ControllerBuilderHost {
  readonly cache: InformerCache;
  add(controller: Controller): void;
}

/** A watch recorded by the builder, applied by `complete` to the controller. */
type PendingWatch = (controller: Controller, filters: readonly Predicate<never>[]) => void;

/** Thrown by a builder used the wrong way; the message says how (controller-runtime's words). */
export class ControllerBuilderError extends Error {
  /** The controller's name. */
  readonly controller: string;

  constructor(controller: string, message: string) {
    super(`controller ${controller}: ${message}`);
    this.name = "ControllerBuilderError";
    this.controller = controller;
  }
}

/**
 * Builds a {@link Controller} and adds it to its Manager (from `mgr.controller(name)`):
 *
 * - {@link for}: the kind reconciled; each object's own key is enqueued (once per builder).
 * - {@link owns}: kinds the `for` kind owns; an owned object enqueues its controller owner
 *   (`onlyController: false`: every owner of the `for` kind).
 * - {@link watches}: any other kind (with a map function or handler), an informer, or a
 *   `Source` (channel, function, raw).
 * - {@link withEventFilter}: predicates applied to every `for`, `owns` and `watches` of a
 *   kind or informer (not to a raw `Source`, which filters itself).
 * - {@link withOptions}: the controller's options (workers, rate limiter, timeouts, ...).
 * - {@link complete}: builds the controller with the reconciler, adds it to the manager and
 *   returns it.
 *
 * Kinds are named as the cache-backed client names them (a typed informer accessor, or a
 * resource): their informers come from the Manager's cache, which starts them with the
 * manager, so no informer can be forgotten, and the Manager's `/readyz` fails until they
 * synced. A kind named with `lazyKind(kind)` is watched through a lazy informer: its
 * predicates, map functions and handlers see `LazyObject<T>`s (metadata eager, `object()`
 * parses the body), and the built-in ones never parse a body.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from "kubernetes-types/core/v1.js";
 * import {
 *   KubeConfig,
 *   Manager,
 *   createOrUpdate,
 *   generationChanged,
 *   isNotFound,
 *   setControllerReference,
 *   signalHandler,
 *   splitKey,
 * } from "kubekit";
 *
 * const mgr = new Manager({ kubeConfig: await KubeConfig.load() });
 * mgr
 *   .controller("web-config")
 *   .for((i) => i.appsV1.deployments(), { predicates: [generationChanged] })
 *   .owns((i) => i.coreV1.configMaps())
 *   .withOptions({ workers: 2 })
 *   .complete(async (key, signal) => {
 *     const { namespace, name } = splitKey(key);
 *     let deployment;
 *     try {
 *       deployment = await mgr.client
 *         .resource((i) => i.appsV1.deployments(), namespace)
 *         .get(name, { signal });
 *     } catch (err) {
 *       if (isNotFound(err)) return;
 *       throw err;
 *     }
 *     const config: ConfigMap = { metadata: { name: `${name}-config`, namespace } };
 *     const configMaps = mgr.client.resource((i) => i.coreV1.configMaps(), namespace);
 *     await createOrUpdate(configMaps, config, (cm) => {
 *       cm.data = { replicas: String(deployment.spec?.replicas ?? 1) };
 *       setControllerReference(deployment, cm, { apiVersion: "apps/v1", kind: "Deployment" });
 *     });
 *   });
 * await mgr.start(signalHandler());
 * ```
 */
export class ControllerBuilder {
  /** The controller's name. */
  readonly name: string;
  readonly #host: ControllerBuilderHost;
  readonly #watches: PendingWatch[] = [];
  readonly #filters: Predicate<never>[] = [];
  #forKind: ResolvedKind | undefined;
  #ownsCalled = false;
  #options: ControllerBuilderOptions = {};
  #completed = false;

  /** Made by `Manager.controller`. @throws {TypeError} when `name` is empty. */
  constructor(name: string, host: ControllerBuilderHost) {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("a controller needs a non-empty name");
    }
    this.name = name;
    this.#host = host;
  }

  /**
   * The kind this controller reconciles (controller-runtime's `For`): its objects' own keys
   * are enqueued.
   *
   * @throws {ControllerBuilderError} when called twice.
   * @throws {TypeError} for a kind that does not resolve.
   */
  for<T>(kind: InformerAccessor<T>, options?: BuilderWatchOptions<NoInfer<T>>): this;
  for<T extends ObjectWithMetadata = KubeObject>(
    kind: ResourceKind | ResourceInfo,
    options?: BuilderWatchOptions<NoInfer<T>>,
  ): this;
  for<T>(kind: LazyKind<T>, options?: BuilderWatchOptions<NoInfer<LazyObject<T>>>): this;
  for<T extends MetadataView>(
    kind: KindReference<T> | LazyKind<T>,
    options: BuilderWatchOptions<T> = {},
  ): this {
    if (this.#forKind !== undefined) {
      throw new ControllerBuilderError(
        this.name,
        "For(...) should only be called once, could not assign multiple objects for reconciliation",
      );
    }
    const resolved = resolveKind(kind);
    this.#forKind = resolved;
    this.#watches.push((controller, filters) =>
      controller.watch(this.#host.cache.informer<T>(resolved), {
        predicates: [...(filters as Predicate<T>[]), ...(options.predicates ?? [])],
      }),
    );
    return this;
  }

  /**
   * A kind the `for` kind owns (controller-runtime's `Owns`): a change to an owned object
   * enqueues its owner of the `for` kind (the controller reference only, unless
   * `onlyController: false`).
   *
   * @throws {TypeError} for a kind that does not resolve.
   */
  owns<T>(kind: InformerAccessor<T>, options?: BuilderOwnsOptions<NoInfer<T>>): this;
  owns<T extends ObjectWithMetadata = KubeObject>(
    kind: ResourceKind | ResourceInfo,
    options?: BuilderOwnsOptions<NoInfer<T>>,
  ): this;
  owns<T>(kind: LazyKind<T>, options?: BuilderOwnsOptions<NoInfer<LazyObject<T>>>): this;
  owns<T extends MetadataView>(
    kind: KindReference<T> | LazyKind<T>,
    options: BuilderOwnsOptions<T> = {},
  ): this {
    const resolved = resolveKind(kind);
    this.#ownsCalled = true;
    this.#watches.push((controller, filters) => {
      const owner = this.#forKind;
      if (owner?.kind === undefined) return; // complete() has refused it already
      controller.watchOwned(this.#host.cache.informer<T>(resolved), {
        group: owner.group,
        kind: owner.kind,
        clusterScoped: !owner.namespaced,
        ...(options.onlyController !== undefined ? { onlyController: options.onlyController } : {}),
        predicates: [...(filters as Predicate<T>[]), ...(options.predicates ?? [])],
      });
    });
    return this;
  }

  /**
   * Another source of keys (controller-runtime's `Watches` / `WatchesRawSource`):
   *
   * - a kind (informer from the Manager's cache) or an informer, with a map function or
   *   `{ map | handler, predicates }` (default: the object's own key);
   * - a `Source` (`channelSource`, `funcSource`, your own), as it is (no `handler` then).
   *
   * @throws {TypeError} for a kind that does not resolve, or a handler given with a `Source`.
   */
  watches<T>(
    source: InformerAccessor<T> | WatchedInformer<T>,
    handler?: MapFunc<NoInfer<T>> | ControllerWatchOptions<NoInfer<T>>,
  ): this;
  watches<T extends ObjectWithMetadata = KubeObject>(
    source: ResourceKind | ResourceInfo,
    handler?: MapFunc<NoInfer<T>> | ControllerWatchOptions<NoInfer<T>>,
  ): this;
  watches<T>(
    source: LazyKind<T>,
    handler?: MapFunc<NoInfer<LazyObject<T>>> | ControllerWatchOptions<NoInfer<LazyObject<T>>>,
  ): this;
  watches(source: Source): this;
  watches<T extends MetadataView>(
    source: KindReference<T> | LazyKind<T> | WatchedInformer<T> | Source,
    handler?: MapFunc<T> | ControllerWatchOptions<T>,
  ): this {
    if (isSource(source)) {
      if (handler !== undefined) {
        throw new TypeError(`controller ${this.name}: a Source carries its own handler`);
      }
      this.#watches.push((controller) => controller.watchSource(source));
      return this;
    }
    const informer: () => WatchedInformer<T> = isInformer(source)
      ? () => source
      : (
          (resolved) => () =>
            this.#host.cache.informer<T>(resolved)
        )(resolveKind(source));
    const options: ControllerWatchOptions<T> =
      typeof handler === "function" ? { map: handler } : (handler ?? {});
    this.#watches.push((controller, filters) =>
      controller.watch(informer(), {
        ...options,
        predicates: [...(filters as Predicate<T>[]), ...(options.predicates ?? [])],
      }),
    );
    return this;
  }

  /**
   * Predicates every `for`, `owns` and kind `watches` applies before its own
   * (controller-runtime's `WithEventFilter`); all must let a notification through.
   */
  withEventFilter(...predicates: Predicate<MetadataView>[]): this {
    this.#filters.push(...(predicates as Predicate<never>[]));
    return this;
  }

  /** The controller's options (controller-runtime's `WithOptions`); later calls replace earlier ones. */
  withOptions(options: ControllerBuilderOptions): this {
    this.#options = options;
    return this;
  }

  /**
   * Builds the controller with `reconcile`, adds it to the Manager (which runs it, with its
   * metrics, logger and clock) and returns it (controller-runtime's `Complete`/`Build`).
   *
   * @throws {ControllerBuilderError} when called twice, when `owns` was used without `for`
   *   or with a `for` resource whose kind is unknown, or when nothing is watched.
   * @throws {ManagerError} `AlreadyStarted` once the manager has started.
   */
  complete(reconcile: Reconciler): Controller {
    if (this.#completed) {
      throw new ControllerBuilderError(this.name, "complete() was already called");
    }
    if (this.#ownsCalled && this.#forKind === undefined) {
      throw new ControllerBuilderError(this.name, "Owns() can only be used together with For()");
    }
    if (this.#ownsCalled && this.#forKind?.kind === undefined) {
      throw new ControllerBuilderError(
        this.name,
        "Owns() needs the kind of For(...): name it in the resource ({ group, version, resource, kind })",
      );
    }
    if (this.#watches.length === 0) {
      throw new ControllerBuilderError(
        this.name,
        "must provide an object for reconciliation: call for(), or watches()",
      );
    }
    const controller = new Controller({ ...this.#options, name: this.name, reconcile });
    this.#host.add(controller);
    this.#completed = true;
    for (const watch of this.#watches) watch(controller, this.#filters);
    return controller;
  }
}

function isSource(value: unknown): value is Source {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<Source>).start === "function" &&
    !("addEventHandler" in value)
  );
}

function isInformer<T>(value: unknown): value is WatchedInformer<T> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<WatchedInformer<T>>).addEventHandler === "function"
  );
}
