import { setMaxListeners } from "node:events";
import type { Node } from "kubernetes-types/core/v1.js";
import { formatTime } from "kubekit/apimachinery";
import { isAlreadyExists } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";

/** What every simulated node offers (a kind worker's shape: 4 CPUs, 16 GiB, 110 pods). */
const NODE_CAPACITY = {
  cpu: "4",
  memory: "16374584Ki",
  pods: "110",
  "ephemeral-storage": "102626232Ki",
};

/** The simulated kubelets' version, reported in each Node's nodeInfo. */
function kubeletVersion(ctx: ClusterContext): string {
  return `v1.${ctx.settings.kubernetesMinor}.0-kubekit`;
}

/**
 * The pod CIDR of the `index`th node (0-based): the `(index + 1)`th `/24` from `10.244.0.0`,
 * so kind's `10.244.<index + 1>.0/24` for its first 255 nodes, then `10.245.0.0/24` and on
 * (a cluster CIDR of `10.244.0.0/14` holds the 1,000 nodes a cluster may have).
 */
export function podCidrOf(index: number): string {
  const block = index + 1;
  return `10.${244 + Math.floor(block / 256)}.${block % 256}.0/24`;
}

/**
 * The InternalIP of the `index`th node (0-based): the `(index + 2)`th address of
 * `172.18.0.0/16`, kind's Docker network (`172.18.0.<index + 2>` for its first 254 nodes).
 */
export function nodeInternalIp(index: number): string {
  const host = index + 2;
  return `172.18.${Math.floor(host / 256)}.${host % 256}`;
}

/** Nodes registered at once (each kubelet registers itself, concurrently with the others). */
const REGISTRATION_CONCURRENCY = 16;

/**
 * Registers the cluster's Nodes as kubelets do on start (`pkg/kubelet/kubelet_node_status.go`
 * registerWithAPIServer, then the first status update): the well-known labels, a pod CIDR,
 * capacity, addresses, nodeInfo and the four conditions with `Ready=True` (KubeletReady).
 * A node that already exists keeps its spec and gets its status written again. Nodes are
 * registered 16 at a time; the first failure rejects at once and no further node is started.
 */
export async function registerNodes(ctx: ClusterContext, signal: AbortSignal): Promise<void> {
  const names = ctx.settings.nodeNames;
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < names.length && !failed) {
      const index = next++;
      try {
        await registerNode(ctx, index, names[index] ?? "", signal);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Math.min(REGISTRATION_CONCURRENCY, names.length);
  // Every request in flight listens on the signal.
  setMaxListeners(2 * workers, signal);
  await Promise.all(Array.from({ length: workers }, worker));
}

/** Registers the `index`th node (0-based), named `name`, and writes its first status. */
async function registerNode(
  ctx: ClusterContext,
  index: number,
  name: string,
  signal: AbortSignal,
): Promise<void> {
  const nodes = ctx.clientset("kubelet").coreV1.nodes();
  const now = formatTime(ctx.clock.now());
  const node: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
      },
    },
    spec: {
      podCIDR: podCidrOf(index),
      podCIDRs: [podCidrOf(index)],
      providerID: `kubekit://${name}`,
    },
  };
  let stored: Node;
  try {
    stored = await nodes.create(node, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    stored = await nodes.get(name, { signal });
  }
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  await nodes.updateStatus(
    {
      ...stored,
      status: {
        capacity: NODE_CAPACITY,
        allocatable: NODE_CAPACITY,
        conditions: [
          condition(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
          ),
          condition(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
          ),
          condition(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
          ),
          condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        addresses: [
          { type: "InternalIP", address: nodeInternalIp(index) },
          { type: "Hostname", address: name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: `kubekit-${name}`,
          systemUUID: `kubekit-${name}`,
          bootID: `kubekit-${name}`,
          kernelVersion: "6.8.0-kubekit",
          osImage: "kubekit simulated node",
          containerRuntimeVersion: "kubekit://simulated",
          kubeletVersion: kubeletVersion(ctx),
          kubeProxyVersion: kubeletVersion(ctx),
          operatingSystem: "linux",
          architecture: "amd64",
        },
      },
    },
    { signal },
  );
}
