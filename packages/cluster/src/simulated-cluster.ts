import type { ApiServer, CertificateSigningOptions } from "@kubekit/apiserver";
import { Registry } from "prom-client";
import {
  Clientset,
  DiscoveryClient,
  EventRecorder,
  Manager,
  SharedInformerFactory,
  noopLogger,
  realClock,
  type Clock,
  type KubeConfig,
  type Logger,
} from "kubekit";
import type { ClusterComponentName, ClusterContext, ClusterSettings } from "./cluster-context.js";
import { CLUSTER_COMPONENTS, CONTROLLER_MANAGER } from "./cluster-components.js";
import { selectControllers } from "./controller-selection.js";
import { registerNodes } from "./nodes/node-registration.js";
import type {
  ClusterControllerName,
  SimulatedClusterOptions,
} from "./simulated-cluster-options.js";

/**
 * What the cluster runs against, at the lowest level ({@link SimulatedCluster.start}): admin
 * credentials, a clock, the Kubernetes version to report, and where container output goes.
 * {@link startCluster} builds it from an {@link ApiServer} or from any kubeconfig.
 */
export interface ClusterTarget {
  /** Admin credentials for the server. */
  readonly kubeConfig: KubeConfig;
  /** The server's clock. */
  readonly clock: Clock;
  /** The minor version the server reports. */
  readonly kubernetesMinor: string;
  /** Writes container output where `pods/log` serves it. */
  appendContainerLog(namespace: string, pod: string, container: string, text: string): void;
  /** Runs a container's command where `exec` reaches it (the embedded server only). */
  readonly startContainerProcess?: ClusterContext["startContainerProcess"];
  /** Issues certificates from the server's CA (the embedded server with TLS only). */
  readonly signCertificate?: ClusterContext["signCertificate"];
}

/** How long a stop waits for the components to settle (they are aborted first). */
const STOP_GRACE_MS = 10_000;

/** A non-negative number of milliseconds, or the default. */
function durationOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`cluster.${name} must be a finite number >= 0, got ${value}`);
  }
  return value;
}

function resolveSettings(
  options: SimulatedClusterOptions,
  minor: string,
  caPem: string | undefined,
): ClusterSettings {
  const nodes = options.nodes ?? 3;
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 1000) {
    throw new RangeError(`cluster.nodes must be an integer from 1 to 1000, got ${nodes}`);
  }
  return {
    kubernetesMinor: minor,
    nodeNames: Array.from({ length: nodes }, (_, i) => `kubekit-node-${i + 1}`),
    containerStartMs: durationOption("containerStartMs", options.containerStartMs, 0),
    readinessDelayMs: durationOption("readinessDelayMs", options.readinessDelayMs, 0),
    completionMs: durationOption("completionMs", options.completionMs, 1000),
    ...(caPem !== undefined ? { caPem } : {}),
  };
}

/**
 * A simulated control plane: Nodes with Ready kubelets, the scheduler, and
 * kube-controller-manager's workload controllers, each written with kubekit's Controller
 * toolkit against the API server over HTTP, as a real control plane runs against
 * kube-apiserver (and as kwok's nodes run against any API server). Started by
 * {@link startCluster}.
 *
 * Guarantees: {@link start} resolves once the Nodes are registered and every component's
 * informers have synced, so pods created afterwards are scheduled and started. Every delay
 * runs on the server's clock. Components never throw at the caller: failed writes are
 * retried with the controllers' back-off. {@link stop} aborts every component and waits for
 * in-flight reconciles and queued Events, so no timer or connection is left behind.
 */
export class SimulatedCluster {
  /** The Nodes the cluster registered, in order. */
  readonly nodeNames: readonly string[];
  /** The kube-controller-manager controllers that run. */
  readonly controllers: ReadonlySet<ClusterControllerName>;
  readonly #stop: AbortController;
  readonly #running: Promise<void>;
  readonly #recorders: ReadonlyMap<string, EventRecorder>;

  private constructor(
    settings: ClusterSettings,
    controllers: ReadonlySet<ClusterControllerName>,
    stop: AbortController,
    running: Promise<void>,
    recorders: ReadonlyMap<string, EventRecorder>,
  ) {
    this.nodeNames = settings.nodeNames;
    this.controllers = controllers;
    this.#stop = stop;
    this.#running = running;
    this.#recorders = recorders;
  }

