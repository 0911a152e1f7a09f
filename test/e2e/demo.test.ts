/**
 * `npm start` (`kubekit demo` from the build) plays the seeds' scenario in one process and
 * exits 0; `kubekit demo --serve` keeps its server and controller running for kubectl.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasKubectl } from "../support/kubectl.js";
import { CLI, Child, PACKAGE_ROOT, scratchDir } from "./support/child-process.js";
import { kubectl } from "./support/cluster-state.js";

describe("the demo", () => {
  it("npm start runs `kubekit demo` from the build", () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["start"]).toBe(
      "npm run build && node packages/cluster/dist/cli/main.js demo",
    );
  });

  it("plays the scenario: replacement pod, relist after 410, rate-limited requeues, summary, exit 0", async () => {
    const demo = new Child("kubekit demo", [CLI, "demo"]);
    const exit = await demo.waitForExit(60_000);
    expect(exit, demo.output()).toEqual({ code: 0, signal: null });
    const out = demo.stdoutLines.join("\n");
    // The "OOM-killed" pod: gone from the lister, so the worker creates a replacement.
    const victim = /API server delete pod (\S+)\n/.exec(out)?.[1];
    expect(victim, out).toBeDefined();
    expect(out).toContain(
      `pod ${victim} removed from the cache → handler → workqueue kubekit-demo/web`,
    );
    expect(out).toMatch(/reconcile kubekit-demo\/web: lister has 2 of 3 pods → created web-/);
    // The relist: the re-watch gets 410 Gone, the relist finds the pod deleted unseen.
    expect(out).toMatch(/Reflector +watch of \/v1\/pods expired \(410\).*relisting/);
    expect(out).toContain("(deletion seen by a relist)");
    // The failing reconcile: requeued after 5 ms, then 10 ms.
    expect(out).toContain("requeue kubekit-demo/web in 5 ms (rate limited, failure 1)");
    expect(out).toContain("requeue kubekit-demo/web in 10 ms (rate limited, failure 2)");
    expect(out).toMatch(
      /== summary\npods created \d+, deleted \d+; handler events \d+; reconciles \d+; rate-limited requeues 2/,
    );
  }, 90_000);

  it.skipIf(!hasKubectl)(
    "--serve keeps running for kubectl (Events, /metrics), converges a kubectl scale, and exits 0 on SIGTERM",
    async () => {
      const kubeconfig = join(scratchDir(), "kubeconfig");
      const demo = new Child("kubekit demo --serve", [
        CLI,
        "demo",
        "--serve",
        "--kubeconfig-out",
        kubeconfig,
      ]);
      await demo.waitForLine(
        "the scenario to end",
        (l) => (l.startsWith("the controller keeps running") ? true : undefined),
        60_000,
      );
      const listed = JSON.parse(
        await kubectl(kubeconfig, ["get", "rs,pods", "-n", "kubekit-demo", "-o", "json"]),
      ) as {
        items: { kind: string; metadata: { name: string } }[];
      };
      expect(
        listed.items.filter((i) => i.kind === "ReplicaSet").map((i) => i.metadata.name),
      ).toEqual(["web"]);
      expect(listed.items.filter((i) => i.kind === "Pod")).toHaveLength(2);

      const events = await kubectl(kubeconfig, ["get", "events", "-n", "kubekit-demo"]);
      expect(events).toMatch(/Normal\s+SuccessfulCreate\s+replicaset\/web\s+Created pod: web-/);
      const metricsUrl = demo.stdoutLines
        .find((l) => l.startsWith("metrics: "))
        ?.slice("metrics: ".length);
      expect(metricsUrl, demo.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const metrics = await (await fetch(metricsUrl ?? "")).text();
      expect(metrics).toMatch(
        /^controller_runtime_reconcile_total\{controller="replicaset",result="success"\} [1-9]/m,
      );
      expect(metrics).toMatch(/^workqueue_adds_total\{.*name="replicaset".*\} [1-9]/m);

      const from = demo.stdoutLines.length;
      await kubectl(kubeconfig, ["scale", "rs", "web", "-n", "kubekit-demo", "--replicas=4"]);
      await demo.waitForLine(
        "the controller to create 2 pods",
        (l) => (/lister has 2 of 4 pods → created/.test(l) ? true : undefined),
        15_000,
        from,
      );

      demo.kill("SIGTERM");
      expect(await demo.waitForExit(10_000), demo.output()).toEqual({ code: 0, signal: null });
    },
    120_000,
  );
});
