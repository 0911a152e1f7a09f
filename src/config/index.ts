/**
 * The config layer: kubeconfig loading and merging with kubectl's rules, overrides,
 * in-cluster configuration and credentials (token, token file, basic auth, exec plugins),
 * producing a {@link RestConfig}. No HTTP happens here.
 */
export * from "./rest-config.js";
export * from "./config-error.js";
export * from "./environment.js";
export * from "./kubeconfig-types.js";
export { parseKubeconfigYaml, decodeKubeconfig, emptyKubeconfig } from "./kubeconfig-decode.js";
export * from "./merge.js";
export * from "./loading-rules.js";
export * from "./kubeconfig-view.js";
export * from "./context-selection.js";
export { REDACTED, DATA_OMITTED } from "./redaction.js";
export * from "./static-credentials.js";
export * from "./token-file.js";
export * from "./exec-credential.js";
export * from "./exec-plugin.js";
export * from "./in-cluster.js";
export {
  DEFAULT_QPS,
  DEFAULT_BURST,
  LEGACY_DEFAULT_SERVER,
  defaultServer,
} from "./rest-config-builder.js";
export * from "./kube-config.js";
