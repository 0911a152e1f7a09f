/**
 * @kubekit/apiserver: an in-process, kubectl-compatible Kubernetes API server over real
 * HTTP(S) on 127.0.0.1, judged by what kube-apiserver answers, with fault injection and
 * scriptable containers for exec, attach and port-forward.
 *
 * @packageDocumentation
 */
export { ApiServer, type ApiServerOptions, type ServerVersion } from "./api-server.js";
export { ServerFaults, type FaultTarget, type InjectedFailure } from "./server/faults.js";
export {
  ContainerHandlers,
  type ContainerSelector,
  type ExecHandler,
  type ExecRequest,
  type PortForwardHandler,
  type PortForwardRequest,
} from "./containers/container-handlers.js";
export type {
  ContainerProcess,
  ContainerProcessRequest,
} from "./containers/shell/built-in-containers.js";
export type { ResourceRequestInfo } from "./endpoints/request-info.js";
export type { UserInfo } from "./auth/authentication.js";
export type { AuthorizationMode } from "./authorization/authorizer.js";
export {
  createCertificateAuthority,
  type CertificateAuthority,
  type CertificateAuthorityOptions,
  type ClientCertificateOptions,
  type PemKeyPair,
  type ServingCertificateOptions,
} from "./auth/certificates.js";
export {
  CertificateSigningError,
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  type CertificateSigningOptions,
} from "./certificates/csr-signer.js";
export { USAGE_ANNOTATIONS } from "./metrics-api/resource-usage.js";
export { normalizeBuiltinObject } from "./schema/typed-normalization.js";
export type {
  KubeconfigDocument,
  KubeconfigNamedCluster,
  KubeconfigNamedContext,
  KubeconfigNamedUser,
} from "./auth/kubeconfig-file.js";
