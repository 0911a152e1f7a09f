import type { Job, JobStatus } from "kubernetes-types/batch/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import { advanceUntil, createTestNamespace, eventsAbout } from "../workload-helpers.js";

/** A batch/v1 Job running one `busybox` container per pod. */
function jobOf(
  name: string,
  spec: Partial<NonNullable<Job["spec"]>> = {},
  podAnnotations = {},
): Job {
  return {
    metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { annotations: podAnnotations },
        spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox" }] },
      },
    },
  };
}

function condition(job: Job, type: string): string | undefined {
  const c = job.status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : `${c.status} ${c.reason ?? ""}: ${c.message ?? ""}`;
}

function isFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );
}

async function podsOf(cs: Clientset, ns: string, job: string): Promise<Pod[]> {
  const list = await cs.coreV1
    .pods(ns)
    .list({ labelSelector: `batch.kubernetes.io/job-name=${job}` });
  return list.items.sort((a, b) =>
    (a.metadata?.creationTimestamp ?? "").localeCompare(b.metadata?.creationTimestamp ?? ""),
  );
}

async function finishedJob(
  cs: Clientset,
  ns: string,
  name: string,
  timeoutMs = 10_000,
): Promise<Job> {
  return eventually(
    `job ${name} finished`,
    async () => {
      const job = await cs.batchV1.jobs(ns).get(name);
      return isFinished(job) ? job : undefined;
    },
    timeoutMs,
  );
}

