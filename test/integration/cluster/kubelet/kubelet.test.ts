import type { ContainerStatus, Pod, PodCondition } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, type Logger } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";

/**
 * The simulated kubelets over real HTTP, on a FakeClock: the pod lifecycle and its status
 * fields, readiness delays, run-to-completion, exit codes, crash-loop back-off, graceful
 * deletion and container logs. Only the scheduler and the kubelets run (`controllers: []`).
 */

const START = Date.UTC(2026, 0, 1);
const at = (ms: number): string => new Date(START + ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function clientset(h: ReturnType<typeof useServer>): Clientset {
  return new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
}

function condition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

function containerStatus(pod: Pod, name: string): ContainerStatus | undefined {
  return [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ].find((c) => c.name === name);
}

/** A watch event of a pod (ERROR events, which carry a Status, are not collected). */
interface PodEvent {
  readonly type: string;
  readonly pod: Pod;
}

/** Waits until the pod satisfies `check`, and returns it. */
async function waitPod(
  cs: Clientset,
  name: string,
  what: string,
  check: (pod: Pod) => boolean,
  namespace = "default",
): Promise<Pod> {
  return eventually(`${name}: ${what}`, async () => {
    const p = await cs.coreV1.pods(namespace).get(name);
    return check(p) ? p : undefined;
  });
}

const isReady = (p: Pod): boolean => condition(p, "Ready")?.status === "True";

/** `[reason, message]` of the Events about the pod `name`, oldest first. */
async function podEvents(cs: Clientset, name: string): Promise<[string, string][]> {
  const list = await cs.coreV1.events("default").list();
  // As `kubectl describe` orders them: by time (the recorders of the scheduler and the
  // kubelet write concurrently, so the list order is not the order they happened in).
  const timeOf = (e: (typeof list.items)[number]): string =>
    e.eventTime ?? e.lastTimestamp ?? e.firstTimestamp ?? "";
  return list.items
    .filter((e) => e.involvedObject.name === name)
    .sort((a, b) => timeOf(a).localeCompare(timeOf(b)))
    .map((e) => [e.reason ?? "", e.message ?? ""]);
}

async function logOf(cs: Clientset, name: string, container?: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of cs.coreV1
    .pods("default")
    .log(name, container !== undefined ? { container } : {})) {
    lines.push(line);
  }
  return lines;
}

