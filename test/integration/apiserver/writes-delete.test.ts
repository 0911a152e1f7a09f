import { beforeAll, describe, expect, it } from "vitest";
import { type RawResponse, type RawWatchEvent } from "../../support/api-client.js";
import { eventually, expectStatus, useServer } from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

/**
 * Delete, finalizers, propagation policies (the garbage collector), namespace deletion,
 * deletecollection, and unknown resources / unsupported verbs on the embedded server over real
 * HTTP, checked against kube-apiserver (`staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go`,
 * `staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`, the garbage collector of
 * `pkg/controller/garbagecollector/`).
 */

/**
 * A 404 for a path the server does not serve. kube-apiserver answers either the plain-text
 * `404 page not found` (paths outside every served group-version) or a Status with reason
 * NotFound (go-restful's answer inside a served group-version); clients treat both as
 * NotFound.
 */
function expectUnservedPath(res: RawResponse): void {
  expect(res.status).toBe(404);
  if (res.json === undefined) {
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toBe("404 page not found\n");
  } else {
    expect(res.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "NotFound",
      code: 404,
    });
  }
}

function configMap(name: string, metadata: Json = {}): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...metadata }, data: { a: "1" } };
}

function pod(name: string, metadata: Json = {}): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "web" }, ...metadata },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  };
}

function replicaSet(name: string): Json {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  };
}

