import { beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  succeeded,
  tableRows,
  useKubectlSession,
  warnIfNoKubectl,
} from "../support/kubectl.js";
import type { KubectlResult, KubectlStream } from "../support/kubectl.js";

/**
 * StatefulSets and DaemonSets on `kubekit serve`'s simulated cluster, driven by real kubectl:
 * `rollout status` completes, `set image` rolls a StatefulSet out in reverse ordinal order,
 * `rollout history` lists the ControllerRevisions and `rollout undo` patches the workload back
 * to the previous one, a DaemonSet runs one pod per Node and `kubectl get ds` counts them.
 */

warnIfNoKubectl("the StatefulSet and DaemonSet conformance tests");

const NS = "workloads";
const ROLLOUT_TIMEOUT = ["--timeout=30s"];

const STATEFUL_SET = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${NS}}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80, name: http}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: ${NS}}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.25"}
`;

const DAEMON_SET = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ${NS}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: agent, image: "busybox:1.36", command: [sleep, "3600"]}
`;

describe.skipIf(!hasKubectl)("kubectl with StatefulSets and DaemonSets on kubekit serve", () => {
  const session = useKubectlSession();
  const kubectl = (...args: string[]): Promise<KubectlResult> => session().run([...args, "-n", NS]);

  beforeAll(async () => {
    succeeded(await session().run(["create", "namespace", NS]));
  });

  /** The images of the pods labelled `app=<app>`, by pod name. */
  async function images(app: string): Promise<Map<string, string>> {
    const out = succeeded(
      await kubectl(
        "get",
        "pods",
        "-l",
        `app=${app}`,
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image}{'\\n'}{end}",
      ),
    );
    return new Map(
      out
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.split(" ") as [string, string]),
    );
  }

  /** The order in which the pods of `app` got a deletionTimestamp, from a `kubectl get -w`. */
  function deletionOrder(watch: KubectlStream): string[] {
    const seen: string[] = [];
    for (const line of watch.stdout.split("\n")) {
      const [name, deleting] = line.trim().split(/\s+/);
      if (name && deleting && deleting !== "<none>" && !seen.includes(name)) seen.push(name);
    }
    return seen;
  }

  it("a StatefulSet of 3 rolls out: web-0..2 Running, READY 3/3", async () => {
    succeeded(await session().run(["apply", "-f", "-"], { stdin: STATEFUL_SET }));
    const status = succeeded(
      await kubectl("rollout", "status", "statefulset/web", ...ROLLOUT_TIMEOUT),
    );
    expect(status).toContain("partitioned roll out complete: 3 new pods have been updated...");
    const phases = succeeded(
      await kubectl(
        "get",
        "pods",
        "-l",
        "app=web",
        "-o",
        "jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}",
      ),
    );
    expect(phases.trim().split(" ").sort()).toEqual([
      "web-0=Running",
      "web-1=Running",
      "web-2=Running",
    ]);
    const rows = tableRows(succeeded(await kubectl("get", "statefulset", "web")));
    expect(rows[0]).toEqual(["NAME", "READY", "AGE"]);
    expect(rows[1]?.slice(0, 2)).toEqual(["web", "3/3"]);
    expect(succeeded(await kubectl("get", "pvc", "-o", "name"))).toBe("");
  });

  it("set image rolls the StatefulSet out from web-2 down; history lists 2 revisions; undo rolls back", async () => {
    const watch = session().stream([
      "get",
      "pods",
      "-n",
      NS,
      "-l",
      "app=web",
      "-w",
      "--no-headers",
      "-o",
      "custom-columns=NAME:.metadata.name,DELETING:.metadata.deletionTimestamp",
    ]);
    await watch.waitFor((w) => w.stdout.includes("web-2"), "the watch to list the pods");
    succeeded(await kubectl("set", "image", "statefulset/web", "nginx=nginx:1.26"));
    succeeded(await kubectl("rollout", "status", "statefulset/web", ...ROLLOUT_TIMEOUT));
    await watch.stop();
    expect(deletionOrder(watch)).toEqual(["web-2", "web-1", "web-0"]);
    expect([...(await images("web")).values()]).toEqual(Array(3).fill("nginx:1.26"));

    const history = tableRows(succeeded(await kubectl("rollout", "history", "statefulset/web")));
    expect(history).toEqual([
      ["statefulset.apps/web"],
      ["REVISION", "CHANGE-CAUSE"],
      ["1", "<none>"],
      ["2", "<none>"],
    ]);
    const first = succeeded(await kubectl("rollout", "history", "statefulset/web", "--revision=1"));
    expect(first).toContain("Image:	nginx:1.25");

    expect(succeeded(await kubectl("rollout", "undo", "statefulset/web"))).toBe(
      "statefulset.apps/web rolled back\n",
    );
    succeeded(await kubectl("rollout", "status", "statefulset/web", ...ROLLOUT_TIMEOUT));
    expect([...(await images("web")).values()]).toEqual(Array(3).fill("nginx:1.25"));
    expect(
      tableRows(succeeded(await kubectl("rollout", "history", "statefulset/web"))).slice(2),
    ).toEqual([
      ["2", "<none>"],
      ["3", "<none>"],
    ]);
  });

  it("a DaemonSet runs one pod per node; kubectl get ds counts them; rollout status, history and undo", async () => {
    succeeded(await session().run(["apply", "-f", "-"], { stdin: DAEMON_SET }));
    expect(
      succeeded(await kubectl("rollout", "status", "daemonset/agent", ...ROLLOUT_TIMEOUT)),
    ).toContain('daemon set "agent" successfully rolled out');
    const nodes = succeeded(
      await kubectl(
        "get",
        "pods",
        "-l",
        "app=agent",
        "-o",
        "jsonpath={range .items[*]}{.spec.nodeName} {end}",
      ),
    );
    expect(nodes.trim().split(" ").sort()).toEqual([
      "kubekit-node-1",
      "kubekit-node-2",
      "kubekit-node-3",
    ]);
    const rows = tableRows(succeeded(await kubectl("get", "ds", "agent")));
    expect(rows[0]).toEqual([
      "NAME",
      "DESIRED",
      "CURRENT",
      "READY",
      "UP-TO-DATE",
      "AVAILABLE",
      "NODE SELECTOR",
      "AGE",
    ]);
    expect(rows[1]?.slice(0, 7)).toEqual(["agent", "3", "3", "3", "3", "3", "<none>"]);

    succeeded(await kubectl("set", "image", "daemonset/agent", "agent=busybox:1.37"));
    succeeded(await kubectl("rollout", "status", "daemonset/agent", ...ROLLOUT_TIMEOUT));
    expect([...(await images("agent")).values()]).toEqual(Array(3).fill("busybox:1.37"));
    expect(
      tableRows(succeeded(await kubectl("rollout", "history", "daemonset/agent"))).slice(1),
    ).toEqual([
      ["REVISION", "CHANGE-CAUSE"],
      ["1", "<none>"],
      ["2", "<none>"],
    ]);
    expect(succeeded(await kubectl("rollout", "undo", "daemonset/agent"))).toBe(
      "daemonset.apps/agent rolled back\n",
    );
    succeeded(await kubectl("rollout", "status", "daemonset/agent", ...ROLLOUT_TIMEOUT));
    expect([...(await images("agent")).values()]).toEqual(Array(3).fill("busybox:1.36"));
  });
});
