/**
 * The informer factories: `SharedInformerFactory` (typed accessors of every built-in
 * resource, generated from the resource table, and `forResource(gvr)`),
 * `DynamicSharedInformerFactory` (unstructured objects of any resource, custom resources
 * included) and `MetadataSharedInformerFactory` (PartialObjectMetadata of any resource);
 * `LazySharedInformerFactory`, `LazyDynamicSharedInformerFactory` and
 * `LazyMetadataSharedInformerFactory` are the three in lazy (metadata-first) mode, whose
 * caches hold `LazyObject`s.
 *
 * @packageDocumentation
 */
export {
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
} from "./shared-informer-factory.js";
// The generated module declares the typed informer accessors and listers of the built-in
// resource table, all public by construction (tools/generate-informers.ts); the API report
// (api/kubekit.api.md) lists every name it contributes.
export * from "./generated/typed-informers.js";
export {
  DynamicSharedInformerFactory,
  type DynamicSharedInformerFactoryOptions,
} from "./dynamic-shared-informer-factory.js";
export {
  MetadataSharedInformerFactory,
  type MetadataSharedInformerFactoryOptions,
} from "./metadata-shared-informer-factory.js";
export { LazySharedInformerFactory } from "./lazy-shared-informer-factory.js";
export { LazyDynamicSharedInformerFactory } from "./lazy-dynamic-shared-informer-factory.js";
export { LazyMetadataSharedInformerFactory } from "./lazy-metadata-shared-informer-factory.js";
export {
  LazyTypedInformerFactory,
  type LazyGroupInformers,
  type LazyLister,
  type LazyResourceInformer,
  type TypedInformerGroup,
} from "./lazy-typed-informers.js";
export {
  BaseInformerFactory,
  type InformerFactorySettings,
  type InformerSource,
} from "./base-informer-factory.js";
export type { InformerFactoryOptions, InformerTuning } from "./informer-factory-options.js";
export type { GenericInformer, InformerResource, ResourceInformer } from "./resource-informer.js";
export { NamespacedResourceLister } from "./namespaced-resource-lister.js";
export { ClusterResourceLister } from "./cluster-resource-lister.js";
