import type { Affinity, Node, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";

/**
 * The simulated kube-scheduler over real HTTP: binding through pods/binding, spreading,
 * nodeSelector / node affinity / taints / cordoned nodes, the Unschedulable condition with
 * kube's message, and the retry when a Node changes. Only the scheduler and the kubelets run
 * (`controllers: []`).
 */

const NOT_HELPFUL = (n: number): string =>
  `preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`;

function pod(name: string, spec: Partial<NonNullable<Pod["spec"]>> = {}): Pod {
  return {
    metadata: { name },
    spec: { containers: [{ name: "app", image: "nginx" }], ...spec },
  };
}

/** A required node affinity on the `kubernetes.io/hostname` label. */
function hostnameAffinity(operator: "In" | "NotIn", hostnames: string[]): Affinity {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "kubernetes.io/hostname", operator, values: hostnames }] },
        ],
      },
    },
  };
}

function clientset(h: ReturnType<typeof useServer>): Clientset {
  return new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
}

/** The node the pod is bound to, once it is. */
async function boundNode(cs: Clientset, name: string, namespace = "default"): Promise<string> {
  return eventually(`pod ${name} bound`, async () => {
    const p = await cs.coreV1.pods(namespace).get(name);
    return p.spec?.nodeName || undefined;
  });
}

/** The messages of the Events of `reason` about the pod `name`. */
async function eventMessages(cs: Clientset, name: string, reason: string): Promise<string[]> {
  const list = await cs.coreV1.events("default").list();
  return list.items
    .filter((e) => e.involvedObject.name === name && e.reason === reason)
    .map((e) => e.message ?? "");
}

async function patchNode(cs: Clientset, name: string, patch: object): Promise<Node> {
  return cs.coreV1.nodes().patch(name, "application/merge-patch+json", patch);
}

describe("scheduler: spreading and events", () => {
  const h = useServer({ cluster: { controllers: [], nodes: 3 } });

  it("binds pods to the nodes with the fewest pods, in parallel, and records Scheduled", async () => {
    const cs = clientset(h);
    const names = Array.from({ length: 9 }, (_, i) => `spread-${i}`);
    await Promise.all(names.map((n) => cs.coreV1.pods("default").create(pod(n))));
    const nodes = await Promise.all(names.map((n) => boundNode(cs, n)));
    const perNode = new Map<string, number>();
    for (const node of nodes) perNode.set(node, (perNode.get(node) ?? 0) + 1);
    expect(Object.fromEntries(perNode)).toEqual({
      "kubekit-node-1": 3,
      "kubekit-node-2": 3,
      "kubekit-node-3": 3,
    });
    const first = await cs.coreV1.pods("default").get("spread-0");
    await waitFor("Scheduled event", async () => {
      const messages = await eventMessages(cs, "spread-0", "Scheduled");
      return messages.includes(`Successfully assigned default/spread-0 to ${first.spec?.nodeName}`);
    });
    const events = await cs.coreV1.events("default").list();
    const scheduled = events.items.find(
      (e) => e.involvedObject.name === "spread-0" && e.reason === "Scheduled",
    );
    expect(scheduled?.type).toBe("Normal");
    expect(scheduled?.involvedObject.kind).toBe("Pod");
  });

  it("leaves pods of another scheduler alone and never re-binds a pod created with spec.nodeName", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(pod("other-sched", { schedulerName: "my-scheduler" }));
    await cs.coreV1.pods("default").create(pod("pinned", { nodeName: "kubekit-node-3" }));
    // The pinned pod is run by node 3's kubelet: Running there.
    await waitFor("pinned pod running", async () => {
      const p = await cs.coreV1.pods("default").get("pinned");
      return p.status?.phase === "Running";
    });
    expect((await cs.coreV1.pods("default").get("pinned")).spec?.nodeName).toBe("kubekit-node-3");
    // By then the scheduler has long seen the other pod; it stays unbound and untouched.
    const other = await cs.coreV1.pods("default").get("other-sched");
    expect(other.spec?.nodeName).toBeUndefined();
    expect(other.status?.conditions ?? []).toEqual([]);
    expect(await eventMessages(cs, "pinned", "Scheduled")).toEqual([]);
  });
});

