import type { JsonObject } from "kubekit";
import { ResourceOperations, type WriteOptions } from "../store/resource-operations.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";
import type { DeferredWork } from "./controller-runner.js";

/** The Service's ClusterIP: the first address of the service CIDR (`10.96.0.0/12`). */
export const KUBERNETES_SERVICE_IP = "10.96.0.1";
/** The Service's port, named `https` (kube-apiserver's `--kubernetes-service-node-port` aside). */
export const KUBERNETES_SERVICE_PORT = 443;
/** Where the server's own endpoint points: it listens on loopback only. */
const SERVER_ADDRESS = "127.0.0.1";
const NAMESPACE = "default";
const NAME = "kubernetes";
const WRITE: WriteOptions = {
  dryRun: false,
  fieldManager: "kube-apiserver",
  fieldValidation: "Ignore",
  warnings: [],
};

/** The three objects the controller keeps, by resource (`group/plural`) and version. */
const RESOURCES = [
  { group: "", version: "v1", plural: "services" },
  { group: "", version: "v1", plural: "endpoints" },
  { group: "discovery.k8s.io", version: "v1", plural: "endpointslices" },
] as const;

/**
 * kube-apiserver's controlplane controller for the `kubernetes` Service
 * (`pkg/controlplane/controller/kubernetesservice/controller.go` and its endpoint reconciler):
 * the Service `default/kubernetes` (ClusterIP {@link KUBERNETES_SERVICE_IP}, no selector, port
 * 443 `https` → the server's port; labels `component: apiserver`, `provider: kubernetes`) with
 * its Endpoints and EndpointSlice (`kubernetes.io/service-name: kubernetes`) pointing at
 * 127.0.0.1 and the server's port. Created at start once the server listens, and created
 * again (deferred, after the write) when one is deleted; objects that exist are left alone
 * (the server keeps its port across a restart).
 */
export class KubernetesServiceController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;
  readonly #port: () => number;

  constructor(ctx: ServerContext, work: DeferredWork, port: () => number) {
    this.#ctx = ctx;
    this.#work = work;
    this.#port = port;
  }

  /** Storage listener: a deletion of one of the objects schedules {@link ensure}. */
  onEvent(event: StorageEvent): void {
    if (event.type !== "DELETED" || event.key !== `${NAMESPACE}/${NAME}`) return;
    if (RESOURCES.some((r) => event.resource === `${r.group}/${r.plural}`)) {
      this.#work.schedule("kubernetes-service", () => this.ensure());
    }
  }

  /** Creates the objects that are missing (existing ones are left as they are). */
  ensure(): void {
    const port = this.#port();
    const desired: JsonObject[] = [
      {
        metadata: { name: NAME, labels: { component: "apiserver", provider: "kubernetes" } },
        spec: {
          type: "ClusterIP",
          clusterIP: KUBERNETES_SERVICE_IP,
          ports: [
            { name: "https", port: KUBERNETES_SERVICE_PORT, protocol: "TCP", targetPort: port },
          ],
          sessionAffinity: "None",
        },
      },
      {
        metadata: {
          name: NAME,
          labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
        },
        subsets: [
          {
            addresses: [{ ip: SERVER_ADDRESS }],
            ports: [{ name: "https", port, protocol: "TCP" }],
          },
        ],
      },
      {
        metadata: { name: NAME, labels: { "kubernetes.io/service-name": NAME } },
        addressType: "IPv4",
        endpoints: [{ addresses: [SERVER_ADDRESS], conditions: { ready: true } }],
        ports: [{ name: "https", port, protocol: "TCP" }],
      },
    ];
    const ops = new ResourceOperations(this.#ctx);
    RESOURCES.forEach((resource, i) => {
      const entry = this.#ctx.registry.lookup(resource.group, resource.version, resource.plural);
      const want = desired[i];
      if (!entry || !want) return;
      const body = {
        apiVersion: resource.group === "" ? "v1" : `${resource.group}/v1`,
        kind: entry.info.kind,
        ...want,
      };
      if (!ops.find(entry, NAMESPACE, NAME)) ops.create(entry, NAMESPACE, body, WRITE);
    });
  }
}
