import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATION_ANNOTATIONS } from "../../src/testing/index.js";
import { hasKubectl, KubectlSession, tableRows } from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

/**
 * Jobs and CronJobs with real kubectl against `kubekit serve` and its simulated cluster: the
 * Job controller runs the pods to completion (or to BackoffLimitExceeded), `kubectl wait`
 * sees the conditions, `kubectl get jobs` prints kube's columns, `kubectl logs job/x` finds
 * the pod, and `kubectl create job --from=cronjob/x` instantiates a CronJob's template.
 */

if (!hasKubectl)
  console.warn("kubectl is not on PATH: skipping the kubectl jobs conformance tests");

/** Asserts kubectl succeeded (showing stderr otherwise) and returns its stdout. */
function ok(result: KubectlResult): string {
  expect(result.code, `kubectl failed:\n${result.stderr}`).toBe(0);
  return result.stdout;
}

describe.skipIf(!hasKubectl)("kubectl with Jobs and CronJobs against kubekit serve", () => {
  let session: KubectlSession;

  beforeAll(async () => {
    session = await KubectlSession.start();
  }, 60_000);

  afterAll(async () => {
    await session?.stop();
  });

  it("create job runs to completion: wait, get jobs, logs, Events", async () => {
    expect(
      ok(await session.run(["create", "job", "pi", "--image=perl", "--", "perl", "-e", "print 1"])),
    ).toBe("job.batch/pi created\n");
    expect(
      ok(
        await session.run(["wait", "--for=condition=complete", "job/pi", "--timeout=30s"], {
          timeoutMs: 40_000,
        }),
      ),
    ).toBe("job.batch/pi condition met\n");

    const rows = tableRows(ok(await session.run(["get", "jobs"])));
    expect(rows[0]).toEqual(["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    expect(rows[1]?.slice(0, 3)).toEqual(["pi", "Complete", "1/1"]);
    expect(rows[1]?.[3]).toMatch(/^\d+s$/);

    const logs = ok(await session.run(["logs", "job/pi"]));
    expect(logs.trim()).not.toBe("");

    const conditions = ok(
      await session.run([
        "get",
        "job",
        "pi",
        "-o",
        "jsonpath={range .status.conditions[*]}{.type}={.reason};{end}",
      ]),
    );
    expect(conditions).toBe("SuccessCriteriaMet=CompletionsReached;Complete=CompletionsReached;");
    const events = ok(
      await session.run([
        "get",
        "events",
        "--field-selector",
        "involvedObject.kind=Job,involvedObject.name=pi",
        "-o",
        "jsonpath={range .items[*]}{.reason}: {.message}{'\\n'}{end}",
      ]),
    );
    expect(events).toMatch(/^SuccessfulCreate: Created pod: pi-[a-z0-9]{5}$/m);
    expect(events).toMatch(/^Completed: Job completed$/m);
  });

  it("a failing Job ends Failed with BackoffLimitExceeded", async () => {
    const manifest = JSON.stringify({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "doomed" },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { annotations: { [SIMULATION_ANNOTATIONS.exitCode]: "1" } },
          spec: {
            restartPolicy: "Never",
            containers: [{ name: "fail", image: "busybox", command: ["sh", "-c", "exit 1"] }],
          },
        },
      },
    });
    expect(ok(await session.run(["apply", "-f", "-"], { stdin: manifest }))).toBe(
      "job.batch/doomed created\n",
    );
    expect(
      ok(
        await session.run(["wait", "--for=condition=failed", "job/doomed", "--timeout=30s"], {
          timeoutMs: 40_000,
        }),
      ),
    ).toBe("job.batch/doomed condition met\n");
    const failed = ok(
      await session.run([
        "get",
        "job",
        "doomed",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Failed")].reason}: {.status.conditions[?(@.type=="Failed")].message}',
      ]),
    );
    expect(failed).toBe("BackoffLimitExceeded: Job has reached the specified backoff limit");
    const rows = tableRows(ok(await session.run(["get", "job", "doomed"])));
    expect(rows[1]?.slice(0, 3)).toEqual(["doomed", "Failed", "0/1"]);
  });

  it("create job --from=cronjob instantiates the CronJob's template", async () => {
    expect(
      ok(
        await session.run([
          "create",
          "cronjob",
          "hello",
          "--image=busybox",
          "--schedule=0 0 1 1 *",
          "--",
          "echo",
          "hello from the cronjob",
        ]),
      ),
    ).toBe("cronjob.batch/hello created\n");
    const cronRows = tableRows(ok(await session.run(["get", "cronjobs"])));
    expect(cronRows[1]?.slice(0, 5)).toEqual(["hello", "0 0 1 1 *", "<none>", "False", "0"]);

    expect(ok(await session.run(["create", "job", "hello-now", "--from=cronjob/hello"]))).toBe(
      "job.batch/hello-now created\n",
    );
    expect(
      ok(
        await session.run(["wait", "--for=condition=complete", "job/hello-now", "--timeout=30s"], {
          timeoutMs: 40_000,
        }),
      ),
    ).toBe("job.batch/hello-now condition met\n");
    const owner = ok(
      await session.run([
        "get",
        "job",
        "hello-now",
        "-o",
        "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}",
      ]),
    );
    expect(owner).toBe("CronJob/hello manual");
    expect(ok(await session.run(["logs", "job/hello-now"]))).toBe("hello from the cronjob\n");
  });
});