function pod(
  name: string,
  options: {
    annotations?: Record<string, string>;
    spec?: Partial<NonNullable<Pod["spec"]>>;
  } = {},
): Pod {
  return {
    metadata: { name, ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: { containers: [{ name: "app", image: "nginx" }], ...options.spec },
  };
}

describe("kubelet: the road to Running and Ready (default delays 0)", () => {
  /** What the cluster's components logged at warn or error level. */
  const complaints: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message, fields) => complaints.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => complaints.push(`${message} ${JSON.stringify(fields ?? {})}`),
  };
  const h = useServer({ cluster: { controllers: [], nodes: 2, logger } });

  it("reports Running and Ready in one status write, with kube's status fields", async () => {
    const cs = clientset(h);
    const events: PodEvent[] = [];
    const abort = new AbortController();
    // Watch from a list's resourceVersion: every change after it is delivered.
    const { resourceVersion } = (await cs.coreV1.pods("default").list()).metadata ?? {};
    const watching = (async () => {
      try {
        for await (const ev of cs.coreV1.pods("default").watch({
          fieldSelector: "metadata.name=one-write",
          ...(resourceVersion !== undefined ? { resourceVersion } : {}),
          signal: abort.signal,
        })) {
          if (ev.type !== "ERROR") events.push({ type: ev.type, pod: ev.object as Pod });
        }
      } catch {
        // aborted
      }
    })();
    const created = await cs.coreV1.pods("default").create(
      pod("one-write", {
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx:1.27",
              resources: { requests: { cpu: "100m" }, limits: { cpu: "200m" } },
            },
          ],
        },
      }),
    );
    const running = await waitPod(cs, "one-write", "Ready", isReady);
    expect(running.status).toMatchObject({
      phase: "Running",
      qosClass: "Burstable",
      hostIP: running.status?.hostIPs?.[0]?.ip,
    });
    const node = running.spec?.nodeName ?? "";
    const index = Number(node.replace("kubekit-node-", "")) - 1;
    expect(running.status?.hostIP).toBe(`172.18.0.${index + 2}`);
    expect(running.status?.podIP).toMatch(new RegExp(`^10\\.244\\.${index + 1}\\.\\d+$`));
    expect(running.status?.podIPs).toEqual([{ ip: running.status?.podIP }]);
    expect(running.status?.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(running.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["PodReadyToStartContainers", "True"],
      ["Initialized", "True"],
      ["Ready", "True"],
      ["ContainersReady", "True"],
      ["PodScheduled", "True"],
    ]);
    const app = containerStatus(running, "app");
    expect(app).toMatchObject({
      name: "app",
      image: "docker.io/library/nginx:1.27",
      ready: true,
      started: true,
      restartCount: 0,
      lastState: {},
      state: { running: { startedAt: running.status?.startTime } },
    });
    expect(app?.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(app?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);

    // Another pod going through the kubelet afterwards proves it has settled on the first.
    await cs.coreV1.pods("default").create(pod("after-one-write"));
    await waitPod(cs, "after-one-write", "Ready", isReady);
    abort.abort();
    await watching;
    // Created, bound, then one status write: Running and Ready together.
    const versions = events
      .filter((e) => e.type === "ADDED" || e.type === "MODIFIED")
      .map((e) => e.pod.metadata?.resourceVersion);
    expect(events[0]?.pod.metadata?.uid).toBe(created.metadata?.uid);
    expect(versions).toHaveLength(3);
    expect((await cs.coreV1.pods("default").get("one-write")).metadata?.resourceVersion).toBe(
      versions[2],
    );
  });

  it("records Scheduled, Pulled, Created and Started, and gives each pod of a node its own IP", async () => {
    const cs = clientset(h);
    const names = ["ip-a", "ip-b", "ip-c", "ip-d"];
    for (const n of names) await cs.coreV1.pods("default").create(pod(n));
    const pods = await Promise.all(names.map((n) => waitPod(cs, n, "Ready", isReady)));
    const ips = pods.map((p) => p.status?.podIP);
    expect(new Set(ips).size).toBe(names.length);
    await waitFor("kubelet events", async () => (await podEvents(cs, "ip-a")).length >= 4);
    // The scheduler's and the kubelet's recorders write concurrently: compare as sets.
    expect((await podEvents(cs, "ip-a")).sort()).toEqual(
      [
        ["Scheduled", `Successfully assigned default/ip-a to ${pods[0]?.spec?.nodeName}`],
        ["Pulled", 'Container image "nginx" already present on machine'],
        ["Created", "Created container: app"],
        ["Started", "Started container app"],
      ].sort(),
    );
    const list = await cs.coreV1.events("default").list();
    const pulled = list.items.find(
      (e) => e.involvedObject.name === "ip-a" && e.reason === "Pulled",
    );
    expect(pulled?.involvedObject.fieldPath).toBe("spec.containers{app}");
    expect(pulled?.source?.component ?? pulled?.reportingComponent).toBe("kubelet");
  });

  it("computes the QoS class from requests and limits", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("guaranteed", {
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx",
              resources: {
                limits: { cpu: "1", memory: "1Gi" },
                requests: { cpu: "1000m", memory: "1024Mi" },
              },
            },
          ],
        },
      }),
    );
    await cs.coreV1.pods("default").create(pod("best-effort"));
    expect((await waitPod(cs, "guaranteed", "Ready", isReady)).status?.qosClass).toBe("Guaranteed");
    expect((await waitPod(cs, "best-effort", "Ready", isReady)).status?.qosClass).toBe(
      "BestEffort",
    );
  });

  it("retries a status write answered 409 Conflict, quietly, until the pod is Ready", async () => {
    const cs = clientset(h);
    await cs.coreV1.namespaces().create({ metadata: { name: "conflicts" } });
    // The kubelet's first status write in the namespace is refused (binding is a create).
    h.server.faults.failNext(1, {
      code: 409,
      verbs: ["update"],
      resource: "pods",
      namespace: "conflicts",
    });
    await cs.coreV1.pods("conflicts").create(pod("contested"));
    const ready = await waitPod(cs, "contested", "Ready", isReady, "conflicts");
    expect(ready.status?.phase).toBe("Running");
    // A conflict is routine: the kubelet requeued without complaining.
    expect(complaints.filter((c) => c.includes("contested"))).toEqual([]);
  });

  it("leaves pods bound to a node name that is not the cluster's", async () => {
    const cs = clientset(h);
    await cs.coreV1
      .pods("default")
      .create(pod("elsewhere", { spec: { nodeName: "not-a-kubekit-node" } }));
    await cs.coreV1.pods("default").create(pod("control"));
    await waitPod(cs, "control", "Ready", isReady);
    const elsewhere = await cs.coreV1.pods("default").get("elsewhere");
    expect(elsewhere.status?.conditions).toBeUndefined();
    expect(elsewhere.status?.phase).toBe("Pending");
  });

  it("writes what the containers print to their logs (annotation, echo, sh -c, default line)", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("logs", {
        annotations: {
          [SIMULATION_ANNOTATIONS.log]: "pod-wide line 1\npod-wide line 2",
          [`${SIMULATION_ANNOTATIONS.log}.own`]: "only mine",
        },
        spec: {
          containers: [
            { name: "app", image: "nginx" },
            { name: "own", image: "busybox", command: ["sleep", "3600"] },
          ],
        },
      }),
    );
    await cs.coreV1.pods("default").create(
      pod("echo", {
        spec: {
          containers: [
            { name: "app", image: "busybox", command: ["echo"], args: ["hello", "world"] },
            {
              name: "sh",
              image: "busybox",
              command: ["sh", "-c", "echo 'one two'; sleep 3600 && echo done"],
            },
            { name: "plain", image: "registry.k8s.io/pause:3.9" },
          ],
        },
      }),
    );
    await waitPod(cs, "logs", "Ready", isReady);
    await waitPod(cs, "echo", "Ready", isReady);
    expect(await logOf(cs, "logs", "app")).toEqual(["pod-wide line 1", "pod-wide line 2"]);
    expect(await logOf(cs, "logs", "own")).toEqual(["only mine"]);
    expect(await logOf(cs, "echo", "app")).toEqual(["hello world"]);
    // The command runs on the clock: `sleep 3600` has not ended, so `done` is not printed yet.
    expect(await logOf(cs, "echo", "sh")).toEqual(["one two"]);
    expect(await logOf(cs, "echo", "plain")).toEqual([
      "kubekit: container plain (image registry.k8s.io/pause:3.9) started",
    ]);
  });

  it("kubectl delete semantics: DELETE answers the pod with a deletionTimestamp, then it is gone", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(pod("short-lived"));
    const ready = await waitPod(cs, "short-lived", "Ready", isReady);
    const answer = await cs.coreV1.pods("default").delete("short-lived");
    expect(answer.kind).toBe("Pod");
    expect((answer as Pod).metadata?.deletionTimestamp).toBeDefined();
    expect((answer as Pod).metadata?.deletionGracePeriodSeconds).toBe(30);
    await waitFor("pod gone", async () => {
      try {
        await cs.coreV1.pods("default").get("short-lived");
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    await waitFor("Killing event", async () =>
      (await podEvents(cs, "short-lived")).some(
        ([reason, message]) => reason === "Killing" && message === "Stopping container app",
      ),
    );
    expect(ready.metadata?.uid).toBeDefined();
  });

  it("logged no warning or error while doing all of the above", () => {
    expect(complaints).toEqual([]);
  });
});

