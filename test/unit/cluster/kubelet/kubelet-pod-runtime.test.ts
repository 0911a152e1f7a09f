import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import type { ClusterSettings } from "../../../../packages/cluster/src/cluster-context.js";
import {
  PodRuntime,
  type PodRuntimeHooks,
  type SimulatedContainer,
} from "../../../../packages/cluster/src/kubelet/kubelet-pod-runtime.js";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";

const SETTINGS: ClusterSettings = {
  kubernetesMinor: "32",
  nodeNames: ["kubekit-node-1"],
  containerStartMs: 0,
  readinessDelayMs: 0,
  completionMs: 1_000,
};

function podWith(
  annotations: Record<string, string>,
  spec: Partial<NonNullable<Pod["spec"]>> = {},
): Pod {
  return {
    metadata: { name: "p", namespace: "ns", uid: "uid-1", annotations },
    spec: { containers: [{ name: "app", image: "busybox" }], ...spec },
  };
}

/** Hooks that record what happened, as `kind:container@ms`. */
function recorder(): { hooks: PodRuntimeHooks; log: string[] } {
  const log: string[] = [];
  const name = (c: SimulatedContainer): string => c.spec.name;
  return {
    log,
    hooks: {
      started: (c, atMs) => log.push(`started:${name(c)}@${atMs}`),
      backOff: (c) => log.push(`backOff:${name(c)}`),
      killing: (c) => log.push(`killing:${name(c)}`),
    },
  };
}

function app(runtime: PodRuntime): SimulatedContainer {
  const c = runtime.containers[0];
  if (c === undefined) throw new Error("no app container");
  return c;
}