describe("job controller", () => {
  const h = useServer({ cluster: { controllers: ["job"], completionMs: 20 } });
  const client = (): Clientset => new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });

  it("runs completions pods, parallelism at a time, and completes the Job as kube 1.32 does", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-basic");
    const statuses: JobStatus[] = [];
    const watchAbort = new AbortController();
    const list = await cs.batchV1.jobs(ns).list();
    const watching = (async () => {
      try {
        for await (const ev of cs.batchV1.jobs(ns).watch({
          resourceVersion: list.metadata?.resourceVersion,
          signal: watchAbort.signal,
        })) {
          if (ev.type === "ADDED" || ev.type === "MODIFIED")
            statuses.push((ev.object as Job).status ?? {});
        }
      } catch (err) {
        if (!watchAbort.signal.aborted) throw err;
      }
    })();
    const created = await cs.batchV1
      .jobs(ns)
      .create(jobOf("batch", { completions: 3, parallelism: 2 }));
    const job = await finishedJob(cs, ns, "batch");
    watchAbort.abort();
    await watching;

    expect(condition(job, "SuccessCriteriaMet")).toBe(
      "True CompletionsReached: Reached expected number of succeeded pods",
    );
    expect(condition(job, "Complete")).toBe(
      "True CompletionsReached: Reached expected number of succeeded pods",
    );
    expect(job.status).toMatchObject({
      succeeded: 3,
      ready: 0,
      terminating: 0,
      uncountedTerminatedPods: {},
    });
    expect(job.status?.active).toBeUndefined();
    expect(job.status?.failed).toBeUndefined();
    expect(Date.parse(job.status?.completionTime ?? "")).toBeGreaterThanOrEqual(
      Date.parse(job.status?.startTime ?? ""),
    );
    // Never more than parallelism pods at once; pods were counted through uncountedTerminatedPods.
    expect(Math.max(...statuses.map((s) => s.active ?? 0))).toBe(2);
    expect(statuses.some((s) => (s.uncountedTerminatedPods?.succeeded ?? []).length > 0)).toBe(
      true,
    );

    const pods = await podsOf(cs, ns, "batch");
    expect(pods).toHaveLength(3);
    const uid = created.metadata?.uid ?? "";
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^batch-[a-z0-9]{5}$/);
      expect(pod.metadata?.labels).toMatchObject({
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "batch",
        "controller-uid": uid,
        "job-name": "batch",
      });
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: "batch/v1",
          kind: "Job",
          name: "batch",
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // Counted: the tracking finalizer is gone.
      expect(pod.metadata?.finalizers ?? []).not.toContain("batch.kubernetes.io/job-tracking");
      expect(pod.status?.phase).toBe("Succeeded");
    }
    await waitFor("the Job's Events", async () => {
      const events = await eventsAbout(cs, ns, "batch");
      return events.includes("Completed: Job completed") && events.length === 4;
    });
    const events = await eventsAbout(cs, ns, "batch");
    expect(
      events.filter((e) => e.startsWith("SuccessfulCreate: Created pod: batch-")).sort(),
    ).toEqual(pods.map((p) => `SuccessfulCreate: Created pod: ${p.metadata?.name}`).sort());
  });

  it("puts the tracking finalizer on running pods", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-finalizer");
    await cs.batchV1
      .jobs(ns)
      .create(jobOf("long", {}, { [SIMULATION_ANNOTATIONS.runMs]: "3600000" }));
    const pod = await eventually("a running pod", async () => {
      const [p] = await podsOf(cs, ns, "long");
      return p?.status?.phase === "Running" ? p : undefined;
    });
    expect(pod.metadata?.finalizers).toEqual(["batch.kubernetes.io/job-tracking"]);
    await waitFor("status.active 1 and ready 1", async () => {
      const job = await cs.batchV1.jobs(ns).get("long");
      return job.status?.active === 1 && job.status.ready === 1;
    });
  });

  it("runs an Indexed Job: one pod per index, index annotation, label, hostname and env", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-indexed");
    await cs.batchV1
      .jobs(ns)
      .create(jobOf("idx", { completions: 3, parallelism: 3, completionMode: "Indexed" }));
    const job = await finishedJob(cs, ns, "idx");
    expect(condition(job, "Complete")).toMatch(/^True CompletionsReached/);
    expect(job.status).toMatchObject({ succeeded: 3, completedIndexes: "0-2" });
    const pods = await podsOf(cs, ns, "idx");
    const byIndex = new Map(
      pods.map((p) => [p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"], p]),
    );
    expect([...byIndex.keys()].sort()).toEqual(["0", "1", "2"]);
    for (const [index, pod] of byIndex) {
      expect(pod.metadata?.name).toMatch(new RegExp(`^idx-${index}-[a-z0-9]{5}$`));
      expect(pod.metadata?.labels?.["batch.kubernetes.io/job-completion-index"]).toBe(index);
      expect(pod.spec?.hostname).toBe(`idx-${index}`);
      expect(pod.spec?.containers[0]?.env).toContainEqual({
        name: "JOB_COMPLETION_INDEX",
        valueFrom: {
          fieldRef: {
            fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']",
          },
        },
      });
    }
  });

  it("completes a Job without completions once a pod succeeded and the others finished", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-workqueue");
    await cs.batchV1.jobs(ns).create({
      metadata: { name: "queue" },
      spec: {
        parallelism: 2,
        template: {
          spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox" }] },
        },
      },
    });
    const job = await finishedJob(cs, ns, "queue");
    expect(condition(job, "Complete")).toMatch(/^True/);
    expect(job.status?.succeeded).toBe(2);
    expect(await podsOf(cs, ns, "queue")).toHaveLength(2);
  });

  it("suspends (no pods, Suspended condition) and resumes (pods, startTime)", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-suspend");
    await cs.batchV1
      .jobs(ns)
      .create(jobOf("paused", { suspend: true }, { [SIMULATION_ANNOTATIONS.runMs]: "3600000" }));
    const suspended = await eventually("Suspended", async () => {
      const job = await cs.batchV1.jobs(ns).get("paused");
      return condition(job, "Suspended") !== undefined ? job : undefined;
    });
    expect(condition(suspended, "Suspended")).toBe("True JobSuspended: Job suspended");
    expect(suspended.status?.startTime).toBeUndefined();
    expect(await podsOf(cs, ns, "paused")).toHaveLength(0);

    await cs.batchV1.jobs(ns).patch("paused", PatchTypes.merge, { spec: { suspend: false } });
    const resumed = await eventually("resumed with a running pod", async () => {
      const job = await cs.batchV1.jobs(ns).get("paused");
      return job.status?.active === 1 ? job : undefined;
    });
    expect(condition(resumed, "Suspended")).toBe("False JobResumed: Job resumed");
    expect(resumed.status?.startTime).toBeDefined();

    // Suspending a running Job deletes its pods, not counting them as failures.
    await cs.batchV1.jobs(ns).patch("paused", PatchTypes.merge, { spec: { suspend: true } });
    await waitFor("pods gone", async () => (await podsOf(cs, ns, "paused")).length === 0);
    const again = await eventually("suspended again", async () => {
      const job = await cs.batchV1.jobs(ns).get("paused");
      return condition(job, "Suspended")?.startsWith("True") && !job.status?.active
        ? job
        : undefined;
    });
    expect(again.status?.failed).toBeUndefined();
    await waitFor("Suspended and Resumed Events", async () => {
      const events = await eventsAbout(cs, ns, "paused");
      return (
        events.includes("Suspended: Job suspended") &&
        events.includes("Resumed: Job resumed") &&
        events.some((e) => e.startsWith("SuccessfulDelete: Deleted pod: paused-"))
      );
    });
  });

  it("releases the pods of a Job deleted with orphan propagation", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-orphans");
    await cs.batchV1
      .jobs(ns)
      .create(jobOf("gone", {}, { [SIMULATION_ANNOTATIONS.runMs]: "3600000" }));
    await eventually("a running pod", async () => {
      const [p] = await podsOf(cs, ns, "gone");
      return p?.status?.phase === "Running" ? p : undefined;
    });
    await cs.batchV1.jobs(ns).delete("gone", { propagationPolicy: "Orphan" });
    const pod = await eventually("an orphan without the tracking finalizer", async () => {
      const [p] = await podsOf(cs, ns, "gone");
      return p !== undefined &&
        (p.metadata?.ownerReferences ?? []).length === 0 &&
        (p.metadata?.finalizers ?? []).length === 0
        ? p
        : undefined;
    });
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
  });

  it("adopts an orphan pod its manual selector matches instead of creating one", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-adopt");
    await cs.coreV1.pods(ns).create({
      metadata: {
        name: "stray",
        labels: { app: "stray" },
        annotations: { [SIMULATION_ANNOTATIONS.runMs]: "500" },
      },
      spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox" }] },
    });
    const job = await cs.batchV1.jobs(ns).create({
      metadata: { name: "adopter" },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { app: "stray" } },
        template: {
          metadata: { labels: { app: "stray" } },
          spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox" }] },
        },
      },
    });
    const done = await finishedJob(cs, ns, "adopter");
    expect(condition(done, "Complete")).toMatch(/^True/);
    expect(done.status?.succeeded).toBe(1);
    const pods = await cs.coreV1.pods(ns).list();
    expect(pods.items.map((p) => p.metadata?.name)).toEqual(["stray"]);
    expect(pods.items[0]?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Job",
      name: "adopter",
      uid: job.metadata?.uid,
      controller: true,
    });
    expect(await eventsAbout(cs, ns, "adopter")).not.toContainEqual(
      expect.stringMatching(/^SuccessfulCreate/),
    );
  });
});

