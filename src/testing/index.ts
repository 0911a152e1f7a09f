/**
 * kubekit/testing: the embedded Kubernetes API server and the fake clock.
 *
 * @packageDocumentation
 */
export { ApiServer, type ApiServerOptions } from "./api-server.js";
export { ServerFaults, type FaultTarget, type InjectedFailure } from "./server/faults.js";
export type { ResourceRequestInfo } from "./server/request-info.js";
export type { UserInfo } from "./server/authentication.js";
export type { PemKeyPair } from "./server/certificates.js";
export type {
  KubeconfigDocument,
  KubeconfigNamedCluster,
  KubeconfigNamedContext,
  KubeconfigNamedUser,
} from "./server/kubeconfig-file.js";
export { FakeClock } from "../core/clock.js";
