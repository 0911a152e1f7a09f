import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  LOW_PRIORITY,
  PrometheusMetricFactory,
  type ReconcileContext,
  channelSource,
  controllerMetricsProvider,
  enqueueForObject,
  labelSelectorPredicate,
  realClock,
} from "kubekit";
import { eventually } from "../../support/server-test-helpers.js";
import { controllerFor, useCluster } from "./controller-harness.js";

/**
 * Sources, owner mapping, the priority queue and the per-reconcile context against the
 * embedded server (issue 21 §2).
 */

function owner(kind: string, name: string, controller = false) {
  return {
    apiVersion: "v1",
    kind,
    name,
    uid: `uid-${name}`,
    ...(controller ? { controller } : {}),
  };
}

describe("controller sources and priorities on the embedded server", () => {
  const h = useCluster();

  it("watchOwned with onlyController: false reconciles every owner of the kind", async () => {
    const ns = await h.namespace("src-owners");
    const seen = new Set<string>();
    const r = controllerFor(
      h.cs,
      ns,
      { name: "owners", reconcile: (key) => void seen.add(key) },
      (factory, controller) =>
        controller.watchOwned(factory.coreV1.configMaps().informer, {
          group: "",
          kind: "Secret",
          onlyController: false,
        }),
    );
    void r.start();
    await h.cs.coreV1.configMaps(ns).create({
      metadata: {
        name: "shared",
        ownerReferences: [
          owner("Secret", "a", true),
          owner("Secret", "b"),
          owner("ServiceAccount", "c"),
        ],
      },
    });
    await eventually("both owners", async () => (seen.size === 2 ? true : undefined));
    expect([...seen].sort()).toEqual([`${ns}/a`, `${ns}/b`]);
  });

  it("channelSource: objects from outside the cluster's watches go through predicates to reconciles, each with its own reconcile ID", async () => {
    const ns = await h.namespace("src-channel");
    const contexts: ReconcileContext[] = [];
    const pushed: ConfigMap[] = [];
    let wake: (() => void) | undefined;
    async function* external(): AsyncGenerator<ConfigMap> {
      for (;;) {
        const next = pushed.shift();
        if (next !== undefined) yield next;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    }
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "channel",
        reconcile: async (key, signal, context) => {
          contexts.push(context);
          // The reconcile reads the cluster: the key names a ConfigMap that exists.
          await h.cs.coreV1.configMaps(context.namespace).get(context.name, { signal });
        },
      },
      (_factory, controller) =>
        controller.watchSource(
          channelSource(external(), enqueueForObject<ConfigMap>(), {
            name: "webhook",
            predicates: [labelSelectorPredicate("notify=yes")],
          }),
        ),
    );
    void r.start();
    for (const [name, notify] of [
      ["one", "yes"],
      ["two", "no"],
      ["three", "yes"],
    ] as const) {
      const cm = await h.cs.coreV1
        .configMaps(ns)
        .create({ metadata: { name, labels: { notify } } });
      pushed.push(cm);
      wake?.();
    }
    await eventually("two reconciles", async () => (contexts.length === 2 ? true : undefined));
    expect(contexts.map((c) => c.name)).toEqual(["one", "three"]);
    expect(contexts[0]?.reconcileID).not.toBe(contexts[1]?.reconcileID);
    expect(r.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("priority queue: after a restart, a user's change is reconciled before the initial list", async () => {
    const ns = await h.namespace("src-priority");
    for (let i = 0; i < 20; i++) {
      await h.cs.coreV1.configMaps(ns).create({ metadata: { name: `existing-${i}` } });
    }
    const order: [string, number][] = [];
    let userChangeQueued!: () => void;
    const queued = new Promise<void>((resolve) => (userChangeQueued = resolve));
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "priority",
        priorityQueue: true,
        reconcile: async (key, _signal, context) => {
          order.push([key, context.priority]);
          // Hold the first reconcile until the user's change has been queued.
          if (order.length === 1) await queued;
        },
      },
      (factory, controller) =>
        controller.watch(factory.coreV1.configMaps().informer, {
          predicates: [
            {
              // Runs right before the handler queues the key, in the same call.
              update: (_old, obj) => {
                if (obj.metadata?.name === "existing-19") queueMicrotask(userChangeQueued);
                return true;
              },
            },
          ],
        }),
    );
    void r.start();
    await eventually("the first reconcile", async () => (order.length === 1 ? true : undefined));
    await h.cs.coreV1
      .configMaps(ns)
      .update({ metadata: { name: "existing-19" }, data: { changed: "by a user" } });
    // The 20 ConfigMaps of the test (and any the server adds to a namespace), each once: the
    // change raised the queued key of existing-19 to priority 0 rather than adding it again.
    await eventually("every reconcile", async () =>
      order.filter(([key]) => key.includes("/existing-")).length === 20 ? true : undefined,
    );
    expect(order[0]?.[1]).toBe(LOW_PRIORITY);
    // The user's change (priority 0) jumps the initial objects still queued.
    expect(order[1]).toEqual([`${ns}/existing-19`, 0]);
    expect(order.filter(([key]) => key === `${ns}/existing-19`)).toHaveLength(1);
    expect(order.slice(2).every(([, priority]) => priority === LOW_PRIORITY)).toBe(true);
  });

  it("reconcileTimeoutMs aborts a reconcile stuck on the server and retries it; the timeout is counted", async () => {
    const ns = await h.namespace("src-timeout");
    await h.cs.coreV1.configMaps(ns).create({ metadata: { name: "slow" } });
    const registry = new Registry();
    let calls = 0;
    const reasons: string[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "timeout",
        reconcileTimeoutMs: 200,
        metrics: controllerMetricsProvider(new PrometheusMetricFactory({ registry })),
        reconcile: async (_key, signal) => {
          calls++;
          if (calls > 1) return;
          // A watch that never ends by itself: only the signal stops it.
          const watch = await h.cs.coreV1.configMaps(ns).watch({ signal });
          try {
            for await (const event of watch) void event;
          } catch (error) {
            reasons.push((error as Error).name);
            throw error;
          }
          await realClock.sleep(60_000, signal);
        },
      },
      (factory, controller) => controller.watch(factory.coreV1.configMaps().informer),
    );
    void r.start();
    await eventually("the retry", async () => (calls >= 2 ? true : undefined));
    const timeouts = await registry
      .getSingleMetric("controller_runtime_reconcile_timeouts_total")
      ?.get();
    expect(timeouts?.values.find((v) => v.labels["controller"] === "timeout")?.value).toBe(1);
  });
});
