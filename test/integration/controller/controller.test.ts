import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  labelSelectorPredicate,
  TerminalError,
  type CoreV1ConfigMapLister,
  isNotFound,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import { eventually, waitFor } from "../../support/server-test-helpers.js";
import { controllerFor, useCluster } from "./controller-harness.js";

/**
 * Controller against the embedded API server: ConfigMaps watched through a
 * SharedInformerFactory, reconciled by key with the lister as the source of truth.
 */

function cm(name: string, labels: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, labels }, data: { v: "0" } };
}

describe("Controller on the embedded server", () => {
  const h = useCluster();

  it("reconciles every object after the sync, then each change; a deletion shows as absent from the lister", async () => {
    const ns = await h.namespace("ctl-basic");
    await h.cs.coreV1.configMaps(ns).create(cm("a"));
    await h.cs.coreV1.configMaps(ns).create(cm("b"));
    const seen: string[] = [];
    let lister: CoreV1ConfigMapLister | undefined;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "basic",
        reconcile: (key) => {
          const [, name] = key.split("/");
          try {
            const obj = lister?.configMaps(ns).get(name as string);
            seen.push(`${key}=${obj?.data?.["v"]}`);
          } catch (err) {
            if (!isNotFound(err)) throw err;
            seen.push(`${key} gone`);
          }
        },
      },
      (factory, controller) => {
        controller.watch(factory.coreV1.configMaps().informer);
        lister = factory.coreV1.configMaps().lister;
      },
    );
    void r.start();
    await waitFor("both initial keys", async () => seen.length >= 2);
    expect([...seen].sort()).toEqual([`${ns}/a=0`, `${ns}/b=0`]);
    await h.cs.coreV1
      .configMaps(ns)
      .patch("a", "application/merge-patch+json", { data: { v: "1" } });
    await waitFor("the update", async () => seen.includes(`${ns}/a=1`));
    await h.cs.coreV1.configMaps(ns).delete("b");
    await waitFor("the deletion", async () => seen.includes(`${ns}/b gone`));
    expect(r.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("requeues after requeueAfterMs on the real clock", async () => {
    const ns = await h.namespace("ctl-after");
    await h.cs.coreV1.configMaps(ns).create(cm("a"));
    const times: number[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "after",
        reconcile: () => {
          times.push(Date.now());
          return times.length === 1 ? { requeueAfterMs: 100 } : undefined;
        },
      },
      (factory, controller) => controller.watch(factory.coreV1.configMaps().informer),
    );
    void r.start();
    await waitFor("the requeued reconcile", async () => times.length === 2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(99);
  });

  it("retries errors with the rate limiter's delays (5, 10, 20 ms on a FakeClock) and logs them with the key", async () => {
    const ns = await h.namespace("ctl-backoff");
    await h.cs.coreV1.configMaps(ns).create(cm("flaky"));
    const clock = new FakeClock();
    const start = clock.now();
    const at: number[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "backoff",
        clock,
        reconcile: () => {
          at.push(clock.now() - start);
          if (at.length <= 3) throw new Error(`attempt ${at.length} failed`);
        },
      },
      (factory, controller) => controller.watch(factory.coreV1.configMaps().informer),
    );
    void r.start();
    for (const [i, delay] of [5, 10, 20].entries()) {
      await waitFor(`attempt ${i + 1}`, async () => at.length === i + 1);
      await clock.waitForTimers(1);
      clock.advance(delay - 1);
      // The retry is still 1 ms away: nothing else can reconcile the key.
      expect(clock.nextTimerAt()).toBe(clock.now() + 1);
      expect(at).toHaveLength(i + 1);
      clock.advance(1);
    }
    await waitFor("the successful attempt", async () => at.length === 4);
    expect(at).toEqual([0, 5, 15, 35]);
    const errors = r.logger.entries.filter((e) => e.level === "error");
    const flaky = { namespace: ns, name: "flaky" };
    expect(errors.map((e) => e.fields)).toMatchObject([
      { ...flaky, controller: "backoff" },
      flaky,
      flaky,
    ]);
    // Each attempt is a reconcile of its own, with its own ID.
    const ids = errors.map((e) => (e.fields as { reconcileID: string }).reconcileID);
    expect(new Set(ids).size).toBe(3);
  });

  it("does not requeue a TerminalError, and a throwing reconcile never stops the worker", async () => {
    const ns = await h.namespace("ctl-errors");
    const clock = new FakeClock();
    const calls: string[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "errors",
        clock,
        reconcile: (key) => {
          calls.push(key);
          if (key.endsWith("/terminal")) throw new TerminalError("invalid spec");
          if (key.endsWith("/sync-throw")) throw new Error("thrown synchronously");
        },
      },
      (factory, controller) => controller.watch(factory.coreV1.configMaps().informer),
    );
    void r.start();
    await waitFor("the sync", async () => r.factory.coreV1.configMaps().informer.hasSynced());
    for (const name of ["terminal", "sync-throw", "fine"]) {
      await h.cs.coreV1.configMaps(ns).create(cm(name));
    }
    await waitFor("all three", async () => calls.includes(`${ns}/fine`));
    // Only the ordinary error is waiting for a retry; the terminal one was forgotten.
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1_000_000);
    await waitFor("the retry of sync-throw", async () => calls.length === 4);
    expect(calls).toEqual([`${ns}/terminal`, `${ns}/sync-throw`, `${ns}/fine`, `${ns}/sync-throw`]);
    const terminal = r.logger.entries.find((e) => /terminal/.test(e.message));
    expect(terminal?.fields).toMatchObject({ namespace: ns, name: "terminal" });
  });

  it("filters with predicates: objects outside a label selector are never reconciled", async () => {
    const ns = await h.namespace("ctl-selector");
    const calls: string[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "selector",
        reconcile: (key) => {
          calls.push(key);
        },
      },
      (factory, controller) =>
        controller.watch(factory.coreV1.configMaps().informer, {
          predicates: [labelSelectorPredicate("app=web")],
        }),
    );
    void r.start();
    await waitFor("the sync", async () => r.factory.coreV1.configMaps().informer.hasSynced());
    await h.cs.coreV1.configMaps(ns).create(cm("in", { app: "web" }));
    await h.cs.coreV1.configMaps(ns).create(cm("out", { app: "db" }));
    await h.cs.coreV1.configMaps(ns).create(cm("in-last", { app: "web" }));
    // One worker, FIFO: had "out" passed, it would be reconciled before "in-last".
    await waitFor("in-last", async () => calls.includes(`${ns}/in-last`));
    expect(calls).toEqual([`${ns}/in`, `${ns}/in-last`]);
  });

  it("shutdown: in-flight reconciles see their signal abort, run resolves once they settle", async () => {
    const ns = await h.namespace("ctl-shutdown");
    await h.cs.coreV1.configMaps(ns).create(cm("slow"));
    let entered = false;
    let settled = false;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "shutdown",
        reconcile: async (_key, signal) => {
          entered = true;
          await new Promise<void>((resolve) =>
            signal.addEventListener("abort", () => resolve(), { once: true }),
          );
          // Finishing takes a while after the abort: run must wait for it.
          await new Promise((resolve) => setTimeout(resolve, 50));
          settled = true;
        },
      },
      (factory, controller) => controller.watch(factory.coreV1.configMaps().informer),
    );
    const run = r.start();
    await waitFor("the reconcile to start", async () => entered);
    r.controller.enqueue(`${ns}/queued`);
    await r.stop();
    expect(settled).toBe(true);
    await run;
  });

  it("never reconciles one key twice at once, and ends on the object's last state", async () => {
    const ns = await h.namespace("ctl-exclusive");
    await h.cs.coreV1.configMaps(ns).create(cm("hot"));
    let active = 0;
    let overlaps = 0;
    const versions: string[] = [];
    let lister: CoreV1ConfigMapLister | undefined;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "exclusive",
        workers: 4,
        reconcile: async () => {
          if (++active > 1) overlaps++;
          versions.push(lister?.configMaps(ns).get("hot").data?.["v"] ?? "?");
          await new Promise((resolve) => setTimeout(resolve, 5));
          active--;
        },
      },
      (factory, controller) => {
        controller.watch(factory.coreV1.configMaps().informer);
        lister = factory.coreV1.configMaps().lister;
      },
    );
    void r.start();
    for (let i = 1; i <= 20; i++) {
      await h.cs.coreV1.configMaps(ns).patch("hot", "application/merge-patch+json", {
        data: { v: String(i) },
      });
    }
    const last = await eventually("the last version reconciled", async () =>
      versions.at(-1) === "20" ? versions.length : undefined,
    );
    expect(overlaps).toBe(0);
    expect(last).toBeLessThanOrEqual(21);
  });
});