describe("kubelet: delays on the FakeClock", () => {
  const clock = new FakeClock(START);
  const h = useServer({
    clock,
    cluster: {
      controllers: [],
      nodes: 1,
      containerStartMs: 5_000,
      readinessDelayMs: 3_000,
      completionMs: 2_000,
    },
  });

  it("Pending with ContainerCreating, then Running after containerStartMs, then Ready after readinessDelayMs", async () => {
    const cs = clientset(h);
    const t0 = clock.now() - START;
    await cs.coreV1.pods("default").create(pod("slow"));
    const pending = await waitPod(cs, "slow", "ContainerCreating", (p) =>
      Boolean(containerStatus(p, "app")?.state?.waiting),
    );
    expect(pending.status?.phase).toBe("Pending");
    expect(pending.status?.startTime).toBe(at(t0));
    expect(pending.status?.podIP).toBe("10.244.1.2");
    expect(pending.status?.hostIP).toBe("172.18.0.2");
    expect(condition(pending, "PodScheduled")?.status).toBe("True");
    expect(condition(pending, "Initialized")?.status).toBe("True");
    expect(condition(pending, "Ready")).toMatchObject({
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [app]",
    });
    expect(containerStatus(pending, "app")).toEqual({
      name: "app",
      image: "nginx",
      imageID: "",
      lastState: {},
      ready: false,
      restartCount: 0,
      started: false,
      state: { waiting: { reason: "ContainerCreating" } },
    });

    clock.advance(4_999);
    clock.advance(1);
    const running = await waitPod(cs, "slow", "Running", (p) => p.status?.phase === "Running");
    expect(containerStatus(running, "app")).toMatchObject({
      started: true,
      ready: false,
      state: { running: { startedAt: at(t0 + 5_000) } },
    });
    expect(condition(running, "Ready")?.status).toBe("False");

    clock.advance(3_000);
    const ready = await waitPod(cs, "slow", "Ready", isReady);
    expect(condition(ready, "Ready")?.lastTransitionTime).toBe(at(t0 + 8_000));
    expect(condition(ready, "ContainersReady")?.status).toBe("True");
  });

  it('adds a readiness probe\'s initialDelaySeconds; the ready annotation "false" never gets Ready', async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("probed", {
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx",
              readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 10 },
            },
          ],
        },
      }),
    );
    await cs.coreV1
      .pods("default")
      .create(pod("never-ready", { annotations: { [SIMULATION_ANNOTATIONS.ready]: "false" } }));
    await waitPod(cs, "probed", "ContainerCreating", (p) => Boolean(p.status?.containerStatuses));
    await waitPod(cs, "never-ready", "ContainerCreating", (p) =>
      Boolean(p.status?.containerStatuses),
    );
    clock.advance(5_000 + 3_000);
    const running = await waitPod(cs, "probed", "Running", (p) => p.status?.phase === "Running");
    expect(isReady(running)).toBe(false);
    clock.advance(10_000);
    await waitPod(cs, "probed", "Ready", isReady);
    clock.advance(60_000);
    const never = await waitPod(cs, "never-ready", "Running", (p) => p.status?.phase === "Running");
    expect(isReady(never)).toBe(false);
    expect(containerStatus(never, "app")?.ready).toBe(false);
  });

  it("runs init containers to completion in order before the app containers", async () => {
    const cs = clientset(h);
    const t0 = clock.now() - START;
    await cs.coreV1.pods("default").create(
      pod("with-init", {
        annotations: {
          [`${SIMULATION_ANNOTATIONS.runMs}.init-a`]: "1000",
          [`${SIMULATION_ANNOTATIONS.runMs}.init-b`]: "2000",
        },
        spec: {
          initContainers: [
            { name: "init-a", image: "busybox" },
            { name: "init-b", image: "busybox" },
          ],
        },
      }),
    );
    await waitPod(cs, "with-init", "created", (p) => Boolean(p.status?.initContainerStatuses));
    clock.advance(5_000);
    const first = await waitPod(cs, "with-init", "init-a running", (p) =>
      Boolean(containerStatus(p, "init-a")?.state?.running),
    );
    expect(first.status?.phase).toBe("Pending");
    expect(condition(first, "Initialized")).toMatchObject({
      status: "False",
      reason: "ContainersNotInitialized",
      message: "containers with incomplete status: [init-a init-b]",
    });
    expect(containerStatus(first, "init-b")?.state).toEqual({
      waiting: { reason: "PodInitializing" },
    });
    expect(containerStatus(first, "app")?.state).toEqual({
      waiting: { reason: "PodInitializing" },
    });
    clock.advance(1_000);
    const second = await waitPod(cs, "with-init", "init-b running", (p) =>
      Boolean(containerStatus(p, "init-b")?.state?.running),
    );
    expect(containerStatus(second, "init-a")).toMatchObject({
      ready: true,
      state: { terminated: { exitCode: 0, reason: "Completed", finishedAt: at(t0 + 6_000) } },
    });
    clock.advance(2_000);
    const initialized = await waitPod(
      cs,
      "with-init",
      "app running",
      (p) => p.status?.phase === "Running",
    );
    expect(condition(initialized, "Initialized")?.status).toBe("True");
    expect(containerStatus(initialized, "app")?.state?.running?.startedAt).toBe(at(t0 + 8_000));
  });
});

