import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  hasFinalizer,
  reconcileWithFinalizer,
  retryOnConflict,
  waitForCacheToObserve,
  splitObjectKey,
  isConflict,
  isNotFound,
  type CoreV1ConfigMapLister,
} from "kubekit";
import { eventually, waitFor } from "../../support/server-test-helpers.js";
import { controllerFor, useCluster } from "./controller-harness.js";

/**
 * The controller toolkit against the embedded server: the finalizer helper in a controller,
 * retryOnConflict on a real 409, waitForCacheToObserve after a write.
 */

const FINALIZER = "kubekit.test/cleanup";

describe("controller toolkit on the embedded server", () => {
  const h = useCluster();

  it("reconcileWithFinalizer: adds the finalizer, cleans up on delete, then lets the object go", async () => {
    const ns = await h.namespace("tk-finalizer");
    const client = h.cs.coreV1.configMaps(ns);
    const steps: string[] = [];
    let lister: CoreV1ConfigMapLister | undefined;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "finalizer",
        reconcile: async (key, signal) => {
          const { name } = splitObjectKey(key);
          let object: ConfigMap;
          try {
            object = lister?.configMaps(ns).get(name) as ConfigMap;
          } catch (err) {
            if (isNotFound(err)) return;
            throw err;
          }
          return reconcileWithFinalizer({
            client,
            finalizer: FINALIZER,
            object,
            signal,
            apply: (obj) => {
              steps.push(`apply ${name} finalizers=${obj.metadata?.finalizers?.join(",")}`);
            },
            cleanup: () => {
              steps.push(`cleanup ${name}`);
            },
          });
        },
      },
      (factory, controller) => {
        lister = factory.coreV1.configMaps().lister;
        controller.watch(factory.coreV1.configMaps().informer);
      },
    );
    void r.start();
    await client.create({ metadata: { name: "guarded" }, data: {} });
    await waitFor("the finalizer", async () =>
      hasFinalizer(await client.get("guarded"), FINALIZER),
    );
    expect(steps[0]).toBe(`apply guarded finalizers=${FINALIZER}`);
    // Deleting waits for the cleanup, then the finalizer's removal completes it.
    await client.delete("guarded");
    await eventually("the object to be gone", async () =>
      isNotFound(await client.get("guarded").catch((e: unknown) => e)) ? true : undefined,
    );
    expect(steps.filter((s) => s.startsWith("cleanup"))).toEqual(["cleanup guarded"]);
    expect(r.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("retryOnConflict: a write with a stale resourceVersion gets 409, the retry re-reads and succeeds", async () => {
    const ns = await h.namespace("tk-retry");
    const client = h.cs.coreV1.configMaps(ns);
    const stale = await client.create({ metadata: { name: "c" }, data: { n: "0" } });
    await client.update({ ...stale, data: { n: "1" } });
    const attempts: number[] = [];
    const result = await retryOnConflict(async (attempt) => {
      attempts.push(attempt);
      const current = attempt === 0 ? stale : await client.get("c");
      return client.update({ ...current, data: { n: String(Number(current.data?.["n"]) + 10) } });
    });
    expect(attempts).toEqual([0, 1]);
    expect(result.data).toEqual({ n: "11" });
    const err = await client.update(stale).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
  });

  it("waitForCacheToObserve: once it resolves, the lister shows the write", async () => {
    const ns = await h.namespace("tk-observe");
    const client = h.cs.coreV1.configMaps(ns);
    const r = controllerFor(h.cs, ns, { name: "observe", reconcile: () => undefined }, () => {});
    const configMaps = r.factory.coreV1.configMaps();
    void r.start();
    await waitFor("the sync", async () => configMaps.informer.hasSynced());
    const stop = new AbortController();
    for (let i = 0; i < 5; i++) {
      const written = await client.create({ metadata: { name: `w${i}` }, data: {} });
      const rv = written.metadata?.resourceVersion as string;
      expect(await waitForCacheToObserve(configMaps.informer, rv, stop.signal)).toBe(true);
      expect(configMaps.lister.configMaps(ns).get(`w${i}`).metadata?.resourceVersion).toBe(rv);
    }
  });
});
