/**
 * kubekit/testing: the embedded Kubernetes API server and the fake clock.
 *
 * @packageDocumentation
 */
export { ApiServer, type ApiServerOptions } from "./api-server.js";
export { ServerFaults, type FaultTarget, type InjectedFailure } from "./server/faults.js";
export {
  ContainerHandlers,
  type ContainerSelector,
  type ExecHandler,
  type ExecRequest,
  type PortForwardHandler,
  type PortForwardRequest,
} from "./server/container-handlers.js";
export type { ResourceRequestInfo } from "./server/request-info.js";
export type { UserInfo } from "./server/authentication.js";
export type { PemKeyPair } from "./server/certificates.js";
export type {
  KubeconfigDocument,
  KubeconfigNamedCluster,
  KubeconfigNamedContext,
  KubeconfigNamedUser,
} from "./server/kubeconfig-file.js";
export { SimulatedCluster, type ClusterTarget } from "./cluster/simulated-cluster.js";
export {
  CLUSTER_CONTROLLER_NAMES,
  SIMULATION_ANNOTATIONS,
  type ClusterControllerName,
  type SimulatedClusterOptions,
} from "./cluster/simulated-cluster-options.js";
export { FakeClock } from "../core/clock.js";