describe("kubelet: exits, restarts and back-off on the FakeClock", () => {
  const clock = new FakeClock(START);
  const h = useServer({ clock, cluster: { controllers: [], nodes: 1, completionMs: 2_000 } });

  it("runs restartPolicy Never pods to Succeeded when their command exits 0", async () => {
    const cs = clientset(h);
    const t0 = clock.now() - START;
    await cs.coreV1.pods("default").create(
      pod("job-like", {
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "app", image: "busybox", command: ["sleep", "2"] }],
        },
      }),
    );
    await waitPod(cs, "job-like", "Running", (p) => p.status?.phase === "Running");
    clock.advance(2_000);
    const done = await waitPod(cs, "job-like", "Succeeded", (p) => p.status?.phase === "Succeeded");
    expect(containerStatus(done, "app")).toMatchObject({
      ready: false,
      started: false,
      restartCount: 0,
      state: {
        terminated: {
          exitCode: 0,
          reason: "Completed",
          startedAt: at(t0),
          finishedAt: at(t0 + 2_000),
        },
      },
    });
    expect(condition(done, "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
    expect(condition(done, "PodReadyToStartContainers")?.status).toBe("False");
  });

  it("fails restartPolicy Never pods whose container exits non-zero; per-container annotations win", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("mixed", {
        annotations: {
          [SIMULATION_ANNOTATIONS.exitCode]: "0",
          [SIMULATION_ANNOTATIONS.runMs]: "500",
          [`${SIMULATION_ANNOTATIONS.exitCode}.b`]: "3",
          [`${SIMULATION_ANNOTATIONS.runMs}.b`]: "1000",
        },
        spec: {
          restartPolicy: "Never",
          containers: [
            { name: "a", image: "busybox" },
            { name: "b", image: "busybox" },
          ],
        },
      }),
    );
    await waitPod(cs, "mixed", "Running", (p) => p.status?.phase === "Running");
    clock.advance(500);
    const half = await waitPod(cs, "mixed", "a done", (p) =>
      Boolean(containerStatus(p, "a")?.state?.terminated),
    );
    expect(half.status?.phase).toBe("Running");
    clock.advance(500);
    const failed = await waitPod(cs, "mixed", "Failed", (p) => p.status?.phase === "Failed");
    expect(containerStatus(failed, "a")?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
    });
    expect(containerStatus(failed, "b")?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: "Error",
    });
    expect(condition(failed, "Ready")?.reason).toBe("ContainersNotReady");
  });

  it("restarts failing containers with the crash-loop back-off: at once, then 10 s, 20 s, 40 s", async () => {
    const cs = clientset(h);
    const t0 = clock.now() - START;
    await cs.coreV1.pods("default").create(
      pod("crasher", {
        annotations: {
          [SIMULATION_ANNOTATIONS.exitCode]: "1",
          [SIMULATION_ANNOTATIONS.runMs]: "0",
        },
      }),
    );
    const uid = (await cs.coreV1.pods("default").get("crasher")).metadata?.uid;
    const backOff = (seconds: string): string =>
      `back-off ${seconds} restarting failed container=app pod=crasher_default(${uid})`;
    // Started, exited 1 at once, restarted at once (restartCount 1), exited again: back-off 10 s.
    const first = await waitPod(cs, "crasher", "CrashLoopBackOff", (p) =>
      Boolean(containerStatus(p, "app")?.state?.waiting),
    );
    expect(first.status?.phase).toBe("Running");
    expect(containerStatus(first, "app")).toMatchObject({
      restartCount: 1,
      ready: false,
      started: false,
      state: { waiting: { reason: "CrashLoopBackOff", message: backOff("10s") } },
      lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: at(t0) } },
    });
    expect(isReady(first)).toBe(false);
    await waitFor("BackOff event", async () =>
      (await podEvents(cs, "crasher")).some(
        ([reason, message]) =>
          reason === "BackOff" &&
          message === `Back-off restarting failed container app in pod crasher_default(${uid})`,
      ),
    );

    clock.advance(9_999);
    // Nothing happens before the back-off is over (a later write would show restartCount 2).
    await cs.coreV1.pods("default").create(pod("crash-probe-1"));
    await waitPod(cs, "crash-probe-1", "Ready", isReady);
    expect(
      containerStatus(await cs.coreV1.pods("default").get("crasher"), "app")?.restartCount,
    ).toBe(1);

    clock.advance(1);
    const second = await waitPod(
      cs,
      "crasher",
      "restart 2",
      (p) => containerStatus(p, "app")?.restartCount === 2,
    );
    expect(containerStatus(second, "app")).toMatchObject({
      state: { waiting: { reason: "CrashLoopBackOff", message: backOff("20s") } },
      lastState: { terminated: { exitCode: 1, finishedAt: at(t0 + 10_000) } },
    });
    clock.advance(20_000);
    const third = await waitPod(
      cs,
      "crasher",
      "restart 3",
      (p) => containerStatus(p, "app")?.restartCount === 3,
    );
    expect(containerStatus(third, "app")?.state?.waiting?.message).toBe(backOff("40s"));
  });

  it("caps the back-off at 5 minutes", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("capped", {
        annotations: {
          [SIMULATION_ANNOTATIONS.exitCode]: "2",
          [SIMULATION_ANNOTATIONS.runMs]: "0",
        },
        spec: { restartPolicy: "OnFailure" },
      }),
    );
    await waitPod(cs, "capped", "back-off", (p) =>
      Boolean(containerStatus(p, "app")?.state?.waiting),
    );
    const expected = ["20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s"];
    let delayMs = 10_000;
    for (const [i, text] of expected.entries()) {
      clock.advance(delayMs);
      const p = await waitPod(
        cs,
        "capped",
        `restart ${i + 2}`,
        (q) => containerStatus(q, "app")?.restartCount === i + 2,
      );
      expect(containerStatus(p, "app")?.state?.waiting?.message).toMatch(
        new RegExp(`^back-off ${text} `),
      );
      expect(p.status?.phase).toBe("Running");
      delayMs = Math.min(delayMs * 2, 300_000);
    }
  });

  it("restarts an OnFailure container that failed, not one that succeeded", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("on-failure-ok", {
        spec: {
          restartPolicy: "OnFailure",
          containers: [{ name: "app", image: "busybox", command: ["sh", "-c", "sleep 2; true"] }],
        },
      }),
    );
    await waitPod(cs, "on-failure-ok", "Running", (p) => p.status?.phase === "Running");
    clock.advance(2_000);
    const done = await waitPod(
      cs,
      "on-failure-ok",
      "Succeeded",
      (p) => p.status?.phase === "Succeeded",
    );
    expect(containerStatus(done, "app")?.restartCount).toBe(0);
  });
});

