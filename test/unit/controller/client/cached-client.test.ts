import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  CacheReadError,
  ControllerBuilder,
  ControllerBuilderError,
  InformerCache,
  Manager,
  noopLogger,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import { resolveKind } from "../../../../packages/kubekit/src/controller/client/kind-reference.js";
import { findBuiltinResource } from "../../../../packages/kubekit/src/core/resource-table.js";

/** A cache whose informers never list: the RESTClient is asked for only when one runs. */
function idleCache(): InformerCache {
  return new InformerCache(() => {
    throw new Error("no API server in unit tests");
  });
}

describe("resolveKind", () => {
  it("learns a typed accessor's resource without creating an informer", () => {
    const kind = resolveKind((i) => i.appsV1.deployments());
    expect(kind).toMatchObject({
      group: "apps",
      version: "v1",
      resource: "deployments",
      namespaced: true,
      kind: "Deployment",
      typed: true,
      key: "typed:apps/v1/deployments",
    });
    expect(resolveKind((i) => i.coreV1.nodes())).toMatchObject({ namespaced: false, kind: "Node" });
  });

  it("takes a resource, with its kind and scope from the built-in table unless given", () => {
    expect(resolveKind({ group: "", version: "v1", resource: "namespaces" })).toMatchObject({
      namespaced: false,
      kind: "Namespace",
      typed: false,
      key: "dynamic:/v1/namespaces",
    });
    expect(
      resolveKind({
        group: "example.com",
        version: "v1",
        resource: "websites",
        kind: "Website",
        namespaced: false,
      }),
    ).toMatchObject({ kind: "Website", namespaced: false });
    expect(resolveKind({ group: "example.com", version: "v1", resource: "widgets" })).toMatchObject(
      { kind: undefined, namespaced: true },
    );
    const info = findBuiltinResource("batch", "v1", "jobs")!;
    expect(resolveKind(info)).toMatchObject({ resource: "jobs", kind: "Job", typed: false });
  });

  it("refuses an accessor that asks for no informer, and malformed resources", () => {
    expect(() => resolveKind(() => undefined)).toThrow(TypeError);
    expect(() => resolveKind({ group: "a", version: "", resource: "x" })).toThrow(TypeError);
  });
});

describe("InformerCache", () => {
  it("has one informer per kind and way of naming it", () => {
    const cache = idleCache();
    const typed = cache.informer((i) => i.coreV1.configMaps());
    expect(cache.informer((i) => i.coreV1.configMaps())).toBe(typed);
    const dynamic = cache.informer({ group: "", version: "v1", resource: "configmaps" });
    expect(dynamic).not.toBe(typed);
    expect(cache.has(resolveKind((i) => i.coreV1.pods()))).toBe(false);
    expect(typed.isStarted).toBe(false); // started with the cache, not before
  });

  it("rejects reads before the cache started (controller-runtime's ErrCacheNotStarted)", async () => {
    const cache = idleCache();
    const informer = cache.informer((i) => i.coreV1.configMaps());
    const error = await cache.waitForInformer(informer, undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CacheReadError);
    expect(error).toMatchObject({ reason: "NotStarted" });
  });

  it("makes reads wait for an announced start (the manager's start has begun)", async () => {
    const cache = idleCache();
    const informer = cache.informer((i) => i.coreV1.configMaps());
    cache.starting();
    let settled = false;
    const waiting = cache.waitForInformer(informer, undefined).finally(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await cache.shutdown(); // stopped before it started: the read fails, naming why
    await expect(waiting).rejects.toMatchObject({ reason: "Stopped" });
  });

  it("gives up with the reader's signal", async () => {
    const cache = idleCache();
    const informer = cache.informer((i) => i.coreV1.configMaps());
    const stop = new AbortController();
    cache.start(stop.signal); // the informer runs, and its list fails: it never syncs
    const reader = new AbortController();
    const waiting = cache.waitForInformer(informer, reader.signal);
    reader.abort(new Error("reconcile stopped"));
    await expect(waiting).rejects.toThrow("reconcile stopped");
    stop.abort();
    await cache.shutdown();
  });
});

describe("Manager.client and Manager.controller", () => {
  /** A manager without a kubeconfig: nothing here may need one before start. */
  function manager(): Manager {
    return new Manager({
      registry: new Registry(),
      logger: noopLogger,
      clock: new FakeClock(),
    });
  }

  it("reads before start reject NotStarted; writes need no informer", async () => {
    const mgr = manager();
    const configMaps = mgr.client.resource((i) => i.coreV1.configMaps(), "default");
    await expect(configMaps.get("a")).rejects.toMatchObject({ reason: "NotStarted" });
    expect(configMaps.namespace).toBe("default");
    expect(configMaps.kind.kind).toBe("ConfigMap");
  });

  it("builds a controller the manager runs, watching informers of its cache", () => {
    const mgr = manager();
    const builder = mgr.controller("web");
    expect(builder).toBeInstanceOf(ControllerBuilder);
    const controller = builder
      .for((i) => i.appsV1.deployments())
      .owns((i) => i.coreV1.configMaps(), { onlyController: false })
      .complete(() => undefined);
    expect(controller.name).toBe("web");
    expect(() => builder.complete(() => undefined)).toThrow(ControllerBuilderError);
    // The watched informers are the client's: one cache.
    expect(mgr.client.informer((i) => i.appsV1.deployments()).isStarted).toBe(false);
  });

  it("refuses builders that watch nothing or own without a known for kind", () => {
    const mgr = manager();
    expect(() => mgr.controller("empty").complete(() => undefined)).toThrow(
      /must provide an object for reconciliation/,
    );
    expect(() =>
      mgr
        .controller("cr")
        .for({ group: "example.com", version: "v1", resource: "websites" })
        .owns((i) => i.coreV1.configMaps())
        .complete(() => undefined),
    ).toThrow(/needs the kind of For/);
    expect(() => mgr.controller("")).toThrow(TypeError);
  });
});
