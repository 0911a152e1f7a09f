import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/server-test-helpers.js";
import {
  hasKubectl,
  succeeded,
  tableRows,
  useKubectlSession,
  warnIfNoKubectl,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

/**
 * Deployments on `kubekit serve`'s simulated cluster, driven by real kubectl:
 * `create deployment` then `rollout status` completes, `set image` rolls out a second
 * ReplicaSet, `rollout history` lists the revisions with their change-cause, `rollout undo`
 * returns to the first template as revision 3, `rollout restart` rolls a new ReplicaSet,
 * `rollout pause|resume` hold and release a rollout, `scale` resizes, and `wait` sees the
 * pods Ready and the Deployment Available.
 */

warnIfNoKubectl("the kubectl rollout conformance tests");

const NS = "rollout";
const ROLLOUT_TIMEOUT = "--timeout=30s";

describe.skipIf(!hasKubectl)("kubectl rollout of Deployments on kubekit serve", () => {
  const session = useKubectlSession(["--controllers", "replicaset,deployment"]);
  const kubectl = (...args: string[]): Promise<KubectlResult> => session().run([...args, "-n", NS]);

  beforeAll(async () => {
    succeeded(await session().run(["create", "namespace", NS]));
  });

  /** `kubectl get rs` of the Deployment: name → [desired, current, ready]. */
  async function replicaSets(): Promise<Map<string, string[]>> {
    const rows = tableRows(succeeded(await kubectl("get", "rs", "-l", "app=web")));
    expect(rows[0]).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    return new Map(rows.slice(1).map((row) => [row[0] ?? "", row.slice(1, 4)]));
  }

  /** The images of the Deployment's pods that are not being deleted. */
  async function podImages(): Promise<string[]> {
    const out = succeeded(
      await kubectl(
        "get",
        "pods",
        "-l",
        "app=web",
        "-o",
        "jsonpath={range .items[*]}{.metadata.deletionTimestamp}|{.spec.containers[0].image}{'\\n'}{end}",
      ),
    );
    return out
      .split("\n")
      .filter((line) => line.startsWith("|"))
      .map((line) => line.slice(1))
      .sort();
  }

  /** Waits until only `count` pods of the Deployment exist (the replaced ones are gone). */
  async function settledPods(count: number): Promise<void> {
    await eventually(
      `${count} pods left`,
      async () => {
        const out = succeeded(await kubectl("get", "pods", "-l", "app=web", "-o", "name"));
        return out.trim().split("\n").filter(Boolean).length === count ? true : undefined;
      },
      15_000,
    );
  }

  it("create deployment --replicas=3, then rollout status succeeds and get shows 3/3", async () => {
    expect(
      succeeded(await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3")),
    ).toBe("deployment.apps/web created\n");
    const status = succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    expect(status).toMatch(/deployment "web" successfully rolled out\n$/);
    const rows = tableRows(succeeded(await kubectl("get", "deployment", "web")));
    expect(rows[0]).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    expect(rows[1]?.slice(0, 4)).toEqual(["web", "3/3", "3", "3"]);
    const sets = await replicaSets();
    expect([...sets.values()]).toEqual([["3", "3", "3"]]);
    expect([...sets.keys()][0]).toMatch(/^web-[a-z0-9]+$/);
    expect(await podImages()).toEqual(["nginx", "nginx", "nginx"]);
  });

  it("set image rolls out a second ReplicaSet; the first is left at 0", async () => {
    const [first] = [...(await replicaSets()).keys()];
    succeeded(await kubectl("set", "image", "deployment/web", "nginx=nginx:1.27"));
    succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    const sets = await replicaSets();
    expect(sets.size).toBe(2);
    expect(sets.get(first ?? "")).toEqual(["0", "0", "0"]);
    const [second] = [...sets.keys()].filter((name) => name !== first);
    expect(sets.get(second ?? "")).toEqual(["3", "3", "3"]);
    await settledPods(3);
    expect(await podImages()).toEqual(["nginx:1.27", "nginx:1.27", "nginx:1.27"]);
  });

  it("rollout history lists both revisions with their change-cause, and shows one revision's template", async () => {
    succeeded(await kubectl("annotate", "deployment/web", "kubernetes.io/change-cause=image 1.27"));
    const history = await eventually("change-cause on revision 2", async () => {
      const rows = tableRows(succeeded(await kubectl("rollout", "history", "deployment/web")));
      return rows[3]?.[1] === "image 1.27" ? rows : undefined;
    });
    expect(history).toEqual([
      ["deployment.apps/web"],
      ["REVISION", "CHANGE-CAUSE"],
      ["1", "<none>"],
      ["2", "image 1.27"],
    ]);
    const second = succeeded(await kubectl("rollout", "history", "deployment/web", "--revision=2"));
    expect(second).toContain("deployment.apps/web with revision #2");
    expect(second).toContain("pod-template-hash=");
    expect(second).toContain("Image:	nginx:1.27");
    const first = succeeded(await kubectl("rollout", "history", "deployment/web", "--revision=1"));
    expect(first).toContain("Image:	nginx\n");
  });

  it("rollout undo returns to the first template, which becomes revision 3", async () => {
    expect(succeeded(await kubectl("rollout", "undo", "deployment/web"))).toBe(
      "deployment.apps/web rolled back\n",
    );
    succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    await settledPods(3);
    expect(await podImages()).toEqual(["nginx", "nginx", "nginx"]);
    expect(
      tableRows(succeeded(await kubectl("rollout", "history", "deployment/web"))).slice(2),
    ).toEqual([
      ["2", "image 1.27"],
      ["3", "<none>"],
    ]);
    expect(
      succeeded(
        await kubectl(
          "get",
          "deployment",
          "web",
          "-o",
          "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}",
        ),
      ),
    ).toBe("3");
    expect((await replicaSets()).size).toBe(2);
  });

  it("rollout restart rolls out a new ReplicaSet with the restartedAt annotation", async () => {
    const before = new Set((await replicaSets()).keys());
    expect(succeeded(await kubectl("rollout", "restart", "deployment/web"))).toBe(
      "deployment.apps/web restarted\n",
    );
    succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    const sets = await replicaSets();
    const [restarted] = [...sets.keys()].filter((name) => !before.has(name));
    expect(sets.get(restarted ?? "")).toEqual(["3", "3", "3"]);
    const annotation = succeeded(
      await kubectl(
        "get",
        "rs",
        restarted ?? "",
        "-o",
        "jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}",
      ),
    );
    expect(annotation).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(
      tableRows(succeeded(await kubectl("rollout", "history", "deployment/web"))).at(-1)?.[0],
    ).toBe("4");
  });

  it("rollout pause holds a new template back; resume rolls it out", async () => {
    succeeded(await kubectl("rollout", "pause", "deployment/web"));
    const before = new Set((await replicaSets()).keys());
    succeeded(await kubectl("set", "image", "deployment/web", "nginx=nginx:1.28"));
    const paused = await eventually("the paused condition", async () => {
      const out = succeeded(
        await kubectl(
          "get",
          "deployment",
          "web",
          "-o",
          "jsonpath={.status.conditions[?(@.type=='Progressing')].reason}",
        ),
      );
      return out === "DeploymentPaused" ? out : undefined;
    });
    expect(paused).toBe("DeploymentPaused");
    expect(new Set((await replicaSets()).keys())).toEqual(before);
    const undo = await kubectl("rollout", "undo", "deployment/web");
    expect(undo.code).not.toBe(0);
    expect(undo.stderr).toContain("you cannot rollback a paused deployment");
    succeeded(await kubectl("rollout", "resume", "deployment/web"));
    succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    await settledPods(3);
    expect(await podImages()).toEqual(["nginx:1.28", "nginx:1.28", "nginx:1.28"]);
  });

  it("scale --replicas=5, then wait for the pods Ready and the Deployment Available", async () => {
    expect(succeeded(await kubectl("scale", "deployment/web", "--replicas=5"))).toBe(
      "deployment.apps/web scaled\n",
    );
    succeeded(await kubectl("rollout", "status", "deployment/web", ROLLOUT_TIMEOUT));
    await settledPods(5);
    const ready = succeeded(
      await kubectl("wait", "--for=condition=Ready", "pod", "-l", "app=web", ROLLOUT_TIMEOUT),
    );
    expect(ready.trim().split("\n")).toHaveLength(5);
    expect(ready).toMatch(/pod\/web-[a-z0-9]+-[a-z0-9]{5} condition met/);
    expect(
      succeeded(
        await kubectl("wait", "--for=condition=Available", "deployment/web", ROLLOUT_TIMEOUT),
      ),
    ).toBe("deployment.apps/web condition met\n");
    const rows = tableRows(succeeded(await kubectl("get", "deployment", "web")));
    expect(rows[1]?.slice(0, 4)).toEqual(["web", "5/5", "5", "5"]);
  });
});