describe("scheduler: filters", () => {
  const h = useServer({ cluster: { controllers: [], nodes: 3 } });

  it("honours nodeSelector and required node affinity", async () => {
    const cs = clientset(h);
    await cs.coreV1
      .pods("default")
      .create(pod("by-selector", { nodeSelector: { "kubernetes.io/hostname": "kubekit-node-2" } }));
    await cs.coreV1.pods("default").create(
      pod("by-affinity", {
        affinity: hostnameAffinity("NotIn", ["kubekit-node-1", "kubekit-node-2"]),
      }),
    );
    expect(await boundNode(cs, "by-selector")).toBe("kubekit-node-2");
    expect(await boundNode(cs, "by-affinity")).toBe("kubekit-node-3");
  });

  it("keeps pods off cordoned and tainted nodes unless they tolerate the taint", async () => {
    const cs = clientset(h);
    await patchNode(cs, "kubekit-node-1", { spec: { unschedulable: true } });
    await patchNode(cs, "kubekit-node-2", {
      spec: { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] },
    });
    try {
      const names = ["taint-a", "taint-b", "taint-c"];
      for (const n of names) await cs.coreV1.pods("default").create(pod(n));
      for (const n of names) expect(await boundNode(cs, n)).toBe("kubekit-node-3");
      await cs.coreV1.pods("default").create(
        pod("tolerating", {
          tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }],
          nodeSelector: { "kubernetes.io/hostname": "kubekit-node-2" },
        }),
      );
      expect(await boundNode(cs, "tolerating")).toBe("kubekit-node-2");
    } finally {
      await patchNode(cs, "kubekit-node-1", { spec: { unschedulable: null } });
      await patchNode(cs, "kubekit-node-2", { spec: { taints: null } });
    }
  });
});

describe("scheduler: unschedulable pods", () => {
  const h = useServer({ cluster: { controllers: [], nodes: 3 } });

  it("marks a pod that fits nowhere Unschedulable with kube's message, then binds it once a node matches", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(pod("needs-ssd", { nodeSelector: { disk: "ssd" } }));
    const message = `0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. ${NOT_HELPFUL(3)}`;
    const condition = await eventually("PodScheduled=False", async () => {
      const p = await cs.coreV1.pods("default").get("needs-ssd");
      return p.status?.conditions?.find((c) => c.type === "PodScheduled");
    });
    expect(condition).toMatchObject({
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message,
    });
    await waitFor("FailedScheduling event", async () =>
      (await eventMessages(cs, "needs-ssd", "FailedScheduling")).includes(message),
    );
    const events = await cs.coreV1.events("default").list();
    expect(
      events.items.find(
        (e) => e.involvedObject.name === "needs-ssd" && e.reason === "FailedScheduling",
      )?.type,
    ).toBe("Warning");

    await patchNode(cs, "kubekit-node-3", { metadata: { labels: { disk: "ssd" } } });
    expect(await boundNode(cs, "needs-ssd")).toBe("kubekit-node-3");
    // The kubelet reports PodScheduled=True once the pod runs.
    await waitFor("PodScheduled=True", async () => {
      const p = await cs.coreV1.pods("default").get("needs-ssd");
      return (
        p.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "True") ?? false
      );
    });
  });

  it("counts each node's reason in the message, sorted as kube sorts them", async () => {
    const cs = clientset(h);
    await patchNode(cs, "kubekit-node-1", { spec: { unschedulable: true } });
    await patchNode(cs, "kubekit-node-2", {
      spec: { taints: [{ key: "gpu", value: "", effect: "NoExecute" }] },
    });
    try {
      await cs.coreV1.pods("default").create(
        pod("nowhere", {
          affinity: hostnameAffinity("In", ["kubekit-node-1", "kubekit-node-2"]),
        }),
      );
      const condition = await eventually("PodScheduled=False", async () => {
        const p = await cs.coreV1.pods("default").get("nowhere");
        return p.status?.conditions?.find((c) => c.type === "PodScheduled");
      });
      expect(condition?.message).toBe(
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, " +
          "1 node(s) had untolerated taint {gpu: }, 1 node(s) were unschedulable. " +
          NOT_HELPFUL(3),
      );
      // Uncordoning node 1 makes it fit: the Node update retries the pod.
      await patchNode(cs, "kubekit-node-1", { spec: { unschedulable: null } });
      expect(await boundNode(cs, "nowhere")).toBe("kubekit-node-1");
    } finally {
      await patchNode(cs, "kubekit-node-1", { spec: { unschedulable: null } });
      await patchNode(cs, "kubekit-node-2", { spec: { taints: null } });
    }
  });

  it("a pod deleted while unschedulable is gone at once (no kubelet involved)", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(pod("doomed", { nodeSelector: { disk: "none" } }));
    await eventually("PodScheduled=False", async () => {
      const p = await cs.coreV1.pods("default").get("doomed");
      return p.status?.conditions?.find((c) => c.type === "PodScheduled");
    });
    await cs.coreV1.pods("default").delete("doomed");
    await expect(cs.coreV1.pods("default").get("doomed")).rejects.toMatchObject({ code: 404 });
  });
});
