import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  PodRuntime,
  type PodRuntimeHooks,
} from "../../../../packages/cluster/src/kubelet/kubelet-pod-runtime.js";
import { projectPodStatus } from "../../../../packages/cluster/src/kubelet/kubelet-pod-status.js";
import {
  FIXTURE_ACCEPTED_AT,
  FIXTURE_PLACEMENT,
  FIXTURE_POD_IP,
  FIXTURE_SETTINGS,
  KUBELET_STATUS_FIXTURES,
  type KubeletStatusFixture,
} from "../../../../packages/cluster/src/kubelet/status-fixtures.js";

const QUIET: PodRuntimeHooks = { started: () => {}, backOff: () => {}, killing: () => {} };

/** When the kubelet saw the pod's deletion: when the API server set its deletionTimestamp. */
function deletionSeenAt(pod: Pod): number | undefined {
  const timestamp = pod.metadata?.deletionTimestamp;
  if (timestamp === undefined) return undefined;
  return Date.parse(timestamp) - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
}

/**
 * The status the kubelet writes for the fixture's pod, as the kubelet controller computes it:
 * the pod's runtime brought up to the time (the deletion applied when it was seen), then
 * projected.
 */
function statusOf(fixture: KubeletStatusFixture): unknown {
  const acceptedAt = Date.parse(FIXTURE_ACCEPTED_AT);
  const settings = { ...FIXTURE_SETTINGS, ...fixture.settings };
  const runtime = new PodRuntime(fixture.pod, FIXTURE_POD_IP, acceptedAt, settings);
  const seenAt = deletionSeenAt(fixture.pod);
  if (seenAt !== undefined) {
    runtime.advance(seenAt, QUIET); // running until the deletion arrived
    runtime.sync(fixture.pod, seenAt, QUIET);
  }
  const now = acceptedAt + fixture.atMs;
  runtime.sync(fixture.pod, now, QUIET);
  return projectPodStatus(runtime, fixture.pod, now, {
    ...FIXTURE_PLACEMENT,
    kubernetesMinor: Number.parseInt(settings.kubernetesMinor, 10),
  });
}

describe("the kubelet's status fixtures (pod in, status out)", () => {
  it("cover what the kubelet reports", () => {
    const statuses = KUBELET_STATUS_FIXTURES.map((f) => f.status);
    const phases = new Set(statuses.map((s) => s.phase));
    expect([...phases].sort()).toEqual(["Failed", "Pending", "Running", "Succeeded"]);
    const waiting = statuses
      .flatMap((s) => s.containerStatuses ?? [])
      .map((c) => c.state?.waiting?.reason);
    expect(waiting).toContain("CrashLoopBackOff");
    expect(waiting).toContain("PodInitializing");
    expect(new Set(statuses.map((s) => s.qosClass))).toEqual(
      new Set(["BestEffort", "Burstable", "Guaranteed"]),
    );
    expect(KUBELET_STATUS_FIXTURES.some((f) => f.pod.metadata?.deletionTimestamp)).toBe(true);
    expect(new Set(KUBELET_STATUS_FIXTURES.map((f) => f.name)).size).toBe(
      KUBELET_STATUS_FIXTURES.length,
    );
  });

  it.each(KUBELET_STATUS_FIXTURES.map((f) => [f.name, f] as const))("%s", (_name, fixture) => {
    expect(statusOf(fixture)).toEqual(fixture.status);
  });

  it("is deterministic and leaves the pod as it was", () => {
    const fixture = KUBELET_STATUS_FIXTURES[0];
    if (fixture === undefined) throw new Error("no fixtures");
    const pod = structuredClone(fixture.pod);
    expect(statusOf(fixture)).toEqual(statusOf(fixture));
    expect(fixture.pod).toEqual(pod);
  });
});
