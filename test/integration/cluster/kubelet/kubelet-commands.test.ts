import { text } from "node:stream/consumers";
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes, isInvalid, type StatusError } from "kubekit";
import { eventually, useServer } from "../../../support/server-test-helpers.js";

/**
 * The simulated kubelet runs each container's command in the built-in shell on the server's
 * clock (a FakeClock here): phases, exit codes, restarts and logs follow from what the command
 * did; ephemeral containers are added through `pods/ephemeralcontainers` and reached by exec.
 */

const START = Date.UTC(2026, 0, 1);
const NS = "default";

function statusOf(pod: Pod, name: string): ContainerStatus | undefined {
  return [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.ephemeralContainerStatuses ?? []),
  ].find((c) => c.name === name);
}

function runPod(name: string, spec: Partial<NonNullable<Pod["spec"]>>): Pod {
  return { metadata: { name }, spec: { containers: [], restartPolicy: "Never", ...spec } };
}

describe("kubelet: containers run their command on the clock", () => {
  const clock = new FakeClock(START);
  const h = useServer({ clock, cluster: { controllers: [], nodes: 1 } });
  const cs = (): Clientset => new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });

  async function waitPod(name: string, what: string, check: (p: Pod) => boolean): Promise<Pod> {
    return eventually(`${name}: ${what}`, async () => {
      const p = await cs().coreV1.pods(NS).get(name);
      return check(p) ? p : undefined;
    });
  }

  async function logOf(name: string, container: string, previous = false): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of cs().coreV1.pods(NS).log(name, { container, previous }))
      lines.push(line);
    return lines;
  }

  async function exec(name: string, command: string[], container?: string): Promise<string> {
    const session = await cs()
      .coreV1.pods(NS)
      .exec(name, { command, ...(container ? { container } : {}) });
    const [stdout] = await Promise.all([text(session.stdout!), session.status]);
    return stdout;
  }

  it("fails a pod whose command exits 3, with what it printed in its log", async () => {
    await cs()
      .coreV1.pods(NS)
      .create(
        runPod("once", {
          containers: [
            { name: "once", image: "busybox", command: ["sh", "-c", "echo hi; exit 3"] },
          ],
        }),
      );
    const failed = await waitPod("once", "Failed", (p) => p.status?.phase === "Failed");
    expect(statusOf(failed, "once")?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: "Error",
    });
    expect(await logOf("once", "once")).toEqual(["hi"]);
  });

  it("restarts a failing command with the crash-loop back-off; --previous shows the last instance", async () => {
    await cs()
      .coreV1.pods(NS)
      .create(
        runPod("crash", {
          restartPolicy: "Always",
          containers: [
            { name: "app", image: "busybox", command: ["sh", "-c", "date +%s; exit 1"] },
          ],
        }),
      );
    const waiting = await waitPod(
      "crash",
      "CrashLoopBackOff",
      (p) => statusOf(p, "app")?.state?.waiting?.reason === "CrashLoopBackOff",
    );
    const app = statusOf(waiting, "app")!;
    expect(app.restartCount).toBe(1);
    expect(app.lastState?.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(app.state?.waiting?.message).toMatch(/^back-off 10s restarting failed container=app /);
    const seconds = String(Math.floor(clock.now() / 1000));
    expect(await logOf("crash", "app", true)).toEqual([seconds]);
    await cs().coreV1.pods(NS).delete("crash", { gracePeriodSeconds: 0 });
  });

  it("runs init containers first, in order, and gives every container its environment", async () => {
    await cs()
      .coreV1.services(NS)
      .create({
        metadata: { name: "my-svc" },
        spec: { ports: [{ name: "http", port: 8080 }] },
      });
    await cs()
      .coreV1.pods(NS)
      .create(
        runPod("ordered", {
          initContainers: [{ name: "wait", image: "busybox", command: ["sleep", "5"] }],
          containers: [
            {
              name: "main",
              image: "busybox",
              command: [
                "sh",
                "-c",
                'echo "$POD $GREETING $MY_SVC_SERVICE_PORT_HTTP $KUBERNETES_SERVICE_PORT"; sleep 60',
              ],
              env: [
                { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "GREETING", value: "hello $(POD)" },
              ],
            },
          ],
        }),
      );
    const pending = await waitPod(
      "ordered",
      "init running",
      (p) => statusOf(p, "wait")?.state?.running !== undefined,
    );
    expect(pending.status?.phase).toBe("Pending");
    clock.advance(5_000);
    await waitPod("ordered", "Running", (p) => p.status?.phase === "Running");
    expect(await logOf("ordered", "main")).toEqual(["ordered hello ordered 8080 443"]);
    // Graceful deletion stops the process; the pod goes away.
    await cs().coreV1.pods(NS).delete("ordered");
    await eventually("ordered gone", async () =>
      (await cs().coreV1.pods(NS).list()).items.some((p) => p.metadata?.name === "ordered")
        ? undefined
        : true,
    );
  });

  it("adds an ephemeral container through pods/ephemeralcontainers; exec reaches it", async () => {
    // Discovery lists the subresource as kube-apiserver does.
    const v1 = (await (await fetch(`${h.server.url}/api/v1`)).json()) as {
      resources: { name: string; verbs: string[] }[];
    };
    expect(v1.resources.find((r) => r.name === "pods/ephemeralcontainers")?.verbs).toEqual([
      "get",
      "patch",
      "update",
    ]);
    const pods = cs().coreV1.pods(NS);
    await pods.create({
      metadata: { name: "box" },
      spec: { containers: [{ name: "box", image: "busybox", command: ["sleep", "3600"] }] },
    });
    await waitPod("box", "Running", (p) => p.status?.phase === "Running");
    const debug = {
      name: "dbg",
      image: "busybox",
      stdin: true,
      tty: true,
      targetContainerName: "box",
    };
    const patched = await pods.patch(
      "box",
      PatchTypes.strategicMerge,
      { spec: { ephemeralContainers: [debug] } },
      { subresource: "ephemeralcontainers" },
    );
    expect(patched.spec?.ephemeralContainers?.[0]).toMatchObject({
      ...debug,
      imagePullPolicy: "Always",
    });
    await waitPod("box", "dbg running", (p) => statusOf(p, "dbg")?.state?.running !== undefined);
    expect(await exec("box", ["whoami"], "dbg")).toBe("root\n");
    expect(await exec("box", ["sh", "-c", "echo from-dbg > /proc/1/fd/1"], "dbg")).toBe("");
    expect(await logOf("box", "dbg")).toEqual(["from-dbg"]);

    const reject = async (body: object): Promise<string> => {
      const err = (await pods
        .patch("box", PatchTypes.merge, body, { subresource: "ephemeralcontainers" })
        .catch((e: unknown) => e)) as StatusError;
      expect(isInvalid(err)).toBe(true);
      return err.message;
    };
    const box = await pods.get("box");
    const [existing] = box.spec!.ephemeralContainers!;
    expect(
      await reject({
        spec: { ephemeralContainers: [existing, { name: "box", image: "busybox" }] },
      }),
    ).toContain("spec.ephemeralContainers[1].name: Duplicate value");
    expect(
      await reject({
        spec: {
          ephemeralContainers: [
            existing,
            { name: "p", image: "busybox", ports: [{ containerPort: 80 }] },
          ],
        },
      }),
    ).toContain(
      "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
    );
    expect(
      await reject({
        spec: {
          ephemeralContainers: [
            existing,
            { name: "t", image: "busybox", targetContainerName: "x" },
          ],
        },
      }),
    ).toContain('spec.ephemeralContainers[1].targetContainerName: Not found: "x"');
    expect(await reject({ spec: { ephemeralContainers: [] } })).toContain(
      'existing ephemeral containers "dbg" may not be removed',
    );
    // Other fields written through the subresource are ignored; a pod update cannot add one.
    await pods.patch(
      "box",
      PatchTypes.merge,
      { metadata: { labels: { x: "y" } } },
      { subresource: "ephemeralcontainers" },
    );
    expect((await pods.get("box")).metadata?.labels).toBeUndefined();
    const update = await pods
      .patch("box", PatchTypes.merge, {
        spec: { ephemeralContainers: [existing, { name: "e2", image: "busybox" }] },
      })
      .catch((e: unknown) => e);
    expect(isInvalid(update)).toBe(true);
  });

  // Last: an hour-long jump of the FakeClock outlives the informers' watches.
  it("keeps `sleep 3600` Running for an hour of clock time, then Succeeded", async () => {
    const t0 = clock.now();
    await cs()
      .coreV1.pods(NS)
      .create(
        runPod("sleeper", {
          containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }],
        }),
      );
    await waitPod("sleeper", "Running", (p) => p.status?.phase === "Running");
    expect(await exec("sleeper", ["echo", "hi"])).toBe("hi\n");
    clock.advance(3_599_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await cs().coreV1.pods(NS).get("sleeper")).status?.phase).toBe("Running");
    clock.advance(1_000);
    const done = await waitPod("sleeper", "Succeeded", (p) => p.status?.phase === "Succeeded");
    expect(statusOf(done, "main")?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
      finishedAt: new Date(t0 + 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    });
  });
});
