/**
 * Where a {@link Controller}'s keys come from (controller-runtime's `pkg/source`). Which to
 * use when:
 *
 * - `controller.watch(informer)` / `watchOwned(...)`: an informer of the cluster's objects
 *   (what most controllers need); {@link kindSource} is the same as a value, with any
 *   {@link EventHandler}.
 * - {@link channelSource}: objects from outside the cluster's watches (an async iterable:
 *   a generator, a stream, an event channel), as generic events through the predicates and
 *   a handler (`source.Channel`).
 * - {@link funcSource}, or any object implementing {@link Source}: a raw source that adds
 *   keys itself (`source.Func`), e.g. a timer or a webhook.
 *
 * Give a source to `controller.watchSource(source)` (or a builder's `watches`).
 *
 * @packageDocumentation
 */
export { type Source, type SourceContext, funcSource } from "./source.js";
export { type KindSourceOptions, type WatchedInformer, kindSource } from "./kind-source.js";
export { type ChannelSourceOptions, channelSource } from "./channel-source.js";
