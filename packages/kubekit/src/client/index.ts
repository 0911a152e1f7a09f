/**
 * The clients: `Clientset` (typed, generated from the built-in resource table),
 * `DynamicClient` (unstructured objects of any resource) and `MetadataClient`
 * (PartialObjectMetadata of any resource), with the paginated list helpers they share, the
 * `DiscoveryClient` with its memory and disk caches, the `RESTMapper`, and `PodStreams` for
 * the streaming pod subresources (exec, attach, cp; also on the pods client).
 *
 * Internals (discovery document conversion and encoding, media types, request targeting,
 * PartialObjectMetadata conversion, the mapper's index, the WebSocket connection and channel
 * framing of the streaming subresources) are imported from their modules.
 *
 * @packageDocumentation
 */
export { Clientset, type ClientsetOptions } from "./clientset.js";
// The generated module declares the typed group clients and per-resource client types of the
// built-in resource table, all public by construction (tools/generate-clientset.ts); the API
// report (api/kubekit.api.md) lists every name it contributes.
export * from "./generated/typed-clientset.js";
export { ResourceClient } from "./resource-client.js";
export {
  PodResourceClient,
  type BindOptions,
  type EvictOptions,
  type PodLogOptions,
} from "./pod-client.js";
// Talking to containers: exec, attach and cp over kube's channel WebSocket protocols.
export { PodStreams } from "./pod-streams.js";
export type { ExecOptions } from "./pod-exec.js";
export type { AttachOptions } from "./pod-attach.js";
export type { RemoteCommandOptions, RemoteCommandSession } from "./remote-command-session.js";
export type { ExecResult } from "./exec-result.js";
export {
  REMOTE_COMMAND_PROTOCOL_V4,
  REMOTE_COMMAND_PROTOCOL_V5,
  type TerminalSize,
} from "../core/websocket-channels.js";
export type {
  CopyFromPodOptions,
  CopyFromPodResult,
  CopyToPodOptions,
  SkippedArchiveEntry,
} from "./pod-copy.js";
export { PodCopyArchiveError, PodCopyCommandError } from "./pod-copy-errors.js";
export {
  StreamClosedError,
  StreamErrorChannelTooLargeError,
  StreamProtocolError,
  StreamUpgradeError,
} from "./stream-errors.js";
export { ProxyTunnelError } from "./connect-tunnel.js";
export {
  PodNotRunningError,
  PortForwardListenError,
  portForwardPod,
  type PortForwardOptions,
  type PortForwardSession,
} from "./pod-port-forward.js";
export type { ForwardedPort, PortForwardSpec } from "./port-forward-ports.js";
export { ServiceAccountResourceClient } from "./service-account-client.js";
export { DynamicClient, DynamicResourceClient } from "./dynamic-client.js";
export type { ResourceTarget } from "./resource-request.js";
// The metadata Accept headers (PARTIAL_OBJECT_METADATA_ACCEPT, ..._LIST_ACCEPT) stay
// module-level exports of metadata-client.ts, which the cache layer's metadata ListerWatcher imports.
export {
  MetadataClient,
  MetadataNamespaceableResourceClient,
  MetadataResourceClient,
} from "./metadata-client.js";
export { MetadataWatch } from "./metadata-watch.js";
export {
  DEFAULT_PAGE_SIZE,
  listAllPages,
  listPages,
  type FetchListPage,
  type ListAllResult,
} from "./list-pager.js";
export { ApplyRequestError, type ApplyRequestProblem } from "./apply-request-error.js";
export type {
  ApplyOptions,
  CallOptions,
  CreateCallOptions,
  DeleteCallOptions,
  DeleteCollectionOptions,
  GetCallOptions,
  ListAllOptions,
  ListCallOptions,
  PagedListOptions,
  PatchCallOptions,
  PatchFormat,
  UpdateCallOptions,
  WatchCallOptions,
} from "./call-options.js";
export type {
  ApplyConfiguration,
  KubeObject,
  KubeObjectList,
  ListMeta,
  ObjectList,
  ObjectMeta,
  ObjectWithMetadata,
  PartialObjectMetadata,
  PartialObjectMetadataList,
} from "./kube-object.js";
export {
  DiscoveryClient,
  DEFAULT_DISCOVERY_BURST,
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  type DiscoveryClientOptions,
} from "./discovery-client.js";
export type {
  APIGroup,
  APIGroupList,
  GroupVersionForDiscovery,
  CachedDiscoveryInterface,
  DiscoveredResource,
  DiscoveredResourceList,
  DiscoveredSubresource,
  DiscoveryInterface,
  DiscoverySource,
  GroupsAndMaybeResources,
  GroupsAndResources,
  ServerVersionInfo,
} from "./discovery-types.js";
export {
  GroupDiscoveryFailedError,
  InvalidDiscoveryDocumentError,
  StaleGroupVersionError,
} from "./discovery-errors.js";
export { DiscoveryQueries, type DiscoveryPrimitives } from "./discovery-queries.js";
export {
  MemoryCachedDiscovery,
  type MemoryCachedDiscoveryOptions,
} from "./discovery-cache-memory.js";
export {
  DEFAULT_DISCOVERY_CACHE_TTL_MS,
  DiskCachedDiscovery,
  defaultCacheDir,
  type DiskCachedDiscoveryOptions,
} from "./discovery-cache-disk.js";
export { RESTMapper, type RESTMapperOptions } from "./rest-mapper.js";
export { AmbiguousResourceError, NoMatchError, type NoMatchTarget } from "./rest-mapper-errors.js";
export type { PartialResource, RESTMapping, RESTScope } from "./rest-mapper-types.js";