describe("kubelet: graceful deletion on the FakeClock", () => {
  const clock = new FakeClock(START);
  const h = useServer({ clock, cluster: { controllers: [], nodes: 1 } });

  /** Collects the watch events of one pod until it is deleted. */
  function watchPod(cs: Clientset, name: string): { events: PodEvent[]; done: Promise<void> } {
    const events: PodEvent[] = [];
    const done = (async () => {
      for await (const ev of cs.coreV1
        .pods("default")
        .watch({ fieldSelector: `metadata.name=${name}` })) {
        if (ev.type !== "ERROR") events.push({ type: ev.type, pod: ev.object as Pod });
        if (ev.type === "DELETED") return;
      }
    })();
    return { events, done };
  }

  it("stops the containers after terminationMs, writes the final status, then removes the pod", async () => {
    const cs = clientset(h);
    await cs.coreV1
      .pods("default")
      .create(pod("graceful", { annotations: { [SIMULATION_ANNOTATIONS.terminationMs]: "2000" } }));
    await waitPod(cs, "graceful", "Ready", isReady);
    const watched = watchPod(cs, "graceful");
    const answer = (await cs.coreV1.pods("default").delete("graceful")) as Pod;
    expect(answer.metadata?.deletionTimestamp).toBe(at(clock.now() - START + 30_000));
    await waitFor("Killing event", async () =>
      (await podEvents(cs, "graceful")).some(([reason]) => reason === "Killing"),
    );
    // Still there, still running, while its containers stop.
    const stopping = await cs.coreV1.pods("default").get("graceful");
    expect(stopping.status?.phase).toBe("Running");
    clock.advance(2_000);
    await watched.done;
    const final = watched.events.filter((e) => e.type === "MODIFIED").at(-1)?.pod;
    expect(final?.status?.phase).toBe("Succeeded");
    expect(condition(final!, "Ready")?.status).toBe("False");
    expect(containerStatus(final!, "app")?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
    });
    expect(watched.events.at(-1)?.type).toBe("DELETED");
  });

  it("kills containers that outlive the grace period (exit 137) at its end", async () => {
    const cs = clientset(h);
    await cs.coreV1
      .pods("default")
      .create(
        pod("stubborn", { annotations: { [SIMULATION_ANNOTATIONS.terminationMs]: "60000" } }),
      );
    await waitPod(cs, "stubborn", "Ready", isReady);
    const watched = watchPod(cs, "stubborn");
    await cs.coreV1.pods("default").delete("stubborn", { gracePeriodSeconds: 5 });
    await waitFor("Killing event", async () =>
      (await podEvents(cs, "stubborn")).some(([reason]) => reason === "Killing"),
    );
    clock.advance(4_999);
    await cs.coreV1.pods("default").create(pod("stubborn-probe"));
    await waitPod(cs, "stubborn-probe", "Ready", isReady);
    expect(
      (await cs.coreV1.pods("default").get("stubborn")).metadata?.deletionTimestamp,
    ).toBeDefined();
    clock.advance(1);
    await watched.done;
    const final = watched.events.filter((e) => e.type === "MODIFIED").at(-1)?.pod;
    expect(final?.status?.phase).toBe("Failed");
    expect(containerStatus(final!, "app")?.state?.terminated).toMatchObject({
      exitCode: 137,
      reason: "Error",
    });
  });

  it("a pod with a finalizer stays, stopped, until the finalizer goes", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create({
      ...pod("finalized"),
      metadata: { name: "finalized", finalizers: ["example.com/hold"] },
    });
    await waitPod(cs, "finalized", "Ready", isReady);
    await cs.coreV1.pods("default").delete("finalized");
    // The kubelet stops it and asks for its removal; the finalizer keeps it, with no grace left.
    const stopped = await waitPod(
      cs,
      "finalized",
      "stopped and released by the kubelet",
      (p) => p.status?.phase === "Succeeded" && p.metadata?.deletionGracePeriodSeconds === 0,
    );
    expect(containerStatus(stopped, "app")?.state?.terminated?.reason).toBe("Completed");
    await cs.coreV1
      .pods("default")
      .patch("finalized", "application/merge-patch+json", { metadata: { finalizers: null } });
    await waitFor("pod gone", async () => {
      const list = await cs.coreV1
        .pods("default")
        .list({ fieldSelector: "metadata.name=finalized" });
      return list.items.length === 0;
    });
  });

  it("a pod with no running container is removed at once", async () => {
    const cs = clientset(h);
    await cs.coreV1.pods("default").create(
      pod("crashing-deleted", {
        annotations: {
          [SIMULATION_ANNOTATIONS.exitCode]: "1",
          [SIMULATION_ANNOTATIONS.runMs]: "0",
        },
      }),
    );
    await waitPod(cs, "crashing-deleted", "CrashLoopBackOff", (p) =>
      Boolean(containerStatus(p, "app")?.state?.waiting),
    );
    const answer = (await cs.coreV1.pods("default").delete("crashing-deleted")) as Pod;
    expect(answer.metadata?.deletionTimestamp).toBeDefined();
    await waitFor("pod gone", async () => {
      const list = await cs.coreV1
        .pods("default")
        .list({ fieldSelector: "metadata.name=crashing-deleted" });
      return list.items.length === 0;
    });
  });
});
