/**
 * A controller process as deployed: a Manager with two controllers made by its builder (one
 * on ConfigMaps, one on a custom resource whose CRD does not exist yet), against `kubekit
 * serve`. Its `/readyz` fails while the custom resource's informer cannot sync and passes
 * once the CRD is established; the controllers' `controller_runtime_*` and `workqueue_*`
 * metrics are on `/metrics` though the program wires no metrics.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Clientset, DynamicClient, KubeConfig } from "kubekit";
import { runFixture, scratchDir, startServe } from "./support/child-process.js";

/** Polls `probe` every 100 ms until it returns a value; rejects after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a Manager process built with the controller builder", () => {
  it("is not ready until every cache synced, and reports its controllers' metrics", async () => {
    const serve = await startServe(join(scratchDir(), "kubeconfig"));
    const cs = new Clientset(
      (await KubeConfig.load({ kubeconfig: serve.kubeconfig })).restConfig(),
    );
    const manager = runFixture("manager.mjs", { KUBECONFIG: serve.kubeconfig });
    try {
      const [metricsPort, healthPort] = await manager.waitForLine("ports", (line) =>
        line.startsWith("ports ") ? line.split(" ").slice(1).map(Number) : undefined,
      );
      const readyz = async (): Promise<number> =>
        (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status;
      // The widgets informer lists a resource the server does not serve yet: not ready.
      expect(await readyz()).toBe(500);
      await cs.coreV1.configMaps("default").create({ metadata: { name: "e2e" } });
      expect(await readyz()).toBe(500);
      expect(manager.stdoutLines.filter((l) => l.startsWith("reconciled"))).toEqual([]);

      await cs.apiextensionsV1.customResourceDefinitions().create({
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: "object" },
              },
            },
          ],
        },
      });
      await until("ready", async () => ((await readyz()) === 200 ? true : undefined));
      await until("widget created", async () => {
        try {
          return await new DynamicClient(cs.restClient)
            .resource({ group: "example.com", version: "v1", resource: "widgets" })
            .namespace("default")
            .create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } });
        } catch {
          return undefined; // the CRD's endpoint may take a moment to be served
        }
      });
      await manager.waitForLine("configmaps reconciled", (l) =>
        l === "reconciled configmaps default/e2e" ? true : undefined,
      );
      await manager.waitForLine("widgets reconciled", (l) =>
        l === "reconciled widgets default/w Widget" ? true : undefined,
      );

      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      for (const controller of ["configmaps", "widgets"]) {
        expect(metrics).toMatch(
          new RegExp(
            `controller_runtime_reconcile_total\\{[^}]*controller="${controller}"[^}]*\\} [1-9]`,
          ),
        );
        expect(metrics).toMatch(new RegExp(`workqueue_adds_total\\{[^}]*name="${controller}"`));
      }
      expect(metrics).toMatch(/controller_runtime_active_workers\{[^}]*controller="widgets"/);

      manager.kill("SIGTERM");
      expect(await manager.waitForExit(10_000), manager.output()).toEqual({
        code: 0,
        signal: null,
      });
      expect(manager.stdoutLines).toContain("stopped");
    } finally {
      manager.kill("SIGKILL");
      await cs.restClient.transport.close();
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  }, 120_000);
});
