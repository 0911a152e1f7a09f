import type { CronJob, Job } from "kubernetes-types/batch/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { useServer } from "../../../support/server-test-helpers.js";
import { advanceUntil, createTestNamespace, eventsAbout } from "../workload-helpers.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A CronJob whose Jobs run one `busybox` pod with `podAnnotations`. */
function cronJobOf(
  name: string,
  schedule: string,
  spec: Partial<NonNullable<CronJob["spec"]>> = {},
  podAnnotations: Record<string, string> = {},
): CronJob {
  return {
    metadata: { name },
    spec: {
      schedule,
      ...spec,
      jobTemplate: {
        metadata: { labels: { team: "batch" }, annotations: { purpose: "test" } },
        spec: {
          template: {
            metadata: { annotations: podAnnotations },
            spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox" }] },
          },
        },
      },
    },
  };
}

function isFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );
}

/**
 * Waits until `condition` holds while the clock moves on in small steps: on a fake clock the
 * cluster's informers and Event writers make progress only as time passes.
 */
async function settle(
  clock: FakeClock,
  what: string,
  condition: () => Promise<boolean>,
): Promise<void> {
  await advanceUntil(
    clock,
    what,
    async () => ((await condition()) ? true : undefined),
    200,
    MINUTE,
  );
}