  /**
   * Registers the Nodes and starts every component.
   *
   * @throws {RangeError} for an invalid count or duration.
   * @throws {TypeError} for an unknown controller name.
   */
  static async start(
    target: ClusterTarget,
    options: SimulatedClusterOptions = {},
  ): Promise<SimulatedCluster> {
    const restConfig = target.kubeConfig.restConfig();
    const settings = resolveSettings(options, target.kubernetesMinor, restConfig.tls.caPem);
    const controllers = selectControllers(options.controllers ?? ["*"]);
    const logger: Logger = options.logger ?? noopLogger;
    const clock = target.clock;
    const clientsets = new Map<ClusterComponentName, Clientset>();
    const clientset = (component: ClusterComponentName): Clientset => {
      let cs = clientsets.get(component);
      if (cs === undefined) {
        cs = new Clientset(
          {
            ...restConfig,
            qps: -1,
            userAgent: `${component}/v1.${settings.kubernetesMinor}.0 (linux/amd64) kubernetes/kubekit`,
          },
          { clock, logger },
        );
        clientsets.set(component, cs);
      }
      return cs;
    };
    const recorders = new Map<string, EventRecorder>();
    const factory = new SharedInformerFactory(clientset("kube-controller-manager"), {
      resyncPeriodMs: 0,
      informerOptions: { clock, logger },
    });
    const ctx: ClusterContext = {
      clientset,
      factory,
      clock,
      logger,
      settings,
      recorder: (source, component) => {
        let recorder = recorders.get(source);
        if (recorder === undefined) {
          recorder = new EventRecorder({
            clientset: clientset(component),
            component: source,
            clock,
            logger,
          });
          recorders.set(source, recorder);
        }
        return recorder;
      },
      appendContainerLog: (namespace, pod, container, text) =>
        target.appendContainerLog(namespace, pod, container, text),
      ...(target.startContainerProcess
        ? { startContainerProcess: target.startContainerProcess }
        : {}),
      ...(target.signCertificate ? { signCertificate: target.signCertificate } : {}),
    };
    const manager = new Manager({
      kubeConfig: target.kubeConfig,
      qps: -1,
      clock,
      logger,
      registry: new Registry(),
      gracefulShutdownMs: STOP_GRACE_MS,
    });
    manager.add(factory);
    for (const build of CLUSTER_COMPONENTS) manager.add(build(ctx));
    for (const name of controllers) manager.add(CONTROLLER_MANAGER[name](ctx));
    const stop = new AbortController();
    await registerNodes(ctx, stop.signal);
    const running = manager.start(stop.signal);
    // A manager that fails before its components started rejects here; one that fails later is
    // logged (the API server keeps serving without its control plane).
    await Promise.race([manager.elected(), running]);
    const settled = running.catch((err: unknown) => {
      logger.error("simulated cluster stopped with an error", { error: String(err) });
    });
    return new SimulatedCluster(settings, controllers, stop, settled, recorders);
  }

  /**
   * Stops every component; resolves once they have settled and queued Events are written.
   * Idempotent. A cluster started on an {@link ApiServer} is stopped by the server's `stop()`
   * too, before the server closes.
   */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
    await Promise.all([...this.#recorders.values()].map((r) => r.shutdown()));
  }
}

/** Where {@link startCluster} runs the control plane, and with which options. */
export type StartClusterOptions = SimulatedClusterOptions &
  (
    | {
        /**
         * The embedded API server: the cluster uses its admin credentials and its clock
         * (a FakeClock drives the whole cluster), writes container output where its
         * `pods/log` serves it, and stops before the server does (`server.stop()`).
         */
        readonly server: ApiServer;
      }
    | {
        /**
         * Any API server, by kubeconfig (the cluster needs rights to write Nodes, Pods,
         * their status and bindings, and the workloads it reconciles). Container output is
         * not served: `pods/log` belongs to that server.
         */
        readonly kubeConfig: KubeConfig;
        /** The clock of every simulated delay (default: the real clock). */
        readonly clock?: Clock;
        /** Cancels the start (the version request and the first sync). */
        readonly signal?: AbortSignal;
      }
  );

/** Distinguishes unique pre-shutdown hook names when several clusters share a server. */
let clusterSequence = 0;

/**
 * Starts a simulated control plane against an API server: registers the Nodes and starts the
 * scheduler, the kubelets and the selected controllers, resolving once every component's
 * caches have synced (pods created afterwards are scheduled and started).
 *
 * @example
 * ```ts
 * import { ApiServer } from "@kubekit/apiserver";
 * import { startCluster } from "@kubekit/cluster";
 *
 * const server = await ApiServer.start();
 * const cluster = await startCluster({ server, nodes: 2, controllers: ["replicaset", "deployment"] });
 * console.log(cluster.nodeNames); // ["kubekit-node-1", "kubekit-node-2"]
 * await server.stop(); // stops the cluster first
 * ```
 *
 * @throws {RangeError} for an invalid count or duration.
 * @throws {TypeError} for an unknown controller name.
 */
export async function startCluster(options: StartClusterOptions): Promise<SimulatedCluster> {
  if ("server" in options) {
    const { server, ...clusterOptions } = options;
    const cluster = await SimulatedCluster.start(
      {
        kubeConfig: server.kubeConfig(),
        clock: server.clock,
        kubernetesMinor: server.version.minor,
        appendContainerLog: (namespace, pod, container, text) =>
          server.appendPodLog(namespace, pod, container, text),
        startContainerProcess: (request) => server.startContainerProcess(request),
        ...(server.caPem !== undefined
          ? {
              signCertificate: (csrPem: string, signing: CertificateSigningOptions) =>
                server.signClientCertificate(csrPem, signing),
            }
          : {}),
      },
      clusterOptions,
    );
    const hook = `kubekit-cluster-${++clusterSequence}`;
    server.addPreShutdownHook(hook, () => cluster.stop());
    return cluster;
  }
  const { kubeConfig, clock, signal, ...clusterOptions } = options;
  const version = await new DiscoveryClient(kubeConfig.restConfig()).serverVersion(signal);
  return SimulatedCluster.start(
    {
      kubeConfig,
      clock: clock ?? realClock,
      kubernetesMinor: version.minor.replace(/\D+$/, ""),
      appendContainerLog: () => undefined,
    },
    clusterOptions,
  );
}
