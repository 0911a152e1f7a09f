import type { ConfigMap } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { describe, expect, it } from "vitest";
import {
  and,
  annotationsChanged,
  findStatusCondition,
  hasOwnerReference,
  isNotFound,
  isStatusConditionTrue,
  labelSelectorPredicate,
  labelsChanged,
  not,
  or,
  removeOwnerReference,
  resourceVersionChanged,
  setOwnerReference,
  setStatusCondition,
  splitObjectKey,
  type PolicyV1PodDisruptionBudgetLister,
} from "kubekit";
import { waitFor } from "../../support/server-test-helpers.js";
import { controllerFor, useCluster } from "./controller-harness.js";

/**
 * The reconciler helpers on real objects: owner references a controller writes to the objects
 * it makes, the `Ready` condition it writes to its object's status (a PodDisruptionBudget:
 * its status conditions are `metav1.Condition`s), and composed predicates filtering the
 * notifications of real writes.
 */

const PDB_KIND = { apiVersion: "policy/v1", kind: "PodDisruptionBudget" };

function pdb(name: string, minAvailable: number): PodDisruptionBudget {
  return { metadata: { name }, spec: { minAvailable, selector: { matchLabels: { app: name } } } };
}

function cm(name: string, labels: Record<string, string>, namespace?: string): ConfigMap {
  return { metadata: { name, namespace, labels }, data: { v: "0" } };
}

describe("owner references, status conditions and predicates on the embedded server", () => {
  const h = useCluster();

  it("a controller owns a ConfigMap per PodDisruptionBudget and reports Ready with observedGeneration", async () => {
    const ns = await h.namespace("ctl-conditions");
    let lister: PolicyV1PodDisruptionBudgetLister | undefined;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "pdb-config",
        reconcile: async (key, signal) => {
          const { namespace, name } = splitObjectKey(key);
          let cached: PodDisruptionBudget;
          try {
            cached = lister?.podDisruptionBudgets(namespace).get(name) as PodDisruptionBudget;
          } catch (err) {
            if (isNotFound(err)) return;
            throw err;
          }
          const owner = { ...PDB_KIND, ...cached };
          // The namespace first: a namespaced owner needs a dependent in its namespace.
          const config = setOwnerReference(owner, cm(`${name}-config`, {}, namespace));
          await h.cs.coreV1
            .configMaps(namespace)
            .create(config, { signal })
            .catch((err: unknown) => {
              if ((err as { reason?: string }).reason !== "AlreadyExists") throw err;
            });
          // Our own copy of the status: the cached object is never mutated.
          const status = { ...cached.status, conditions: [...(cached.status?.conditions ?? [])] };
          const changed = setStatusCondition(status.conditions, {
            type: "Ready",
            status: "True",
            reason: "ConfigCreated",
            message: `${name}-config exists`,
            observedGeneration: cached.metadata?.generation ?? 0,
          });
          if (changed) {
            await h.cs.policyV1
              .podDisruptionBudgets(namespace)
              .updateStatus(
                { ...cached, status: status as PodDisruptionBudget["status"] },
                { signal },
              );
          }
        },
      },
      (factory, controller) => {
        const resource = factory.policyV1.podDisruptionBudgets();
        lister = resource.lister;
        controller.watch(resource.informer);
      },
    );
    void r.start();
    const pdbs = h.cs.policyV1.podDisruptionBudgets(ns);
    await pdbs.create(pdb("web", 1));
    const ready = async (generation: number): Promise<PodDisruptionBudget> => {
      let current: PodDisruptionBudget | undefined;
      await waitFor(`Ready at generation ${generation}`, async () => {
        current = await pdbs.get("web");
        const condition = findStatusCondition(current.status?.conditions, "Ready");
        return condition?.observedGeneration === generation;
      });
      return current as PodDisruptionBudget;
    };
    const first = await ready(1);
    expect(isStatusConditionTrue(first.status?.conditions, "Ready")).toBe(true);
    const config = await h.cs.coreV1.configMaps(ns).get("web-config");
    const owner = { ...PDB_KIND, ...first };
    expect(hasOwnerReference(owner, config)).toBe(true);
    expect(config.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        name: "web",
        uid: first.metadata?.uid,
      },
    ]);

    // A spec change bumps the generation: observedGeneration follows, the status did not
    // transition, so lastTransitionTime stays.
    await pdbs.update({ ...first, spec: { ...first.spec, minAvailable: 2 } });
    const second = await ready(2);
    const before = findStatusCondition(first.status?.conditions, "Ready");
    const after = findStatusCondition(second.status?.conditions, "Ready");
    expect(after?.lastTransitionTime).toBe(before?.lastTransitionTime);
    expect(after?.reason).toBe("ConfigCreated");

    // Releasing the ConfigMap: the server keeps what removeOwnerReference left.
    const released = await h.cs.coreV1
      .configMaps(ns)
      .update(removeOwnerReference(owner, structuredClone(config)));
    expect(released.metadata?.ownerReferences ?? []).toEqual([]);
    expect(hasOwnerReference(owner, released)).toBe(false);
  });

  it("composed predicates filter the notifications of real writes", async () => {
    const ns = await h.namespace("ctl-predicates");
    const calls: string[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "predicates",
        reconcile: (key) => {
          calls.push(key);
        },
      },
      (factory, controller) =>
        controller.watch(factory.coreV1.configMaps().informer, {
          predicates: [
            and(
              labelSelectorPredicate("app=web"),
              resourceVersionChanged,
              or(labelsChanged, annotationsChanged),
            ),
            // Never the objects marked paused (on any kind of notification).
            not(labelSelectorPredicate("paused=true")),
          ],
        }),
    );
    void r.start();
    await waitFor("the sync", async () => r.factory.coreV1.configMaps().informer.hasSynced());
    const cms = h.cs.coreV1.configMaps(ns);
    const a = await cms.create(cm("a", { app: "web" }));
    await cms.create(cm("paused", { app: "web", paused: "true" }));
    await cms.create(cm("db", { app: "db" }));
    let sentinel = await cms.create(cm("sentinel", { app: "web" }));
    // One worker, FIFO: a key let through before the sentinel's is reconciled before it.
    const touchSentinel = async (n: number): Promise<void> => {
      sentinel = await cms.update({
        ...sentinel,
        metadata: { ...sentinel.metadata, annotations: { n: String(n) } },
      });
      await waitFor(
        `sentinel ${n}`,
        async () => calls.filter((k) => k === `${ns}/sentinel`).length === n + 1,
      );
    };
    await waitFor("the creations", async () => calls.includes(`${ns}/sentinel`));
    expect(calls).toEqual([`${ns}/a`, `${ns}/sentinel`]);

    // A data-only update: neither labels nor annotations changed, dropped.
    const a2 = await cms.update({ ...a, data: { v: "1" } });
    await touchSentinel(1);
    expect(calls.filter((k) => k === `${ns}/a`)).toHaveLength(1);

    // A label change passes.
    await cms.update({ ...a2, metadata: { ...a2.metadata, labels: { app: "web", tier: "x" } } });
    await touchSentinel(2);
    expect(calls).toEqual([
      `${ns}/a`,
      `${ns}/sentinel`,
      `${ns}/sentinel`,
      `${ns}/a`,
      `${ns}/sentinel`,
    ]);
  });
});
