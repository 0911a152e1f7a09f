/**
 * The config layer's public part: `KubeConfig` (kubeconfig loading and merging with kubectl's
 * rules, overrides, in-cluster configuration) producing a {@link RestConfig}, the credential
 * sources (token, token file, basic auth, exec plugins), the kubeconfig document types and
 * the typed config errors. No HTTP happens here.
 *
 * The building blocks `KubeConfig` is made of (file decoding, merging, context selection, the
 * exec credential protocol, view rendering) are imported from their modules, not from here.
 *
 * @packageDocumentation
 */
export {
  KubeConfig,
  IN_CLUSTER_NAME,
  type KubeConfigDocumentOptions,
  type KubeConfigInClusterOptions,
  type KubeConfigLoadOptions,
  type KubeConfigRuntimeOptions,
  type KubeContextInfo,
} from "./kube-config.js";
export type {
  CredentialSource,
  Impersonation,
  RequestCredentials,
  RestConfig,
  TlsSettings,
} from "./rest-config.js";
export { DEFAULT_BURST, DEFAULT_QPS } from "./rest-config.js";
export {
  ConfigError,
  ExecPluginError,
  NotInClusterError,
  type ConfigEntryKind,
  type ConfigEntryRef,
  type ConfigErrorLocation,
  type ExecPluginErrorDetails,
  type ExecPluginFailure,
} from "./config-error.js";
export type { Environment } from "./environment.js";
export type {
  AuthInfo,
  AuthProviderConfig,
  Cluster,
  Context,
  ExecConfig,
  ExecEnvVar,
  ExecInteractiveMode,
  KubeconfigData,
  KubeconfigDocument,
  KubeconfigView,
  Located,
  NamedAuthInfo,
  NamedCluster,
  NamedContext,
  NamedExtension,
  Preferences,
} from "./kubeconfig-types.js";
export type { KubeConfigOverrides } from "./context-selection.js";
export type { KubeconfigViewOptions } from "./kubeconfig-view.js";
export { DATA_OMITTED, REDACTED } from "./redaction.js";
export {
  BasicAuthCredentials,
  NoCredentials,
  StaticTokenCredentials,
} from "./static-credentials.js";
export { TokenFileCredentials, type TokenFileCredentialsOptions } from "./token-file.js";
export {
  EXEC_CREDENTIAL_API_VERSIONS,
  type ExecClusterInfo,
  type ExecCredentialApiVersion,
  type ExecCredentialStatus,
} from "./exec-credential.js";
export {
  ExecCredentials,
  type ExecCredentialsOptions,
  type ExecPluginSettings,
} from "./exec-plugin.js";
export type { InClusterOptions, InClusterSettings } from "./in-cluster.js";
