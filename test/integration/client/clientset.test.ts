import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApplyRequestError,
  type ApplyOptions,
  Clientset,
  type ApplyConfiguration,
  builtinResources,
  isConflict,
  isNotFound,
  isStatus,
  isForbidden,
  StatusError,
  PatchTypes,
} from "kubekit";
import type { ApiServer } from "@kubekit/apiserver";
import { groupAccessorName, resourceAccessorName } from "../../../tools/generate-clientset.js";
import { AUTH_MODES, startClientTestServer } from "./client-test-server.js";
import { rejectionOf } from "../../support/rejection.js";

/**
 * The typed Clientset against the embedded API server over HTTPS, once with bearer-token
 * and once with client-certificate authentication: every verb, pagination with an expiring
 * continue token, watch, conflicts, the three patch types, server-side apply, scale,
 * eviction, followed logs and token requests.
 */

const container = { name: "main", image: "busybox" };

function configMap(name: string, labels: Record<string, string> = {}): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { a: "1" } };
}

function pod(name: string, labels: Record<string, string> = {}): Pod {
  return { metadata: { name, labels }, spec: { containers: [container] } };
}

function deployment(name: string): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [container] } },
    },
  };
}

describe.each(AUTH_MODES)("Clientset over HTTPS with %s authentication", (mode) => {
  let server: ApiServer;
  let cs: Clientset;
  let anonymous: Clientset;
  const ns = "client-typed";
  const other = "client-typed-other";

  beforeAll(async () => {
    const started = await startClientTestServer(mode);
    server = started.server;
    cs = new Clientset(started.config);
    anonymous = new Clientset(started.anonymousConfig);
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    await cs.coreV1.namespaces().create({ metadata: { name: other } });
  });

  afterAll(async () => {
    await cs.restClient.transport.close();
    await anonymous.restClient.transport.close();
    await server.stop();
  });

  it("is refused without the credential (403 for system:anonymous), so requests really authenticate", async () => {
    const err = await rejectionOf(anonymous.coreV1.namespaces().list());
    expect(isForbidden(err)).toBe(true);
  });

  it("creates, gets and lists cluster-scoped namespaces without a namespace argument", async () => {
    const got = await cs.coreV1.namespaces().get(ns);
    expect(got.metadata?.name).toBe(ns);
    expect(got.kind).toBe("Namespace");
    const list = await cs.coreV1.namespaces().list();
    expect(list.kind).toBe("NamespaceList");
    expect(list.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining([ns, other]));
  });

  it("creates, gets, lists by label, updates and rejects a stale update with a Conflict", async () => {
    const cms = cs.coreV1.configMaps(ns);
    const created = await cms.create(configMap("crud", { app: "crud" }));
    expect(created.metadata?.uid).toBeTruthy();
    expect((await cms.get("crud")).data).toEqual({ a: "1" });
    const listed = await cms.list({ labelSelector: "app=crud" });
    expect(listed.items.map((c) => c.metadata?.name)).toEqual(["crud"]);
    expect((await cms.list({ labelSelector: "app=none" })).items).toEqual([]);

    const updated = await cms.update({ ...created, data: { a: "2" } });
    expect(updated.data).toEqual({ a: "2" });
    expect(updated.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);

    const stale = await rejectionOf(cms.update({ ...created, data: { a: "3" } }));
    expect(stale).toBeInstanceOf(StatusError);
    expect(isConflict(stale)).toBe(true);
    expect((await cms.get("crud")).data).toEqual({ a: "2" });
  });

  it("reports a missing object as a typed NotFound StatusError", async () => {
    const err = await rejectionOf(cs.coreV1.configMaps(ns).get("absent"));
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).status.details?.name).toBe("absent");
  });

  it("listAll reads several pages (limit per page) and returns every item with the list RV", async () => {
    const cms = cs.coreV1.configMaps(ns);
    for (let i = 0; i < 25; i++) await cms.create(configMap(`paged-${i}`, { paged: "yes" }));
    const pages: number[] = [];
    const result = await cms.listAll({
      labelSelector: "paged=yes",
      limit: 10,
      onPage: (page) => {
        pages.push(page.items.length);
      },
    });
    expect(pages).toEqual([10, 10, 5]);
    expect(result.items).toHaveLength(25);
    expect(new Set(result.items.map((c) => c.metadata?.name)).size).toBe(25);
    expect(Number(result.resourceVersion)).toBeGreaterThan(0);

    const pageSizes: number[] = [];
    for await (const page of cms.listPages({ labelSelector: "paged=yes", limit: 10 })) {
      pageSizes.push(page.items.length);
    }
    expect(pageSizes).toEqual([10, 10, 5]);

    const unpaged = await cms.listAll({ labelSelector: "paged=yes" });
    expect(unpaged.items).toHaveLength(25);
  });

  it("listAll relists in full when the continue token expires between pages", async () => {
    const cms = cs.coreV1.configMaps(ns);
    for (let i = 0; i < 12; i++) await cms.create(configMap(`expiring-${i}`, { expiring: "yes" }));
    let writes = 0;
    /** A write after the page's snapshot, then compaction: the continue token is now too old. */
    const writeAndCompact = async (): Promise<void> => {
      await cms.create(configMap(`unrelated-${writes++}`));
      server.faults.compactHistory();
    };
    const requests: { items: number; continued: boolean }[] = [];
    const result = await cms.listAll({
      labelSelector: "expiring=yes",
      limit: 5,
      onPage: async (page) => {
        requests.push({
          items: page.items.length,
          continued: page.metadata?.continue !== undefined,
        });
        if (requests.length === 1) await writeAndCompact();
      },
    });
    expect(requests).toEqual([
      { items: 5, continued: true },
      { items: 12, continued: false },
    ]);
    expect(result.items.map((c) => c.metadata?.name).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `expiring-${i}`).sort(),
    );

    // The iterator form has no fallback: the expiry is thrown from the iteration.
    const pages = cms.listPages({ labelSelector: "expiring=yes", limit: 5 });
    await pages.next();
    await writeAndCompact();
    const err = await rejectionOf(pages.next());
    expect((err as StatusError).code).toBe(410);
  });

  it("lists, watches and deletes collections across all namespaces", async () => {
    await cs.coreV1.pods(ns).create(pod("everywhere-a", { everywhere: "yes" }));
    await cs.coreV1.pods(other).create(pod("everywhere-b", { everywhere: "yes" }));
    const all = await cs.coreV1.pods().list({ labelSelector: "everywhere=yes" });
    expect(all.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`).sort()).toEqual(
      [`${ns}/everywhere-a`, `${other}/everywhere-b`].sort(),
    );
    const listed = await cs.coreV1.pods().listAll({ labelSelector: "everywhere=yes", limit: 1 });
    expect(listed.items).toHaveLength(2);

    const watch = cs.coreV1.pods().watch({
      labelSelector: "everywhere=yes",
      resourceVersion: all.metadata?.resourceVersion ?? "",
    });
    await cs.coreV1.pods().deleteCollection({ labelSelector: "everywhere=yes" });
    const deleted: string[] = [];
    for await (const event of watch) {
      expect(event.type).toBe("DELETED");
      if (event.type !== "ERROR") deleted.push(event.object.metadata?.namespace ?? "");
      if (deleted.length === 2) break;
    }
    expect(deleted.sort()).toEqual([ns, other].sort());
    expect((await cs.coreV1.pods().list({ labelSelector: "everywhere=yes" })).items).toEqual([]);
  });

  it("watches ADDED, MODIFIED and DELETED events from a resourceVersion", async () => {
    const cms = cs.coreV1.configMaps(ns);
    const start = (await cms.list({ labelSelector: "watched=yes" })).metadata?.resourceVersion;
    const watch = cms.watch({ labelSelector: "watched=yes", resourceVersion: start ?? "" });
    await cms.create(configMap("watched", { watched: "yes" }));
    await cms.patch("watched", PatchTypes.merge, { data: { a: "changed" } });
    await cms.delete("watched");
    const seen: string[] = [];
    for await (const event of watch) {
      if (event.type === "ERROR") throw new Error(event.object.message);
      seen.push(`${event.type} ${event.object.metadata?.name} ${event.object.data?.["a"]}`);
      if (event.type === "DELETED") break;
    }
    expect(seen).toEqual([
      "ADDED watched 1",
      "MODIFIED watched changed",
      "DELETED watched changed",
    ]);
    expect(watch.closed).toBe(false);
    watch.close();
    expect(watch.closed).toBe(true);
  });

  it("patches with JSON Patch, merge patch and strategic merge patch, and a subresource", async () => {
    const pods = cs.coreV1.pods(ns);
    await pods.create({
      metadata: { name: "patched", labels: { a: "1" } },
      spec: { containers: [container, { name: "side", image: "busybox" }] },
    });
    const json = await pods.patch("patched", PatchTypes.json, [
      { op: "add", path: "/metadata/labels/json", value: "yes" },
    ]);
    expect(json.metadata?.labels).toEqual({ a: "1", json: "yes" });

    const merged = await pods.patch("patched", PatchTypes.merge, {
      metadata: { labels: { a: null, merge: "yes" } },
    });
    expect(merged.metadata?.labels).toEqual({ json: "yes", merge: "yes" });

    // Strategic merge: containers merge by name instead of being replaced.
    const strategic = await pods.patch("patched", PatchTypes.strategicMerge, {
      spec: { containers: [{ name: "main", image: "nginx" }] },
    });
    expect(strategic.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      "main=nginx",
      "side=busybox",
    ]);

    const status = await pods.patch(
      "patched",
      PatchTypes.merge,
      { status: { phase: "Running" } },
      { subresource: "status" },
    );
    expect(status.status?.phase).toBe("Running");

    // A JSON patch whose test fails is refused by the server; nothing changes.
    const failed = await rejectionOf(
      pods.patch("patched", PatchTypes.json, [
        { op: "test", path: "/metadata/labels/json", value: "no" },
      ]),
    );
    expect(failed).toBeInstanceOf(StatusError);
  });

  it("updateStatus replaces the status only", async () => {
    const pods = cs.coreV1.pods(ns);
    const created = await pods.create(pod("status"));
    const updated = await pods.updateStatus({
      ...created,
      spec: { containers: [{ name: "main", image: "ignored" }] },
      status: { phase: "Succeeded" },
    });
    expect(updated.status?.phase).toBe("Succeeded");
    expect(updated.spec?.containers[0]?.image).toBe("busybox");
    const stale = await rejectionOf(pods.updateStatus({ ...created, status: { phase: "Failed" } }));
    expect(isConflict(stale)).toBe(true);
  });

  it("server-side apply: creates, conflicts with another manager, and forces", async () => {
    const cms = cs.coreV1.configMaps(ns);
    const applied = await cms.apply(
      { metadata: { name: "applied" }, data: { a: "1" } },
      { fieldManager: "alpha" },
    );
    expect(applied.kind).toBe("ConfigMap");
    expect(applied.data).toEqual({ a: "1" });
    expect(applied.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toEqual([
      ["alpha", "Apply"],
    ]);

    const conflict = await rejectionOf(
      cms.apply({ metadata: { name: "applied" }, data: { a: "2" } }, { fieldManager: "beta" }),
    );
    expect(isConflict(conflict)).toBe(true);

    const forced = await cms.apply(
      { metadata: { name: "applied" }, data: { a: "2" } },
      { fieldManager: "beta", force: true },
    );
    expect(forced.data).toEqual({ a: "2" });
    expect(forced.metadata?.managedFields?.map((f) => f.manager)).toContain("beta");

    const dryRun = await cms.apply(
      { metadata: { name: "applied" }, data: { a: "3" } },
      { fieldManager: "beta", dryRun: ["All"] },
    );
    expect(dryRun.data).toEqual({ a: "3" });
    expect((await cms.get("applied")).data).toEqual({ a: "2" });
  });

  it("refuses an apply without a field manager or with managed fields, before sending", async () => {
    const cms = cs.coreV1.configMaps(ns);
    const missing = await rejectionOf(
      cms.apply({ metadata: { name: "never-applied" } }, {} as ApplyOptions),
    );
    expect(missing).toBeInstanceOf(ApplyRequestError);
    expect((missing as ApplyRequestError).problem).toBe("MissingFieldManager");
    expect(isNotFound(await rejectionOf(cms.get("never-applied")))).toBe(true);

    const live = await cms.create(configMap("read-back"));
    const withManagedFields = await rejectionOf(
      cms.apply(live as ApplyConfiguration<ConfigMap>, { fieldManager: "alpha" }),
    );
    expect((withManagedFields as ApplyRequestError).problem).toBe("ManagedFieldsPresent");

    const nameless = await rejectionOf(cms.apply({ data: {} }, { fieldManager: "alpha" }));
    expect((nameless as ApplyRequestError).problem).toBe("MissingName");
  });

  it("delete returns a Success Status or the deleted object, as the server answers", async () => {
    await cs.coreV1.configMaps(ns).create(configMap("deleted"));
    const status = await cs.coreV1.configMaps(ns).delete("deleted");
    expect(isStatus(status)).toBe(true);
    if (status.kind !== "Status") throw new Error("expected a Status");
    expect(status.status).toBe("Success");
    expect(status.details?.name).toBe("deleted");

    await cs.coreV1.pods(ns).create(pod("deleted-pod"));
    const object = await cs.coreV1.pods(ns).delete("deleted-pod", { gracePeriodSeconds: 0 });
    if (object.kind === "Status") throw new Error("expected the pod");
    expect(object.metadata?.name).toBe("deleted-pod");
    expect(isNotFound(await rejectionOf(cs.coreV1.pods(ns).get("deleted-pod")))).toBe(true);
  });

  it("deleteCollection deletes only what the selector matches", async () => {
    const cms = cs.coreV1.configMaps(ns);
    for (const name of ["gone-1", "gone-2", "gone-3"])
      await cms.create(configMap(name, { gone: "yes" }));
    await cms.create(configMap("kept", { gone: "no" }));
    await cms.deleteCollection({ labelSelector: "gone=yes" });
    expect((await cms.list({ labelSelector: "gone" })).items.map((c) => c.metadata?.name)).toEqual([
      "kept",
    ]);
  });

  it("gets, updates and patches the scale of a Deployment", async () => {
    const deployments = cs.appsV1.deployments(ns);
    await deployments.create(deployment("web"));
    const scale = await deployments.getScale("web");
    expect(scale.kind).toBe("Scale");
    expect(scale.spec?.replicas).toBe(1);

    const updated = await deployments.updateScale("web", { ...scale, spec: { replicas: 3 } });
    expect(updated.spec?.replicas).toBe(3);
    expect((await deployments.get("web")).spec?.replicas).toBe(3);

    const stale = await rejectionOf(
      deployments.updateScale("web", { ...scale, spec: { replicas: 4 } }),
    );
    expect(isConflict(stale)).toBe(true);

    const patched = await deployments.patchScale("web", PatchTypes.merge, {
      spec: { replicas: 5 },
    });
    expect(patched.spec?.replicas).toBe(5);
    expect((await deployments.get("web")).spec?.replicas).toBe(5);
  });

  it("evicts a pod through the policy/v1 Eviction subresource", async () => {
    await cs.coreV1.pods(ns).create(pod("evicted"));
    await cs.coreV1.pods(ns).evict("evicted", { gracePeriodSeconds: 0 });
    expect(isNotFound(await rejectionOf(cs.coreV1.pods(ns).get("evicted")))).toBe(true);
    expect(isNotFound(await rejectionOf(cs.coreV1.pods(ns).evict("evicted")))).toBe(true);
  });

  it("reads logs with tailLines and timestamps", async () => {
    await cs.coreV1.pods(ns).create(pod("printer"));
    server.appendPodLog(ns, "printer", "main", "one\ntwo\nthree\n");
    const lines: string[] = [];
    for await (const line of cs.coreV1.pods(ns).log("printer", { tailLines: 2 })) lines.push(line);
    expect(lines).toEqual(["two", "three"]);

    const stamped: string[] = [];
    for await (const line of cs.coreV1.pods(ns).log("printer", {
      container: "main",
      timestamps: true,
      tailLines: 1,
    })) {
      stamped.push(line);
    }
    expect(stamped).toHaveLength(1);
    expect(stamped[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z three$/);

    const badContainer = await rejectionOf(
      (async () => {
        for await (const _ of cs.coreV1.pods(ns).log("printer", { container: "nope" }));
      })(),
    );
    expect((badContainer as StatusError).code).toBe(400);
  });

  it("follows a log: lines appended later arrive, deleting the pod ends the stream", async () => {
    const pods = cs.coreV1.pods(ns);
    await pods.create(pod("follower"));
    server.appendPodLog(ns, "follower", "main", "first\nsecond\n");
    const lines = pods.log("follower", { follow: true })[Symbol.asyncIterator]();
    expect(await lines.next()).toEqual({ done: false, value: "first" });
    expect(await lines.next()).toEqual({ done: false, value: "second" });
    server.appendPodLog(ns, "follower", "main", "third\n");
    expect(await lines.next()).toEqual({ done: false, value: "third" });
    server.appendPodLog(ns, "follower", "main", "fourth\nfifth\n");
    expect(await lines.next()).toEqual({ done: false, value: "fourth" });
    expect(await lines.next()).toEqual({ done: false, value: "fifth" });
    await pods.delete("follower");
    expect(await lines.next()).toEqual({ done: true, value: undefined });
  });

  it("aborting the signal ends a followed log", async () => {
    await cs.coreV1.pods(ns).create(pod("aborted"));
    server.appendPodLog(ns, "aborted", "main", "only\n");
    const controller = new AbortController();
    const lines = cs.coreV1.pods(ns).log("aborted", { follow: true, signal: controller.signal });
    const iterator = lines[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe("only");
    const pending = iterator.next();
    controller.abort(new Error("stop following"));
    await expect(pending).rejects.toThrow("stop following");
  });

  it("creates a token for a service account", async () => {
    await cs.coreV1.serviceAccounts(ns).create({ metadata: { name: "robot" } });
    const token = await cs.coreV1.serviceAccounts(ns).createToken("robot", {
      spec: { audiences: ["https://kubernetes.default.svc"], expirationSeconds: 3600 },
    });
    expect(token.kind).toBe("TokenRequest");
    expect(token.status?.token.split(".")).toHaveLength(3);
    expect(Date.parse(token.status?.expirationTimestamp ?? "")).toBeGreaterThan(Date.now());
  });

  it("rejects with the signal's reason when a call is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(cs.coreV1.configMaps(ns).list({ signal: controller.signal })).rejects.toThrow(
      "cancelled",
    );
  });

  it("reaches every built-in resource that can be listed through its accessor", async () => {
    const groups = cs as unknown as Record<
      string,
      Record<string, (namespace?: string) => { list(): Promise<{ kind?: string }> }>
    >;
    const listed: string[] = [];
    for (const info of builtinResources) {
      if (!info.verbs.includes("list")) continue;
      const group = groups[groupAccessorName(info.group, info.version)];
      const accessor = group?.[resourceAccessorName(info.kind, info.plural)];
      expect(accessor, `${info.group}/${info.version} ${info.plural}`).toBeTypeOf("function");
      const list = await accessor!.call(group)!.list();
      expect(list.kind).toBe(info.listKind);
      listed.push(info.plural);
    }
    expect(listed.length).toBeGreaterThan(50);
  });
});
