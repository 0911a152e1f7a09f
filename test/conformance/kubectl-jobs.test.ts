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
 * Jobs and CronJobs with real kubectl against `kubekit serve` and its simulated cluster: the
 * Job controller runs the pods to completion (or to BackoffLimitExceeded), `kubectl wait`
 * sees the conditions, `kubectl get jobs` prints kube's columns, `kubectl logs job/x` finds
 * the pod, and `kubectl create job --from=cronjob/x` instantiates a CronJob's template.
 */

warnIfNoKubectl("the kubectl jobs conformance tests");
describe.skipIf(!hasKubectl)("kubectl with Jobs and CronJobs against kubekit serve", () => {
  const session = useKubectlSession();

  it("create job runs to completion: wait, get jobs, logs, Events", async () => {
    expect(
      succeeded(
        await session().run(["create", "job", "pi", "--image=perl", "--", "perl", "-e", "print 1"]),
      ),
    ).toBe("job.batch/pi created\n");
    expect(
      succeeded(
        await session().run(["wait", "--for=condition=complete", "job/pi", "--timeout=30s"], {
          timeoutMs: 40_000,
        }),
      ),
    ).toBe("job.batch/pi condition met\n");

    const rows = tableRows(succeeded(await session().run(["get", "jobs"])));
    expect(rows[0]).toEqual(["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    expect(rows[1]?.slice(0, 3)).toEqual(["pi", "Complete", "1/1"]);
    expect(rows[1]?.[3]).toMatch(/^\d+s$/);

    const logs = succeeded(await session().run(["logs", "job/pi"]));
    expect(logs.trim()).not.toBe("");

    const conditions = succeeded(
      await session().run([
        "get",
        "job",
        "pi",
        "-o",
        "jsonpath={range .status.conditions[*]}{.type}={.reason};{end}",
      ]),
    );
    expect(conditions).toBe("SuccessCriteriaMet=CompletionsReached;Complete=CompletionsReached;");
    const events = succeeded(
      await session().run([
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
    expect(succeeded(await session().run(["apply", "-f", "-"], { stdin: manifest }))).toBe(
      "job.batch/doomed created\n",
    );
    expect(
      succeeded(
        await session().run(["wait", "--for=condition=failed", "job/doomed", "--timeout=30s"], {
          timeoutMs: 40_000,
        }),
      ),
    ).toBe("job.batch/doomed condition met\n");
    const failed = succeeded(
      await session().run([
        "get",
        "job",
        "doomed",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Failed")].reason}: {.status.conditions[?(@.type=="Failed")].message}',
      ]),
    );
    expect(failed).toBe("BackoffLimitExceeded: Job has reached the specified backoff limit");
    const rows = tableRows(succeeded(await session().run(["get", "job", "doomed"])));
    expect(rows[1]?.slice(0, 3)).toEqual(["doomed", "Failed", "0/1"]);
  });

  it("create job --from=cronjob instantiates the CronJob's template", async () => {
    expect(
      succeeded(
        await session().run([
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
    const cronRows = tableRows(succeeded(await session().run(["get", "cronjobs"])));
    expect(cronRows[1]?.slice(0, 5)).toEqual(["hello", "0 0 1 1 *", "<none>", "False", "0"]);

    expect(
      succeeded(await session().run(["create", "job", "hello-now", "--from=cronjob/hello"])),
    ).toBe("job.batch/hello-now created\n");
    expect(
      succeeded(
        await session().run(
          ["wait", "--for=condition=complete", "job/hello-now", "--timeout=30s"],
          {
            timeoutMs: 40_000,
          },
        ),
      ),
    ).toBe("job.batch/hello-now condition met\n");
    const owner = succeeded(
      await session().run([
        "get",
        "job",
        "hello-now",
        "-o",
        "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}",
      ]),
    );
    expect(owner).toBe("CronJob/hello manual");
    expect(succeeded(await session().run(["logs", "job/hello-now"]))).toBe(
      "hello from the cronjob\n",
    );
  });
});
