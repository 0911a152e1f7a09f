import { describe, expect, it } from "vitest";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import {
  hasKubectl,
  tableRows,
  warnIfNoKubectl,
  succeeded,
  useKubectlSession,
} from "../support/kubectl.js";

/**
 * Pods under `kubekit serve` (which runs the simulated cluster by default) with real kubectl:
 * the scheduler binds them, the kubelets run them, so `kubectl run`, `wait`, `get -o wide`,
 * `logs`, `describe` and `delete` behave as against a cluster.
 */

warnIfNoKubectl("the kubectl pods conformance tests");
describe.skipIf(!hasKubectl)("kubectl and pods against kubekit serve's cluster", () => {
  const session = useKubectlSession();

  it("kubectl run, then wait --for=condition=Ready", async () => {
    expect(succeeded(await session().run(["run", "web", "--image=nginx"]))).toBe(
      "pod/web created\n",
    );
    expect(
      succeeded(await session().run(["wait", "--for=condition=Ready", "pod/web", "--timeout=30s"])),
    ).toBe("pod/web condition met\n");
  });

  it("get pods -o wide shows Running, the pod IP and the node", async () => {
    const rows = tableRows(succeeded(await session().run(["get", "pods", "web", "-o", "wide"])));
    expect(rows[0]).toEqual([
      "NAME",
      "READY",
      "STATUS",
      "RESTARTS",
      "AGE",
      "IP",
      "NODE",
      "NOMINATED NODE",
      "READINESS GATES",
    ]);
    const [name, ready, status, restarts, , ip, node, nominated, gates] = rows[1] ?? [];
    expect([name, ready, status, restarts]).toEqual(["web", "1/1", "Running", "0"]);
    expect(ip).toMatch(/^10\.244\.\d+\.\d+$/);
    expect(node).toMatch(/^kubekit-node-\d+$/);
    expect([nominated, gates]).toEqual(["<none>", "<none>"]);
  });

  it("logs shows the simulated output", async () => {
    expect(succeeded(await session().run(["logs", "web"]))).toBe(
      "kubekit: container web (image nginx) started\n",
    );
  });

  it("describe pod shows the node, the IP, the conditions and the events", async () => {
    const out = succeeded(await session().run(["describe", "pod", "web"]));
    expect(out).toMatch(/^Node:\s+kubekit-node-\d+\/172\.18\.0\.\d+$/m);
    expect(out).toMatch(/^Status:\s+Running$/m);
    expect(out).toMatch(/^IP:\s+10\.244\.\d+\.\d+$/m);
    expect(out).toMatch(/^QoS Class:\s+BestEffort$/m);
    expect(out).toMatch(/^\s+Ready\s+True\s*$/m);
    expect(out).toMatch(/^\s+Container ID:\s+containerd:\/\/[0-9a-f]{64}$/m);
    expect(out).toMatch(/^\s+Image ID:\s+docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/m);
    expect(out).toMatch(
      /Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned default\/web to kubekit-node-\d+/,
    );
    expect(out).toMatch(
      /Normal\s+Pulled\s+.*kubelet\s+Container image "nginx" already present on machine/,
    );
    expect(out).toMatch(/Normal\s+Created\s+.*kubelet\s+Created container: web/);
    expect(out).toMatch(/Normal\s+Started\s+.*kubelet\s+Started container web/);
  });

  it("delete pod returns once the pod is gone", async () => {
    expect(succeeded(await session().run(["delete", "pod", "web"]))).toBe('pod "web" deleted\n');
    const after = await session().run(["get", "pod", "web"]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('pods "web" not found');
  });

  it("a restartPolicy Never pod runs its echo to completion", async () => {
    succeeded(
      await session().run([
        "run",
        "hello",
        "--image=busybox",
        "--restart=Never",
        "--",
        "echo",
        "hi there",
      ]),
    );
    succeeded(
      await session().run([
        "wait",
        "--for=jsonpath={.status.phase}=Succeeded",
        "pod/hello",
        "--timeout=30s",
      ]),
    );
    expect(succeeded(await session().run(["logs", "hello"]))).toBe("hi there\n");
    const rows = tableRows(succeeded(await session().run(["get", "pod", "hello"])));
    expect(rows[1]?.slice(0, 4)).toEqual(["hello", "0/1", "Completed", "0"]);
  });

  it("a failing container shows CrashLoopBackOff", async () => {
    succeeded(
      await session().run([
        "run",
        "crash",
        "--image=busybox",
        `--annotations=${SIMULATION_ANNOTATIONS.exitCode}=1`,
        `--annotations=${SIMULATION_ANNOTATIONS.runMs}=0`,
      ]),
    );
    succeeded(
      await session().run([
        "wait",
        "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=CrashLoopBackOff",
        "pod/crash",
        "--timeout=30s",
      ]),
    );
    const rows = tableRows(succeeded(await session().run(["get", "pod", "crash"])));
    expect(rows[1]?.slice(0, 3)).toEqual(["crash", "0/1", "CrashLoopBackOff"]);
    expect(rows[1]?.[3]).toMatch(/^1 \(.+ ago\)$/);
  });
});