describe("PodRuntime", () => {
  it("starts after containerStartMs and wakes the kubelet exactly then, then when ready", () => {
    const { hooks, log } = recorder();
    const runtime = new PodRuntime(podWith({}), "10.244.1.2", 0, {
      ...SETTINGS,
      containerStartMs: 500,
      readinessDelayMs: 200,
    });
    expect(runtime.advance(0, hooks)).toBe(500);
    expect(app(runtime).state).toEqual({ kind: "waiting", reason: "ContainerCreating" });
    expect(runtime.advance(499, hooks)).toBe(500);
    expect(log).toEqual([]);
    expect(runtime.advance(500, hooks)).toBe(700);
    expect(log).toEqual(["started:app@500"]);
    expect(runtime.isReady(app(runtime), 699)).toBe(false);
    expect(runtime.advance(700, hooks)).toBeUndefined();
    expect(runtime.isReady(app(runtime), 700)).toBe(true);
  });

  it("applies transitions in time order when time jumps, stamping each at its own time", () => {
    const { hooks, log } = recorder();
    const runtime = new PodRuntime(
      podWith(
        { [`${SIMULATION_ANNOTATIONS.runMs}.init`]: "100" },
        { restartPolicy: "Never", initContainers: [{ name: "init", image: "busybox" }] },
      ),
      "10.244.1.2",
      0,
      SETTINGS,
    );
    expect(runtime.advance(10_000, hooks)).toBeUndefined();
    expect(log).toEqual(["started:init@0", "started:app@100"]);
    expect(app(runtime).state).toMatchObject({
      kind: "terminated",
      exitCode: 0,
      startedAtMs: 100,
      finishedAtMs: 1_100,
    });
    expect(runtime.finished).toBe(true);
  });

  it("backs off 10 s, 20 s, 40 s … from each exit, capped at 5 minutes", () => {
    const { hooks, log } = recorder();
    const runtime = new PodRuntime(
      podWith({ [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "0" }),
      "10.244.1.2",
      0,
      SETTINGS,
    );
    // Exit at 0, restarted at once, exit again at 0: back-off 10 s.
    expect(runtime.advance(0, hooks)).toBe(10_000);
    expect(app(runtime).restartCount).toBe(1);
    expect(app(runtime).state).toMatchObject({ kind: "waiting", reason: "CrashLoopBackOff" });
    const restarts: number[] = [];
    let at: number | undefined = 10_000;
    for (let i = 0; i < 8 && at !== undefined; i++) {
      restarts.push(at);
      at = runtime.advance(at, hooks);
    }
    expect(restarts).toEqual([
      10_000, 30_000, 70_000, 150_000, 310_000, 610_000, 910_000, 1_210_000,
    ]);
    expect(log.filter((l) => l === "backOff:app")).toHaveLength(9);
    expect(app(runtime).state).toMatchObject({
      message: "back-off 5m0s restarting failed container=app pod=p_ns(uid-1)",
    });
  });

  it("forgets the back-off once a container ran longer than twice the maximum", () => {
    const { hooks } = recorder();
    const runtime = new PodRuntime(
      podWith({ [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "700000" }),
      "10.244.1.2",
      0,
      SETTINGS,
    );
    // Exits at 700 s: no back-off yet, restarted at once (back-off now 10 s from 700 s).
    runtime.advance(700_000, hooks);
    expect(app(runtime)).toMatchObject({ restartCount: 1, state: { kind: "running" } });
    // Exits at 1400 s, 700 s after the last restart (> 600 s): restarted at once again.
    runtime.advance(1_400_000, hooks);
    expect(app(runtime)).toMatchObject({ restartCount: 2, state: { kind: "running" } });
  });

  it("does not restart a Never container, nor an OnFailure one that succeeded", () => {
    const { hooks } = recorder();
    for (const restartPolicy of ["Never", "OnFailure"]) {
      const runtime = new PodRuntime(podWith({}, { restartPolicy }), "ip", 0, SETTINGS);
      expect(runtime.advance(1_000, hooks)).toBeUndefined();
      expect(app(runtime)).toMatchObject({
        restartCount: 0,
        state: { kind: "terminated", exitCode: 0 },
      });
      expect(runtime.finished).toBe(true);
    }
  });

  it("fails the pod when an init container fails under restartPolicy Never", () => {
    const { hooks, log } = recorder();
    const runtime = new PodRuntime(
      podWith(
        { [`${SIMULATION_ANNOTATIONS.exitCode}.init`]: "2" },
        { restartPolicy: "Never", initContainers: [{ name: "init", image: "busybox" }] },
      ),
      "ip",
      0,
      SETTINGS,
    );
    expect(runtime.advance(0, hooks)).toBeUndefined();
    expect(runtime.initFailed).toBe(true);
    expect(runtime.finished).toBe(true);
    expect(log).toEqual(["started:init@0"]);
    expect(app(runtime).state).toEqual({ kind: "waiting", reason: "PodInitializing" });
  });

  it("stops running containers after terminationMs, or kills them (137) at the deadline", () => {
    const { hooks, log } = recorder();
    const runtime = new PodRuntime(
      podWith(
        { [`${SIMULATION_ANNOTATIONS.terminationMs}.slow`]: "60000" },
        {
          containers: [
            { name: "app", image: "nginx" },
            { name: "slow", image: "nginx" },
          ],
        },
      ),
      "ip",
      0,
      SETTINGS,
    );
    runtime.advance(1_000, hooks);
    runtime.beginTermination(1_000, 31_000, hooks);
    expect(log.slice(-2)).toEqual(["killing:app", "killing:slow"]);
    expect(runtime.isReady(app(runtime), 1_000)).toBe(false);
    expect(runtime.advance(1_000, hooks)).toBe(31_000);
    expect(app(runtime).state).toMatchObject({
      kind: "terminated",
      exitCode: 0,
      reason: "Completed",
    });
    expect(runtime.finished).toBe(false);
    // A later delete with a shorter grace period brings the deadline forward.
    runtime.beginTermination(2_000, 5_000, hooks);
    expect(log.filter((l) => l.startsWith("killing"))).toHaveLength(2);
    expect(runtime.advance(5_000, hooks)).toBeUndefined();
    expect(runtime.containers[1]?.state).toMatchObject({
      kind: "terminated",
      exitCode: 137,
      reason: "Error",
      finishedAtMs: 5_000,
    });
    expect(runtime.finished).toBe(true);
  });

  it("starts nothing once terminating, and a container in back-off stays down", () => {
    const { hooks, log } = recorder();
    const creating = new PodRuntime(podWith({}), "ip", 0, { ...SETTINGS, containerStartMs: 1_000 });
    creating.beginTermination(0, 30_000, hooks);
    expect(creating.advance(5_000, hooks)).toBeUndefined();
    expect(creating.finished).toBe(true);
    const crashing = new PodRuntime(
      podWith({ [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "0" }),
      "ip",
      0,
      SETTINGS,
    );
    crashing.advance(0, hooks);
    crashing.beginTermination(1, 30_000, hooks);
    expect(crashing.advance(60_000, hooks)).toBeUndefined();
    expect(app(crashing).restartCount).toBe(1);
    expect(log.filter((l) => l.startsWith("killing"))).toEqual([]);
  });

  it("lets a running process decide the exit, unless the annotations script it", () => {
    const log: string[] = [];
    const hooks: PodRuntimeHooks = {
      ...recorder().hooks,
      run: (c) => (log.push(`run:${c.spec.name}`), true),
      exited: (c) => log.push(`exited:${c.spec.name}`),
    };
    const runtime = new PodRuntime(
      podWith({}, { restartPolicy: "Never" }),
      "10.244.1.2",
      0,
      SETTINGS,
    );
    // completionMs passes: the process still runs, so the container does too.
    expect(runtime.advance(5_000, hooks)).toBeUndefined();
    expect(app(runtime).state.kind).toBe("running");
    runtime.processExited("containerd://other", 1, 6_000); // another instance: ignored
    runtime.processExited(app(runtime).containerId!, 3, 7_000);
    expect(runtime.advance(7_000, hooks)).toBeUndefined();
    expect(app(runtime).state).toMatchObject({
      kind: "terminated",
      exitCode: 3,
      finishedAtMs: 7_000,
    });
    expect(log).toEqual(["run:app", "exited:app"]);

    const scripted = new PodRuntime(
      podWith(
        { [SIMULATION_ANNOTATIONS.exitCode]: "0", [SIMULATION_ANNOTATIONS.runMs]: "100" },
        { restartPolicy: "Never" },
      ),
      "10.244.1.2",
      0,
      SETTINGS,
    );
    expect(scripted.advance(0, hooks)).toBe(100);
    scripted.processExited(app(scripted).containerId!, 9, 50);
    scripted.advance(100, hooks);
    expect(app(scripted).state).toMatchObject({
      kind: "terminated",
      exitCode: 0,
      finishedAtMs: 100,
    });
  });

  it("starts ephemeral containers once added, and never restarts them", () => {
    const hooks: PodRuntimeHooks = { ...recorder().hooks, run: () => true };
    const pod = podWith({});
    const runtime = new PodRuntime(pod, "10.244.1.2", 0, SETTINGS);
    runtime.advance(0, hooks);
    const withDebug: typeof pod = {
      ...pod,
      spec: { ...pod.spec!, ephemeralContainers: [{ name: "dbg", image: "busybox" }] },
    };
    runtime.sync(withDebug, 1_000, hooks);
    const dbg = runtime.ephemeralContainers[0]!;
    expect(dbg.state).toEqual({ kind: "running", startedAtMs: 1_000 });
    expect(runtime.isReady(dbg, 2_000)).toBe(false);
    runtime.processExited(dbg.containerId!, 0, 2_000);
    expect(runtime.sync(withDebug, 2_000, hooks)).toBeUndefined();
    expect(dbg.state).toMatchObject({ kind: "terminated", exitCode: 0 });
    expect(dbg.restartCount).toBe(0);
    expect(app(runtime).state.kind).toBe("running");
  });
});