describe("cronjob controller on a fake clock", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 30));
  const h = useServer({ clock, cluster: { controllers: ["job", "cronjob"], completionMs: 1000 } });
  const client = (): Clientset => new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  const jobsOf = async (cs: Clientset, ns: string): Promise<Job[]> =>
    (await cs.batchV1.jobs(ns).list()).items.sort((a, b) =>
      (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""),
    );

  it("starts a Job at each start time: name, annotation, labels, owner, status and Events", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-basic");
    const cronJob = await cs.batchV1.cronJobs(ns).create(cronJobOf("tick", "*/5 * * * *"));
    const created = Date.parse(cronJob.metadata?.creationTimestamp ?? "");
    const due = Math.ceil((created + 1) / (5 * MINUTE)) * 5 * MINUTE;
    const [job] = await advanceUntil(
      clock,
      "the first Job",
      async () => {
        const jobs = await jobsOf(cs, ns);
        return jobs.length > 0 ? jobs : undefined;
      },
      30_000,
      10 * MINUTE,
    );
    expect(job?.metadata?.name).toBe(`tick-${due / MINUTE}`);
    expect(Date.parse(job?.metadata?.creationTimestamp ?? "")).toBeGreaterThanOrEqual(due);
    expect(job?.metadata?.labels).toMatchObject({ team: "batch" });
    expect(job?.metadata?.annotations).toMatchObject({
      purpose: "test",
      "batch.kubernetes.io/cronjob-scheduled-timestamp": new Date(due)
        .toISOString()
        .replace(".000Z", "Z"),
    });
    expect(job?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "batch/v1",
        kind: "CronJob",
        name: "tick",
        uid: cronJob.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const active = await cs.batchV1.cronJobs(ns).get("tick");
    expect(active.status?.lastScheduleTime).toBe(new Date(due).toISOString().replace(".000Z", "Z"));
    expect(active.status?.active).toEqual([
      {
        kind: "Job",
        namespace: ns,
        name: job?.metadata?.name,
        uid: job?.metadata?.uid,
        apiVersion: "batch/v1",
        resourceVersion: job?.metadata?.resourceVersion,
      },
    ]);

    const done = await advanceUntil(
      clock,
      "the Job done and seen",
      async () => {
        const cj = await cs.batchV1.cronJobs(ns).get("tick");
        return (cj.status?.active ?? []).length === 0 && cj.status?.lastSuccessfulTime
          ? cj
          : undefined;
      },
      500,
      MINUTE,
    );
    const finishedJob = await cs.batchV1.jobs(ns).get(job?.metadata?.name ?? "");
    expect(done.status?.lastSuccessfulTime).toBe(finishedJob.status?.completionTime);
    await settle(clock, "the CronJob's Events", async () => {
      const events = await eventsAbout(cs, ns, "tick");
      return (
        events.includes(`SuccessfulCreate: Created job ${job?.metadata?.name}`) &&
        events.includes(
          `SawCompletedJob: Saw completed job: ${job?.metadata?.name}, condition: Complete`,
        )
      );
    });
  });

  it("keeps successfulJobsHistoryLimit finished Jobs and deletes the older ones", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-history");
    await cs.batchV1
      .cronJobs(ns)
      .create(cronJobOf("often", "* * * * *", { successfulJobsHistoryLimit: 2 }));
    const names: string[] = [];
    await advanceUntil(
      clock,
      "four Jobs started",
      async () => {
        for (const job of await jobsOf(cs, ns)) {
          if (!names.includes(job.metadata?.name ?? "")) names.push(job.metadata?.name ?? "");
        }
        return names.length >= 4 ? true : undefined;
      },
      5_000,
      6 * MINUTE,
    );
    const kept = await advanceUntil(
      clock,
      "two finished Jobs kept",
      async () => {
        const jobs = await jobsOf(cs, ns);
        const finished = jobs.filter(isFinished);
        return finished.length === 2 && jobs.length === 2 ? jobs : undefined;
      },
      1000,
      MINUTE / 2,
    );
    // The newest two survive; the oldest went with SuccessfulDelete Events.
    expect(kept.map((j) => j.metadata?.name)).toEqual(names.slice(-2));
    await settle(clock, "SuccessfulDelete Events", async () => {
      const events = await eventsAbout(cs, ns, "often");
      return names.slice(0, 2).every((n) => events.includes(`SuccessfulDelete: Deleted job ${n}`));
    });
  });

  it("keeps failedJobsHistoryLimit failed Jobs", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-failed");
    const failing = { [SIMULATION_ANNOTATIONS.exitCode]: "1" };
    const spec = cronJobOf("broken", "* * * * *", { failedJobsHistoryLimit: 1 }, failing);
    spec.spec!.jobTemplate.spec!.backoffLimit = 0;
    await cs.batchV1.cronJobs(ns).create(spec);
    const seen = new Set<string>();
    const jobs = await advanceUntil(
      clock,
      "one failed Job kept after three ran",
      async () => {
        const all = await jobsOf(cs, ns);
        for (const job of all) seen.add(job.metadata?.name ?? "");
        return seen.size >= 3 && all.length === 1 && all.every(isFinished) ? all : undefined;
      },
      5_000,
      5 * MINUTE,
    );
    expect(jobs[0]?.status?.conditions?.find((c) => c.type === "Failed")?.reason).toBe(
      "BackoffLimitExceeded",
    );
  });

  it("Forbid skips a start time while a Job runs; Replace replaces the running Job", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-concurrency");
    const long = { [SIMULATION_ANNOTATIONS.runMs]: String(HOUR) };
    await cs.batchV1
      .cronJobs(ns)
      .create(cronJobOf("forbid", "* * * * *", { concurrencyPolicy: "Forbid" }, long));
    await cs.batchV1
      .cronJobs(ns)
      .create(cronJobOf("replace", "* * * * *", { concurrencyPolicy: "Replace" }, long));
    await cs.batchV1
      .cronJobs(ns)
      .create(cronJobOf("allow", "* * * * *", { concurrencyPolicy: "Allow" }, long));
    const start = clock.now();
    await advanceUntil(
      clock,
      "three start times",
      async () => (clock.now() - start >= 3 * MINUTE ? true : undefined),
      10_000,
      4 * MINUTE,
    );
    await settle(clock, "the controllers caught up", async () => {
      const allow = await cs.batchV1.cronJobs(ns).get("allow");
      return (allow.status?.active ?? []).length === 3;
    });
    const owned = async (owner: string): Promise<Job[]> =>
      (await jobsOf(cs, ns)).filter(
        (j) => j.metadata?.ownerReferences?.[0]?.name === owner && !j.metadata?.deletionTimestamp,
      );
    expect(await owned("forbid")).toHaveLength(1);
    await settle(clock, "JobAlreadyActive", async () =>
      (await eventsAbout(cs, ns, "forbid")).includes(
        "JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid",
      ),
    );
    await settle(
      clock,
      "one replacing Job left",
      async () => (await owned("replace")).length === 1,
    );
    const replace = await cs.batchV1.cronJobs(ns).get("replace");
    const [current] = await owned("replace");
    expect(replace.status?.active?.map((r) => r.name)).toEqual([current?.metadata?.name]);
    await settle(
      clock,
      "two SuccessfulDelete Events",
      async () =>
        (await eventsAbout(cs, ns, "replace")).filter((e) =>
          e.startsWith("SuccessfulDelete: Deleted job replace-"),
        ).length === 2,
    );
  });

  it("starts nothing while suspended, and late within startingDeadlineSeconds only", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-suspend");
    const hourlyAt = (name: string, deadline?: number): CronJob =>
      cronJobOf(name, "0 * * * *", {
        suspend: true,
        ...(deadline !== undefined ? { startingDeadlineSeconds: deadline } : {}),
      });
    await cs.batchV1.cronJobs(ns).create(hourlyAt("late"));
    await cs.batchV1.cronJobs(ns).create(hourlyAt("strict", 60));
    const nextHour = Math.ceil(clock.now() / HOUR) * HOUR;
    // Half an hour past the start time, both still suspended: nothing ran.
    await advanceUntil(
      clock,
      "half past",
      async () => (clock.now() >= nextHour + HOUR / 2 ? true : undefined),
      5 * MINUTE,
      2 * HOUR,
    );
    expect(await jobsOf(cs, ns)).toHaveLength(0);
    for (const name of ["late", "strict"]) {
      await cs.batchV1.cronJobs(ns).patch(name, PatchTypes.merge, { spec: { suspend: false } });
    }
    // Without a deadline the missed start time runs late; with 60 s it is skipped.
    await settle(clock, "the late Job", async () =>
      (await jobsOf(cs, ns)).some((j) => j.metadata?.name === `late-${nextHour / MINUTE}`),
    );
    const strict = await advanceUntil(
      clock,
      "strict's next start time",
      async () => {
        const jobs = (await jobsOf(cs, ns)).filter((j) => j.metadata?.name?.startsWith("strict-"));
        return jobs.length > 0 ? jobs : undefined;
      },
      // Steps shorter than the 60 s deadline: a longer jump could land past it and skip the
      // start time the test waits for.
      20_000,
      2 * HOUR,
    );
    // The missed start time was skipped; the first Job is at a later hour (the next one unless
    // the controller saw the resume only after that one's 60 s deadline had also passed).
    expect(strict).toHaveLength(1);
    const started = Number(strict[0]?.metadata?.name?.slice("strict-".length)) * MINUTE;
    expect(started).toBeGreaterThan(nextHour);
    expect(started % HOUR).toBe(0);
  });

  it("warns about too many missed start times and runs the most recent one", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-missed");
    await cs.batchV1.cronJobs(ns).create(cronJobOf("behind", "* * * * *", { suspend: true }));
    const resumeAt = clock.now() + 2 * HOUR;
    await advanceUntil(
      clock,
      "two hours",
      async () => (clock.now() >= resumeAt ? true : undefined),
      10 * MINUTE,
      3 * HOUR,
    );
    await cs.batchV1.cronJobs(ns).patch("behind", PatchTypes.merge, { spec: { suspend: false } });
    await settle(clock, "TooManyMissedTimes", async () =>
      (await eventsAbout(cs, ns, "behind")).includes(
        "TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      ),
    );
    const jobs = await jobsOf(cs, ns);
    expect(jobs.map((j) => j.metadata?.name)).toEqual([
      `behind-${Math.floor(clock.now() / MINUTE)}`,
    ]);
  });

  it("runs a schedule in spec.timeZone", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-timezone");
    await cs.batchV1
      .cronJobs(ns)
      .create(cronJobOf("ny", "0 9 * * *", { timeZone: "America/New_York" }));
    const [job] = await advanceUntil(
      clock,
      "the 09:00 New York Job",
      async () => {
        const jobs = await jobsOf(cs, ns);
        return jobs.length > 0 ? jobs : undefined;
      },
      10 * MINUTE,
      26 * HOUR,
    );
    const annotation =
      job?.metadata?.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"];
    expect(annotation).toMatch(/^2026-01-0\dT09:00:00-05:00$/);
    expect(job?.metadata?.name).toBe(`ny-${Date.parse(annotation ?? "") / MINUTE}`);
  });

  it("reports an unparseable schedule", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "cron-bad");
    await cs.batchV1.cronJobs(ns).create(cronJobOf("bad", "every day"));
    await settle(clock, "UnparseableSchedule", async () =>
      (await eventsAbout(cs, ns, "bad")).includes(
        'UnparseableSchedule: unparseable schedule: "every day" : expected exactly 5 fields, found 2: [every day]',
      ),
    );
    const events = await cs.coreV1.events(ns).list();
    expect(events.items.find((e) => e.reason === "UnparseableSchedule")?.type).toBe("Warning");
  });
});
