/**
 * kubekit/testing: the embedded Kubernetes API server and the fake clock.
 *
 * @packageDocumentation
 */
export { ApiServer, type ApiServerOptions } from "./api-server.js";
export { ServerFaults, type InjectedFailure } from "./server/faults.js";
export type { UserInfo } from "./server/authentication.js";
export type { PemKeyPair } from "./server/certificates.js";
export type { KubeconfigDocument } from "./server/kubeconfig-file.js";
export { FakeClock } from "../core/clock.js";
