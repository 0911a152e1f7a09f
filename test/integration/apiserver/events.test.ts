import { beforeAll, describe, expect, it } from "vitest";
import type * as eventsV1 from "kubernetes-types/events/v1.js";
import { Clientset, isInvalid, StatusError, PatchTypes } from "kubekit";
import { useServer } from "../../support/server-test-helpers.js";

/**
 * Events served as kube-apiserver serves them: one storage for core/v1 and events.k8s.io/v1,
 * converted field by field (`pkg/apis/events/v1/conversion.go`), with the events.k8s.io/v1
 * create and update rules of `pkg/apis/core/validation/events.go`.
 */

const NS = "ev";

function v1Event(name: string, extra: Partial<eventsV1.Event> = {}): eventsV1.Event {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name },
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "kubekit.io/test",
    reportingInstance: "test-1",
    action: "Pulled",
    reason: "Pulled",
    regarding: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: NS, uid: "u1" },
    note: "image pulled",
    type: "Normal",
    ...extra,
  };
}

async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe("Events through both APIs", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(async () => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: NS } });
  });

  it("serves an events.k8s.io/v1 Event as core/v1 and back", async () => {
    const created = await cs.eventsV1
      .events(NS)
      .create(
        v1Event("a", { series: { count: 3, lastObservedTime: "2026-01-01T00:05:00.000000Z" } }),
      );
    expect(created).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "image pulled" });
    const core = await cs.coreV1.events(NS).get("a");
    expect(core).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      involvedObject: { kind: "Pod", name: "web-0", namespace: NS, uid: "u1" },
      message: "image pulled",
      reason: "Pulled",
      type: "Normal",
      action: "Pulled",
      eventTime: "2026-01-01T00:00:00.000000Z",
      series: { count: 3, lastObservedTime: "2026-01-01T00:05:00.000000Z" },
      reportingComponent: "kubekit.io/test",
      reportingInstance: "test-1",
    });
    expect(core).not.toHaveProperty("regarding");
    expect(core).not.toHaveProperty("note");
    expect(core.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(core.metadata?.uid).toBe(created.metadata?.uid);

    const list = await cs.eventsV1.events(NS).list();
    expect(list.items.map((e) => e.metadata?.name)).toContain("a");
  });

  it("serves a core/v1 Event through events.k8s.io/v1 with the deprecated fields", async () => {
    await cs.coreV1.events(NS).create({
      metadata: { name: "b" },
      involvedObject: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: NS },
      reason: "BackOff",
      message: "back-off",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:10:00Z",
      count: 7,
      type: "Warning",
    });
    const ev = await cs.eventsV1.events(NS).get("b");
    expect(ev).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      regarding: { kind: "Pod", name: "web-0" },
      note: "back-off",
      reason: "BackOff",
      type: "Warning",
      deprecatedSource: { component: "kubelet", host: "node-1" },
      deprecatedFirstTimestamp: "2026-01-01T00:00:00Z",
      deprecatedLastTimestamp: "2026-01-01T00:10:00Z",
      deprecatedCount: 7,
    });
    expect(ev).not.toHaveProperty("involvedObject");
    expect(ev).not.toHaveProperty("count");
  });

  it("patches the series through events.k8s.io/v1 and shows it through core/v1", async () => {
    await cs.eventsV1.events(NS).create(v1Event("c"));
    const patched = await cs.eventsV1.events(NS).patch("c", PatchTypes.strategicMerge, {
      series: { count: 2, lastObservedTime: "2026-01-01T00:01:00.000000Z" },
    });
    expect(patched.series).toEqual({ count: 2, lastObservedTime: "2026-01-01T00:01:00.000000Z" });
    expect((await cs.coreV1.events(NS).get("c")).series?.count).toBe(2);
  });

  it("refuses an events.k8s.io/v1 create that breaks its rules", async () => {
    const missing = await rejection(
      cs.eventsV1.events(NS).create(
        v1Event("d", {
          eventTime: undefined as unknown as string,
          action: "",
          deprecatedCount: 2,
        }),
      ),
    );
    expect(isInvalid(missing)).toBe(true);
    expect(missing.status.details?.group).toBe("events.k8s.io");
    // Without eventTime the legacy rules are the old-style ones (no action required).
    expect(missing.status.details?.causes?.map((c) => c.field)).toEqual([
      "eventTime",
      "deprecatedCount",
    ]);
    const series = await rejection(
      cs.eventsV1
        .events(NS)
        .create(
          v1Event("e", { series: { count: 1, lastObservedTime: "2026-01-01T00:00:00.000000Z" } }),
        ),
    );
    expect(series.status.details?.causes?.map((c) => c.field)).toEqual(["series.count"]);
    await expect(cs.coreV1.events(NS).get("d")).rejects.toThrow(StatusError);
  });

  it("keeps an events.k8s.io/v1 Event's fields immutable except the series", async () => {
    await cs.eventsV1.events(NS).create(v1Event("f"));
    const err = await rejection(
      cs.eventsV1.events(NS).patch("f", PatchTypes.merge, { note: "changed" }),
    );
    expect(isInvalid(err)).toBe(true);
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual(["message"]);
    // core/v1 keeps its legacy leniency.
    const core = await cs.coreV1
      .events(NS)
      .patch("f", PatchTypes.merge, { message: "changed via core" });
    expect(core.message).toBe("changed via core");
  });

  it("watches and deletes through events.k8s.io/v1", async () => {
    const controller = new AbortController();
    const seen: eventsV1.Event[] = [];
    const list = await cs.eventsV1.events(NS).list();
    const watching = (async () => {
      for await (const ev of cs.eventsV1.events(NS).watch({
        resourceVersion: list.metadata?.resourceVersion ?? "",
        signal: controller.signal,
      })) {
        if (ev.type === "ADDED" || ev.type === "DELETED") seen.push(ev.object as eventsV1.Event);
        if (seen.length === 2) controller.abort();
      }
    })().catch(() => undefined);
    await cs.coreV1.events(NS).create({
      metadata: { name: "g" },
      involvedObject: { kind: "Pod", name: "web-0", namespace: NS },
      message: "via core",
      reason: "R",
    });
    await cs.eventsV1.events(NS).delete("g");
    await watching;
    expect(seen.map((e) => [e.apiVersion, e.metadata?.name, e.note])).toEqual([
      ["events.k8s.io/v1", "g", "via core"],
      ["events.k8s.io/v1", "g", "via core"],
    ]);
    await expect(cs.coreV1.events(NS).get("g")).rejects.toThrow(StatusError);
  });
});