describe("delete", () => {
  const h = useServer();
  const cms = "/api/v1/namespaces/del/configmaps";

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "del" } })).status).toBe(
      201,
    );
  });

  it("a ConfigMap: 200 with a Success Status whose details.kind is the resource", async () => {
    const created = await h.client.post(cms, configMap("gone"));
    const res = await h.client.delete(`${cms}/gone`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "gone", kind: "configmaps", uid: created.json.metadata.uid },
    });
    expect((await h.client.get(`${cms}/gone`)).status).toBe(404);
  });

  it("a Deployment: the Success Status carries the group", async () => {
    const created = await h.client.post("/apis/apps/v1/namespaces/del/deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    });
    const res = await h.client.delete("/apis/apps/v1/namespaces/del/deployments/web");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Status",
      status: "Success",
      details: { name: "web", group: "apps", kind: "deployments", uid: created.json.metadata.uid },
    });
  });

  it("a Pod: 200 with the deleted Pod itself", async () => {
    const created = await h.client.post("/api/v1/namespaces/del/pods", pod("p1"));
    const res = await h.client.delete("/api/v1/namespaces/del/pods/p1");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "p1", uid: created.json.metadata.uid },
    });
    expect((await h.client.get("/api/v1/namespaces/del/pods/p1")).status).toBe(404);
  });

  it("a missing object: 404", async () => {
    const status = expectStatus(await h.client.delete(`${cms}/never`), 404, "NotFound");
    expect(status["message"]).toBe('configmaps "never" not found');
  });

  it("dryRun=All answers as a delete would and removes nothing", async () => {
    await h.client.post(cms, configMap("dry"));
    const res = await h.client.delete(`${cms}/dry?dryRun=All`);
    expect(res.status, res.text).toBe(200);
    expect((await h.client.get(`${cms}/dry`)).status).toBe(200);
  });

  it("a uid precondition mismatch: 409 Conflict, the object stays", async () => {
    const created = await h.client.post(cms, configMap("pre-uid"));
    const uid = created.json.metadata.uid as string;
    const bogus = "00000000-0000-0000-0000-000000000000";
    const res = await h.client.delete(`${cms}/pre-uid`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: bogus },
    });
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre-uid": the UID in the precondition (${bogus}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
    expect((await h.client.get(`${cms}/pre-uid`)).status).toBe(200);
    const ok = await h.client.delete(`${cms}/pre-uid`, { preconditions: { uid } });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.client.get(`${cms}/pre-uid`)).status).toBe(404);
  });

  it("a resourceVersion precondition mismatch: 409 Conflict, the object stays", async () => {
    const created = await h.client.post(cms, configMap("pre-rv"));
    const oldRv = created.json.metadata.resourceVersion as string;
    const updated = await h.client.patch(
      `${cms}/pre-rv`,
      { data: { a: "2" } },
      "application/merge-patch+json",
    );
    const newRv = updated.json.metadata.resourceVersion as string;
    const res = await h.client.delete(`${cms}/pre-rv`, {
      preconditions: { resourceVersion: oldRv },
    });
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre-rv": the ResourceVersion in the precondition (${oldRv}) does not match the ResourceVersion in record (${newRv}). The object might have been modified`,
    );
    expect((await h.client.get(`${cms}/pre-rv`)).status).toBe(200);
  });

  it("propagationPolicy=Bogus: 422 on DeleteOptions", async () => {
    await h.client.post(cms, configMap("bogus-policy"));
    const res = await h.client.delete(`${cms}/bogus-policy?propagationPolicy=Bogus`);
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect((await h.client.get(`${cms}/bogus-policy`)).status).toBe(200);
  });

  it("finalizers: delete marks the object (MODIFIED), removing them deletes it (one DELETED, no MODIFIED)", async () => {
    const created = await h.client.post(
      cms,
      configMap("final", { finalizers: ["example.com/hold"] }),
    );
    expect(created.status, created.text).toBe(201);
    const rv = created.json.metadata.resourceVersion as string;
    const watch = await h.client.watch(
      `${cms}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dfinal`,
    );
    try {
      const del = await h.client.delete(`${cms}/final`);
      expect(del.status, del.text).toBe(200);
      expect(del.json.kind).toBe("ConfigMap");
      expect(del.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(del.json.metadata.deletionGracePeriodSeconds).toBe(0);
      expect(del.json.metadata.finalizers).toEqual(["example.com/hold"]);
      const marked = await watch.next();
      expect(marked?.type).toBe("MODIFIED");
      expect(marked?.object.metadata.deletionTimestamp).toBe(del.json.metadata.deletionTimestamp);

      const got = await h.client.get(`${cms}/final`);
      expect(got.status).toBe(200);
      expect(got.json.metadata.deletionTimestamp).toBe(del.json.metadata.deletionTimestamp);

      // Deleting again while finalizers remain answers the object, unchanged.
      const again = await h.client.delete(`${cms}/final`);
      expect(again.status).toBe(200);
      expect(again.json.metadata.resourceVersion).toBe(got.json.metadata.resourceVersion);

      const cleared = await h.client.patch(
        `${cms}/final`,
        { metadata: { finalizers: null } },
        "application/merge-patch+json",
      );
      expect(cleared.status, cleared.text).toBe(200);
      const deleted = await watch.next();
      expect(deleted?.type).toBe("DELETED");
      expect(deleted?.object.metadata.name).toBe("final");
      expect(Number(deleted?.object.metadata.resourceVersion)).toBeGreaterThan(
        Number(got.json.metadata.resourceVersion),
      );
      expect((await h.client.get(`${cms}/final`)).status).toBe(404);
    } finally {
      watch.close();
    }
  });

  it("a finalizer-blocked delete bumps generation when the object tracks it", async () => {
    const created = await h.client.post("/apis/apps/v1/namespaces/del/deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "held-deploy", finalizers: ["example.com/hold"] },
      spec: {
        selector: { matchLabels: { app: "held" } },
        template: {
          metadata: { labels: { app: "held" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    });
    expect(created.json.metadata.generation).toBe(1);
    const del = await h.client.delete("/apis/apps/v1/namespaces/del/deployments/held-deploy");
    expect(del.status, del.text).toBe(200);
    expect(del.json.kind).toBe("Deployment");
    expect(del.json.metadata.generation).toBe(2);
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    const cleared = await h.client.patch(
      "/apis/apps/v1/namespaces/del/deployments/held-deploy",
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    expect(cleared.status, cleared.text).toBe(200);
    expect(
      (await h.client.get("/apis/apps/v1/namespaces/del/deployments/held-deploy")).status,
    ).toBe(404);
  });

  it("a new finalizer on an object being deleted: 422 Forbidden field error", async () => {
    await h.client.post(cms, configMap("no-new", { finalizers: ["example.com/hold"] }));
    const del = await h.client.delete(`${cms}/no-new`);
    expect(del.status).toBe(200);
    const res = await h.client.put(`${cms}/no-new`, {
      ...del.json,
      metadata: { ...del.json.metadata, finalizers: ["example.com/hold", "example.com/other"] },
    });
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'ConfigMap "no-new" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/other"}',
    );
    expect((await h.client.get(`${cms}/no-new`)).json.metadata.finalizers).toEqual([
      "example.com/hold",
    ]);
    await h.client.patch(
      `${cms}/no-new`,
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    await eventually("no-new to disappear", async () =>
      (await h.client.get(`${cms}/no-new`)).status === 404 ? true : undefined,
    );
  });
});

describe("propagation policies: a ReplicaSet owning Pods", () => {
  const h = useServer();

  /** A namespace with a ReplicaSet `rs` and two Pods it owns; returns the RS and the latest resourceVersion. */
  async function ownedPods(ns: string): Promise<{ rs: Json & { metadata: Json }; rv: string }> {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(
      201,
    );
    const rs = await h.client.post(`/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet("rs"));
    expect(rs.status, rs.text).toBe(201);
    const owner = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "rs",
      uid: rs.json.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    let rv = "";
    for (const name of ["rs-a", "rs-b"]) {
      const p = await h.client.post(
        `/api/v1/namespaces/${ns}/pods`,
        pod(name, { ownerReferences: [owner] }),
      );
      expect(p.status, p.text).toBe(201);
      rv = p.json.metadata.resourceVersion as string;
    }
    return { rs: rs.json, rv };
  }

  async function podNames(ns: string): Promise<string[]> {
    const list = await h.client.get(`/api/v1/namespaces/${ns}/pods`);
    return (list.json.items as { metadata: { name: string } }[]).map((p) => p.metadata.name).sort();
  }

  it("Background: the owner goes at once, the garbage collector deletes the dependents soon after", async () => {
    await ownedPods("gc-background");
    const res = await h.client.delete(
      "/apis/apps/v1/namespaces/gc-background/replicasets/rs?propagationPolicy=Background",
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Status",
      status: "Success",
      details: { name: "rs", group: "apps", kind: "replicasets" },
    });
    expect(
      (await h.client.get("/apis/apps/v1/namespaces/gc-background/replicasets/rs")).status,
    ).toBe(404);
    await eventually("the owned pods to be collected", async () =>
      (await podNames("gc-background")).length === 0 ? true : undefined,
    );
  });

  it("Orphan: the owner gets the orphan finalizer, dependents lose the ownerReference and stay", async () => {
    const { rs } = await ownedPods("gc-orphan");
    const res = await h.client.delete(
      "/apis/apps/v1/namespaces/gc-orphan/replicasets/rs?propagationPolicy=Orphan",
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.kind).toBe("ReplicaSet");
    expect(res.json.metadata.finalizers).toContain("orphan");
    expect(res.json.metadata.deletionTimestamp).toBeTruthy();
    await eventually("the orphaned owner to be removed", async () =>
      (await h.client.get("/apis/apps/v1/namespaces/gc-orphan/replicasets/rs")).status === 404
        ? true
        : undefined,
    );
    expect(await podNames("gc-orphan")).toEqual(["rs-a", "rs-b"]);
    for (const name of ["rs-a", "rs-b"]) {
      const p = await h.client.get(`/api/v1/namespaces/gc-orphan/pods/${name}`);
      const refs = (p.json.metadata.ownerReferences ?? []) as Json[];
      expect(refs.some((r) => r["uid"] === rs.metadata["uid"])).toBe(false);
    }
  });

  it("Foreground: dependents are deleted first, then the owner", async () => {
    const { rv } = await ownedPods("gc-foreground");
    const podWatch = await h.client.watch(
      `/api/v1/namespaces/gc-foreground/pods?watch=true&resourceVersion=${rv}`,
    );
    const rsWatch = await h.client.watch(
      `/apis/apps/v1/namespaces/gc-foreground/replicasets?watch=true&resourceVersion=${rv}`,
    );
    try {
      const res = await h.client.delete("/apis/apps/v1/namespaces/gc-foreground/replicasets/rs", {
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: "Foreground",
      });
      expect(res.status, res.text).toBe(200);
      expect(res.json.kind).toBe("ReplicaSet");
      expect(res.json.metadata.finalizers).toContain("foregroundDeletion");
      expect(res.json.metadata.deletionTimestamp).toBeTruthy();

      const rsEvents: RawWatchEvent[] = [];
      for (;;) {
        const ev = await rsWatch.next(5_000);
        if (!ev) throw new Error("replicaset watch ended early");
        rsEvents.push(ev);
        if (ev.type === "DELETED") break;
      }
      expect(rsEvents[0]?.type).toBe("MODIFIED");
      expect(rsEvents[0]?.object.metadata.finalizers).toContain("foregroundDeletion");
      const ownerDeletedAt = Number(rsEvents[rsEvents.length - 1]?.object.metadata.resourceVersion);

      // Dependents may pass through MODIFIED (deletionTimestamp) before their DELETED.
      const podDeletes: RawWatchEvent[] = [];
      while (podDeletes.length < 2) {
        const ev = await podWatch.next(5_000);
        if (!ev) throw new Error("pod watch ended early");
        if (ev.type === "DELETED") podDeletes.push(ev);
      }
      expect(podDeletes.map((e) => e.object.metadata.name).sort()).toEqual(["rs-a", "rs-b"]);
      for (const e of podDeletes) {
        expect(Number(e.object.metadata.resourceVersion)).toBeLessThan(ownerDeletedAt);
      }
      expect(await podNames("gc-foreground")).toEqual([]);
    } finally {
      podWatch.close();
      rsWatch.close();
    }
  });
});

describe("namespaces and deletecollection", () => {
  const h = useServer();

  it("the default, kube-system and kube-public namespaces cannot be deleted (403)", async () => {
    for (const name of ["default", "kube-system", "kube-public"]) {
      const status = expectStatus(
        await h.client.delete(`/api/v1/namespaces/${name}`),
        403,
        "Forbidden",
      );
      expect(status["message"]).toBe(
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      );
      expect(status["details"]).toMatchObject({ name, kind: "namespaces" });
      const got = await h.client.get(`/api/v1/namespaces/${name}`);
      expect(got.json.metadata.deletionTimestamp).toBeUndefined();
      expect(got.json.status.phase).toBe("Active");
    }
  });

  it("deleting a namespace: 200 Terminating, its objects are deleted, then it is gone", async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "doomed" } })).status,
    ).toBe(201);
    expect(
      (await h.client.post("/api/v1/namespaces/doomed/configmaps", configMap("inside"))).status,
    ).toBe(201);
    expect((await h.client.post("/api/v1/namespaces/doomed/pods", pod("inside-pod"))).status).toBe(
      201,
    );

    const res = await h.client.delete("/api/v1/namespaces/doomed");
    expect(res.status, res.text).toBe(200);
    expect(res.json.kind).toBe("Namespace");
    expect(res.json.metadata.name).toBe("doomed");
    expect(res.json.metadata.deletionTimestamp).toBeTruthy();
    expect(res.json.status.phase).toBe("Terminating");

    await eventually("the namespace's objects to be deleted", async () => {
      const cm = await h.client.get("/api/v1/namespaces/doomed/configmaps/inside");
      const p = await h.client.get("/api/v1/namespaces/doomed/pods/inside-pod");
      return cm.status === 404 && p.status === 404 ? true : undefined;
    });
    await eventually("the namespace to disappear", async () =>
      (await h.client.get("/api/v1/namespaces/doomed")).status === 404 ? true : undefined,
    );
  });

  it("a namespace whose content has a finalizer stays Terminating until the finalizer goes", async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "blocked" } })).status,
    ).toBe(201);
    await h.client.post(
      "/api/v1/namespaces/blocked/configmaps",
      configMap("held", { finalizers: ["example.com/hold"] }),
    );
    expect((await h.client.delete("/api/v1/namespaces/blocked")).status).toBe(200);
    const held = await eventually("the held object to be marked for deletion", async () => {
      const got = await h.client.get("/api/v1/namespaces/blocked/configmaps/held");
      return got.json?.metadata?.deletionTimestamp ? got : undefined;
    });
    expect(held.status).toBe(200);
    const ns = await h.client.get("/api/v1/namespaces/blocked");
    expect(ns.status).toBe(200);
    expect(ns.json.status.phase).toBe("Terminating");
    await h.client.patch(
      "/api/v1/namespaces/blocked/configmaps/held",
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    await eventually("the namespace to disappear", async () =>
      (await h.client.get("/api/v1/namespaces/blocked")).status === 404 ? true : undefined,
    );
  });

  it("deletecollection with a label selector deletes only the matching items and answers a List of them", async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "coll" } })).status).toBe(
      201,
    );
    const cms = "/api/v1/namespaces/coll/configmaps";
    await h.client.post(cms, configMap("match-1", { labels: { app: "x" } }));
    await h.client.post(cms, configMap("match-2", { labels: { app: "x" } }));
    await h.client.post(cms, configMap("other", { labels: { app: "y" } }));
    const res = await h.client.delete(`${cms}?labelSelector=app%3Dx`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.kind).toBe("ConfigMapList");
    expect(res.json.apiVersion).toBe("v1");
    expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
    const names = (res.json.items as { metadata: { name: string } }[])
      .map((i) => i.metadata.name)
      .sort();
    expect(names).toEqual(["match-1", "match-2"]);
    const left = await h.client.get(cms);
    expect(
      (left.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name),
    ).toEqual(["other"]);
  });

  it("deletecollection on namespaces: 405 MethodNotAllowed, nothing deleted", async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "survivor" } })).status,
    ).toBe(201);
    expectStatus(await h.client.delete("/api/v1/namespaces"), 405, "MethodNotAllowed");
    expect((await h.client.get("/api/v1/namespaces/survivor")).status).toBe(200);
  });
});

describe("unknown resources and unsupported verbs", () => {
  const h = useServer();

  beforeAll(async () => {
    expect(
      (await h.client.post("/api/v1/namespaces/default/configmaps", configMap("present"))).status,
    ).toBe(201);
  });

  it("a resource in an unserved group: plain-text 404 page not found", async () => {
    for (const path of [
      "/apis/nope.example.com/v1/foos",
      "/apis/nope.example.com/v1/namespaces/default/foos/x",
    ]) {
      const res = await h.client.get(path);
      expect(res.status).toBe(404);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.text).toBe("404 page not found\n");
    }
    const post = await h.client.post("/apis/nope.example.com/v1/namespaces/default/foos", {
      metadata: { name: "x" },
    });
    expect(post.status).toBe(404);
    expect(post.text).toBe("404 page not found\n");
  });

  it("an unknown resource in a served group-version: 404", async () => {
    expectUnservedPath(await h.client.get("/api/v1/namespaces/default/bogus"));
    expectUnservedPath(
      await h.client.post("/apis/apps/v1/namespaces/default/bogus", { metadata: { name: "x" } }),
    );
  });

  it("an unknown subresource: 404", async () => {
    expectUnservedPath(await h.client.get("/api/v1/namespaces/default/configmaps/present/bogus"));
    expectUnservedPath(
      await h.client.put(
        "/api/v1/namespaces/default/configmaps/present/status",
        configMap("present"),
      ),
    );
  });

  it("create on componentstatuses (get and list only): 405 MethodNotAllowed", async () => {
    expectStatus(
      await h.client.post("/api/v1/componentstatuses", {
        apiVersion: "v1",
        kind: "ComponentStatus",
        metadata: { name: "x" },
      }),
      405,
      "MethodNotAllowed",
    );
    expect((await h.client.get("/api/v1/componentstatuses")).status).toBe(200);
  });

  it("the server keeps serving after the rejected requests", async () => {
    const res = await h.client.get("/api/v1/namespaces/default/configmaps/present");
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ a: "1" });
  });
});