describe("job controller on a fake clock", () => {
  const clock = new FakeClock();
  const h = useServer({ clock, cluster: { controllers: ["job"], completionMs: 1000 } });
  const client = (): Clientset => new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  const failing = { [SIMULATION_ANNOTATIONS.exitCode]: "1" };

  it("replaces failed pods after 10 s, then 20 s, and fails the Job past its backoffLimit", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-backoff");
    await cs.batchV1.jobs(ns).create(jobOf("flaky", { backoffLimit: 2 }, failing));
    const job = await advanceUntil(
      clock,
      "the Job failed",
      async () => {
        const j = await cs.batchV1.jobs(ns).get("flaky");
        return isFinished(j) ? j : undefined;
      },
      250,
      120_000,
    );
    expect(condition(job, "FailureTarget")).toBe(
      "True BackoffLimitExceeded: Job has reached the specified backoff limit",
    );
    expect(condition(job, "Failed")).toBe(
      "True BackoffLimitExceeded: Job has reached the specified backoff limit",
    );
    expect(job.status).toMatchObject({
      failed: 3,
      ready: 0,
      terminating: 0,
      uncountedTerminatedPods: {},
    });
    expect(job.status?.completionTime).toBeUndefined();
    const pods = await podsOf(cs, ns, "flaky");
    expect(pods.map((p) => p.status?.phase)).toEqual(["Failed", "Failed", "Failed"]);
    const created = (p: Pod): number => Date.parse(p.metadata?.creationTimestamp ?? "");
    const finished = (p: Pod): number =>
      Date.parse(p.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt ?? "");
    const [first, second, third] = pods as [Pod, Pod, Pod];
    // The pod-failure back-off: 10 s after the first failure, then 20 s (a few steps of slack).
    expect(created(second) - finished(first)).toBeGreaterThanOrEqual(10_000);
    expect(created(second) - finished(first)).toBeLessThan(13_000);
    expect(created(third) - finished(second)).toBeGreaterThanOrEqual(20_000);
    expect(created(third) - finished(second)).toBeLessThan(23_000);
    await advanceUntil(
      clock,
      "the BackoffLimitExceeded Event",
      async () =>
        (await eventsAbout(cs, ns, "flaky")).includes(
          "BackoffLimitExceeded: Job has reached the specified backoff limit",
        )
          ? true
          : undefined,
      200,
      60_000,
    );
    const events = await cs.coreV1.events(ns).list();
    expect(events.items.find((e) => e.reason === "BackoffLimitExceeded")?.type).toBe("Warning");
  });

  it("fails a Job past activeDeadlineSeconds and deletes its running pods", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-deadline");
    await cs.batchV1
      .jobs(ns)
      .create(
        jobOf("slow", { activeDeadlineSeconds: 30 }, { [SIMULATION_ANNOTATIONS.runMs]: "3600000" }),
      );
    const running = await advanceUntil(
      clock,
      "a running pod",
      async () => {
        const [p] = await podsOf(cs, ns, "slow");
        return p?.status?.phase === "Running" ? p : undefined;
      },
      100,
      5_000,
    );
    const job = await advanceUntil(
      clock,
      "the Job failed",
      async () => {
        const j = await cs.batchV1.jobs(ns).get("slow");
        return isFinished(j) ? j : undefined;
      },
      1000,
      60_000,
    );
    expect(condition(job, "Failed")).toBe(
      "True DeadlineExceeded: Job was active longer than specified deadline",
    );
    const failedAt = Date.parse(
      job.status?.conditions?.find((c) => c.type === "FailureTarget")?.lastTransitionTime ?? "",
    );
    expect(failedAt - Date.parse(job.status?.startTime ?? "")).toBeGreaterThanOrEqual(30_000);
    // The deleted pod counts as failed, and is gone once the kubelet stopped it.
    expect(job.status).toMatchObject({ failed: 1, terminating: 0 });
    expect(job.status?.active).toBeUndefined();
    await advanceUntil(
      clock,
      "the pod gone",
      async () => ((await podsOf(cs, ns, "slow")).length === 0 ? true : undefined),
      1000,
      60_000,
    );
    expect(running.metadata?.finalizers).toEqual(["batch.kubernetes.io/job-tracking"]);
  });

  it("fails a restartPolicy OnFailure Job once its container restarts reach the backoffLimit", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-onfailure");
    const spec = jobOf("restarts", { backoffLimit: 2 }, failing);
    (spec.spec?.template.spec as { restartPolicy: string }).restartPolicy = "OnFailure";
    await cs.batchV1.jobs(ns).create(spec);
    const job = await advanceUntil(
      clock,
      "the Job failed",
      async () => {
        const j = await cs.batchV1.jobs(ns).get("restarts");
        return isFinished(j) ? j : undefined;
      },
      1000,
      300_000,
    );
    expect(condition(job, "Failed")).toBe(
      "True BackoffLimitExceeded: Job has reached the specified backoff limit",
    );
    // One pod, restarted in place: it is deleted when the Job fails, and counted as failed.
    expect(job.status?.failed).toBe(1);
    const events = await cs.coreV1.events(ns).list();
    expect(events.items.filter((e) => e.reason === "SuccessfulCreate")).toHaveLength(1);
  });

  it("deletes a finished Job ttlSecondsAfterFinished after it finished", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "job-ttl");
    await cs.batchV1.jobs(ns).create(jobOf("brief", { ttlSecondsAfterFinished: 60 }));
    const done = await advanceUntil(
      clock,
      "the Job complete",
      async () => {
        const j = await cs.batchV1.jobs(ns).get("brief");
        return isFinished(j) ? j : undefined;
      },
      250,
      10_000,
    );
    const finishedAt = Date.parse(done.status?.completionTime ?? "");
    const goneAt = await advanceUntil(
      clock,
      "the Job deleted",
      async () => ((await cs.batchV1.jobs(ns).list()).items.length === 0 ? clock.now() : undefined),
      1000,
      120_000,
    );
    expect(goneAt - finishedAt).toBeGreaterThanOrEqual(60_000);
    expect(goneAt - finishedAt).toBeLessThan(64_000);
    // Foreground deletion took the pods with it.
    expect(await podsOf(cs, ns, "brief")).toHaveLength(0);
  });
});

