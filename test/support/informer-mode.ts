/**
 * The informer's tests run in both modes (issue 24 §2): eager (objects parsed by the
 * ListerWatcher) and lazy (objects as `LazyObject`s read by the metadata scanner, seen
 * through `withBodies`). A test file builds its informers with {@link newInformer} and its
 * ListerWatchers' objects pass through {@link lazyListerWatcher} in lazy mode; a
 * `*.lazy.test.ts` file selects the lazy mode, then imports the eager file, so both run the
 * same tests with the same expectations.
 */
import {
  createIndexer,
  Lister,
  type GroupResource,
  type ObjectWithMeta,
  lazyListerWatcherFor,
  listerWatcherFor,
  type LazyObject,
  type ListerWatcher,
  type ListerWatcherTarget,
  type RESTClient,
  type SharedIndexInformerOptions,
  type SharedInformerView,
  type WatchStream,
  type WatchEvent,
  SharedIndexInformer,
  withBodies,
} from "kubekit";
import { scanObjectMetadata } from "../../packages/kubekit/src/cache/lazy/json-metadata-scanner.js";
import { LazyJsonObject } from "../../packages/kubekit/src/cache/lazy/lazy-json-object.js";

/** How informers are built: parsed objects, or lazy objects seen with bodies. */
export type InformerMode = "eager" | "lazy";

let mode: InformerMode = "eager";

/** Selects the mode of every informer the current test file builds (call before its tests load). */
export function useInformerMode(next: InformerMode): void {
  mode = next;
}

/** The current test file's mode. */
export function informerMode(): InformerMode {
  return mode;
}

/** `obj` as the lazy ListerWatcher hands it out: its JSON bytes, scanned for metadata. */
export function toLazyObject<T>(obj: T): LazyObject<T> {
  const bytes = Buffer.from(JSON.stringify(obj), "utf8");
  return LazyJsonObject.fromBytes<T>(scanObjectMetadata(bytes, 0, bytes.length), bytes);
}

function toLazyEvent<T>(event: WatchEvent<T>): WatchEvent<LazyObject<T>> {
  return event.type === "ERROR" ? event : { type: event.type, object: toLazyObject(event.object) };
}

/** The events of `stream` with lazy objects, item by item or in batches, as the stream offers. */
function lazyStream<T>(stream: WatchStream<T>): WatchStream<LazyObject<T>> {
  const batches = stream.batches?.bind(stream);
  return {
    close: () => stream.close(),
    async *[Symbol.asyncIterator]() {
      for await (const event of stream) yield toLazyEvent(event);
    },
    ...(batches !== undefined
      ? {
          async *batches() {
            const source = batches();
            try {
              for (;;) {
                const step = await source.next();
                if (step.done === true) return;
                yield step.value.map((event) => toLazyEvent(event));
              }
            } finally {
              await source.return?.();
            }
          },
        }
      : {}),
  };
}

/** `lw` handing out lazy objects: each object serialized and scanned, as the lazy ListerWatcher reads the wire. */
export function lazyListerWatcher<T>(lw: ListerWatcher<T>): ListerWatcher<LazyObject<T>> {
  return {
    async list(options, signal) {
      const page = await lw.list(options, signal);
      return { ...page, items: page.items.map((item) => toLazyObject(item)) };
    },
    watch: (options, signal, watchOptions) => lazyStream(lw.watch(options, signal, watchOptions)),
  };
}

/**
 * An informer with `options` in the current mode: eager, the informer itself; lazy, a
 * lazy informer over {@link lazyListerWatcher}`(options.listerWatcher)` seen through
 * `withBodies` (the transform and indexers given through the view).
 */
export function newInformer<T>(options: SharedIndexInformerOptions<T>): SharedInformerView<T> {
  if (mode === "eager") return new SharedIndexInformer<T>(options);
  const { listerWatcher, transform, indexers, ...rest } = options;
  const view = withBodies(
    new SharedIndexInformer<LazyObject<T>>({
      ...rest,
      listerWatcher: lazyListerWatcher(listerWatcher),
    }),
  );
  if (transform !== undefined) view.setTransform(transform);
  if (indexers !== undefined) view.addIndexers(indexers);
  return view;
}

/**
 * An informer of `target` over `client` in the current mode, each on its own wire path:
 * eager, over `listerWatcherFor`; lazy, over `lazyListerWatcherFor` (the bytes scanned as
 * they arrive) seen through `withBodies`. `wrap` may decorate the ListerWatcher (e.g. to
 * record its requests).
 */
export function newWireInformer<T>(
  client: RESTClient,
  target: ListerWatcherTarget,
  options: Omit<SharedIndexInformerOptions<T>, "listerWatcher">,
  wrap: <U>(lw: ListerWatcher<U>) => ListerWatcher<U> = (lw) => lw,
): SharedInformerView<T> {
  if (mode === "eager") {
    return new SharedIndexInformer<T>({
      ...options,
      listerWatcher: wrap(listerWatcherFor<T>(client, target)),
    });
  }
  const { transform, indexers, ...rest } = options;
  const view = withBodies(
    new SharedIndexInformer<LazyObject<T>>({
      ...rest,
      listerWatcher: wrap(lazyListerWatcherFor<T>(client, target)),
    }),
  );
  if (transform !== undefined) view.setTransform(transform);
  if (indexers !== undefined) view.addIndexers(indexers);
  return view;
}

/**
 * A lister of `resource` over a cache holding `objects` (with the namespace index unless
 * `withNamespaceIndex` is false) in the current mode: eager, a plain cache; lazy, a cache of
 * lazy objects seen through `withBodies`.
 */
export function newLister<T extends ObjectWithMeta>(
  objects: readonly T[],
  resource: GroupResource,
  withNamespaceIndex = true,
): Lister<T> {
  const options = withNamespaceIndex ? {} : { indexers: {} };
  if (mode === "eager") {
    const indexer = createIndexer<T>(options);
    for (const o of objects) indexer.add(o);
    return new Lister<T>(indexer, resource);
  }
  const indexer = createIndexer<LazyObject<T>>(options);
  for (const o of objects) indexer.add(toLazyObject(o));
  return withBodies(new Lister<LazyObject<T>>(indexer, resource));
}
