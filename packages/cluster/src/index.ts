/**
 * @kubekit/cluster: a simulated Kubernetes control plane (Nodes, a scheduler, kubelets and
 * kube-controller-manager's controllers) that runs against an API server, written with
 * kubekit's public API as any controller is, and the `kubekit` command line.
 *
 * @packageDocumentation
 */
export {
  SimulatedCluster,
  startCluster,
  type ClusterTarget,
  type StartClusterOptions,
} from "./simulated-cluster.js";
export {
  CLUSTER_CONTROLLER_NAMES,
  SIMULATION_ANNOTATIONS,
  type ClusterControllerName,
  type SimulatedClusterOptions,
} from "./simulated-cluster-options.js";
export {
  generateCrdTypes,
  GENERATED_HEADER,
  type GenerateCrdTypesOptions,
  type GeneratedFile,
} from "./generate/generate-crd-types.js";
export {
  checkCrdManifest,
  CrdManifestError,
  readCrdManifests,
  type CrdManifest,
} from "./generate/crd-manifests.js";
export { installCrds, uninstallCrds } from "./envtest/crd-installation.js";
export type { CrdInstallOptions } from "./envtest/crd-install-options.js";
export { CrdWaitTimeoutError } from "./envtest/crd-install-errors.js";
export {
  generateWebhookCertificates,
  type WebhookCertificateOptions,
  type WebhookCertificates,
} from "./envtest/webhook-certificates.js";
export {
  withCaBundle,
  type CaBundleOptions,
  type WebhookCallingObject,
} from "./envtest/webhook-ca-bundle.js";
export {
  installWebhooks,
  type InstalledWebhooks,
  type WebhookInstallOptions,
} from "./envtest/webhook-installation.js";
