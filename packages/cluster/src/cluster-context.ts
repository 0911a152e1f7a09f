import type {
  CertificateSigningOptions,
  ContainerProcess,
  ContainerProcessRequest,
} from "@kubekit/apiserver";
import type { Clientset, Clock, EventRecorder, Logger, SharedInformerFactory } from "kubekit";

/** The settings every simulated component reads, with their defaults applied. */
export interface ClusterSettings {
  /** The Kubernetes minor version the API server reports (the kubelets report the same). */
  readonly kubernetesMinor: string;
  /** The names of the simulated Nodes, in order (`kubekit-node-1`, …). */
  readonly nodeNames: readonly string[];
  /** Binding → containers running, in ms on {@link ClusterContext.clock}. */
  readonly containerStartMs: number;
  /** Running → Ready, in ms on the clock (a probe's `initialDelaySeconds` adds to it). */
  readonly readinessDelayMs: number;
  /** How long containers of run-to-completion pods run before exiting 0, in ms on the clock. */
  readonly completionMs: number;
  /**
   * The PEM of the CA that signed the API server's serving certificate (what kube-controller-manager
   * publishes as `kube-root-ca.crt`); `undefined` when the server serves plain HTTP.
   */
  readonly caPem?: string;
}

/**
 * The control plane component a client or recorder speaks for. The API server records the
 * component as the field manager of its writes (the User-Agent's first word), as it records
 * kube-controller-manager, kube-scheduler and kubelet in a real cluster.
 */
export type ClusterComponentName = "kube-controller-manager" | "kube-scheduler" | "kubelet";

/**
 * What each simulated control plane component is built from: kubekit's public client and
 * informers over loopback, as a controller a user deploys would have. Components take their
 * informers from the shared {@link factory} while they are built; the cluster starts it.
 */
export interface ClusterContext {
  /**
   * The client of a component: the server's admin credentials over loopback, no client-side
   * rate limit (kube's loopback clients are unthrottled), the component as User-Agent.
   */
  clientset(component: ClusterComponentName): Clientset;
  /** The informer factory every component shares (all namespaces, no resync). */
  readonly factory: SharedInformerFactory;
  /** The server's clock: every delay of the simulation runs on it. */
  readonly clock: Clock;
  /** Where components log. */
  readonly logger: Logger;
  /** The cluster's settings. */
  readonly settings: ClusterSettings;
  /**
   * An Event recorder reporting as `source` (kube's component names: `replicaset-controller`,
   * `default-scheduler`, `kubelet`, …). Recorders are flushed when the cluster stops.
   */
  recorder(source: string, component: ClusterComponentName): EventRecorder;
  /**
   * Appends what a container printed to its log (`kubectl logs`); the text is split into
   * lines, stamped with the clock's time.
   */
  appendContainerLog(namespace: string, pod: string, container: string, text: string): void;
  /**
   * Starts a container's main process in the embedded API server's built-in userland
   * (`ApiServer.startContainerProcess`); absent against a server by kubeconfig, where
   * containers are simulated by their annotations and defaults only.
   */
  readonly startContainerProcess?: (
    request: ContainerProcessRequest,
  ) => ContainerProcess | undefined;
  /**
   * Issues a certificate from the API server's CA for a CSR's PEM request (the embedded
   * server's `ApiServer.signClientCertificate`); absent against a server by kubeconfig or one
   * without TLS (the `csrsigning` controller then signs nothing).
   */
  readonly signCertificate?: (
    csrPem: string,
    options: CertificateSigningOptions,
  ) => Promise<string>;
}