describe("kubectl's Job columns for the status the controller writes", () => {
  const h = useServer();
  const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io";

  it("prints SuccessCriteriaMet while the Job waits to complete, then Complete", async () => {
    const cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    const job = await cs.batchV1.jobs("default").create(jobOf("shown"));
    const since = "2026-01-01T00:00:00Z";
    const met = {
      type: "SuccessCriteriaMet",
      status: "True",
      reason: "CompletionsReached",
      message: "Reached expected number of succeeded pods",
      lastProbeTime: "2026-01-01T00:00:05Z",
      lastTransitionTime: "2026-01-01T00:00:05Z",
    };
    const interim = await cs.batchV1
      .jobs("default")
      .updateStatus({ ...job, status: { startTime: since, succeeded: 1, conditions: [met] } });
    const cells = async (): Promise<unknown[]> => {
      const res = await h.client.get("/apis/batch/v1/namespaces/default/jobs/shown", {
        headers: { accept: TABLE_ACCEPT },
      });
      return (res.json as { rows: { cells: unknown[] }[] }).rows[0]?.cells ?? [];
    };
    expect((await cells()).slice(1, 3)).toEqual(["SuccessCriteriaMet", "1/1"]);
    await cs.batchV1.jobs("default").updateStatus({
      ...interim,
      status: {
        ...interim.status,
        completionTime: "2026-01-01T00:00:05Z",
        conditions: [met, { ...met, type: "Complete" }],
      },
    });
    expect((await cells()).slice(1, 4)).toEqual(["Complete", "1/1", "5s"]);
  });
});
