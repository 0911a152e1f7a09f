import { beforeAll, describe, expect, it } from "vitest";
import {
  createCrd,
  crdBody,
  expectStatus,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

/**
 * Update (PUT), patch (JSON Patch, merge, strategic merge), server-side apply and the
 * `/status` and `/scale` subresources on the embedded server over real HTTP, checked
 * against kube-apiserver (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{update,patch}.go`,
 * `staging/src/k8s.io/apiserver/pkg/registry/rest/update.go`), custom resources included, with
 * the bodies kubectl sends for `kubectl apply`, `edit`, `patch` and `scale`.
 */

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";
const MODIFIED_MESSAGE =
  "the object has been modified; please apply your changes to the latest version and try again";

function configMap(name: string, data: Record<string, string> = { a: "1" }): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

function deployment(name: string, replicas = 2): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: "web" } },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
      },
    },
  };
}

function lease(name: string): Json {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name },
    spec: { holderIdentity: "a", leaseDurationSeconds: 15 },
  };
}

function managers(obj: { metadata: { managedFields?: Json[] } }): Json[] {
  return obj.metadata.managedFields ?? [];
}

describe("update (PUT)", () => {
  const h = useServer();
  const cms = "/api/v1/namespaces/upd/configmaps";
  const deploys = "/apis/apps/v1/namespaces/upd/deployments";
  const leases = "/apis/coordination.k8s.io/v1/namespaces/upd/leases";

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "upd" } })).status).toBe(
      201,
    );
  });

  it("a stale resourceVersion: 409 Conflict with kube's message and details", async () => {
    const created = await h.client.post(cms, configMap("stale"));
    const first = await h.client.put(`${cms}/stale`, { ...created.json, data: { a: "2" } });
    expect(first.status, first.text).toBe(200);
    expect(first.json.metadata.resourceVersion).not.toBe(created.json.metadata.resourceVersion);
    const res = await h.client.put(`${cms}/stale`, { ...created.json, data: { a: "3" } });
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on configmaps "stale": ${MODIFIED_MESSAGE}`,
    );
    expect(status["details"]).toEqual({ name: "stale", kind: "configmaps" });
    expect((await h.client.get(`${cms}/stale`)).json.data).toEqual({ a: "2" });
  });

  it("a Deployment conflict names deployments.apps and carries the group", async () => {
    const created = await h.client.post(deploys, deployment("conflict"));
    expect(
      (
        await h.client.put(`${deploys}/conflict`, {
          ...created.json,
          spec: { ...created.json.spec, replicas: 3 },
        })
      ).status,
    ).toBe(200);
    const res = await h.client.put(`${deploys}/conflict`, created.json);
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on deployments.apps "conflict": ${MODIFIED_MESSAGE}`,
    );
    expect(status["details"]).toEqual({ name: "conflict", group: "apps", kind: "deployments" });
  });

  it("no resourceVersion on a ConfigMap: an unconditional update", async () => {
    const created = await h.client.post(cms, configMap("uncond"));
    const res = await h.client.put(`${cms}/uncond`, configMap("uncond", { a: "changed" }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ a: "changed" });
    expect(res.json.metadata.uid).toBe(created.json.metadata.uid);
    expect(res.json.metadata.resourceVersion).not.toBe(created.json.metadata.resourceVersion);
  });

  it("no resourceVersion on a Lease: 422 must be specified for an update", async () => {
    expect((await h.client.post(leases, lease("needs-rv"))).status).toBe(201);
    const res = await h.client.put(`${leases}/needs-rv`, {
      ...lease("needs-rv"),
      spec: { holderIdentity: "b" },
    });
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'leases.coordination.k8s.io "needs-rv" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
    expect(status["details"]).toEqual({
      name: "needs-rv",
      group: "coordination.k8s.io",
      kind: "leases",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 0: must be specified for an update",
          field: "metadata.resourceVersion",
        },
      ],
    });
  });

  it("create-on-update: a PUT to a missing Lease creates it (201)", async () => {
    const res = await h.client.put(`${leases}/fresh`, lease("fresh"));
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.uid).toBeTruthy();
    expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(res.json.spec.holderIdentity).toBe("a");
    expect((await h.client.get(`${leases}/fresh`)).status).toBe(200);
  });

  it("a PUT to a missing ConfigMap: 404 (no create-on-update)", async () => {
    const res = await h.client.put(`${cms}/ghost`, configMap("ghost"));
    const status = expectStatus(res, 404, "NotFound");
    expect(status["message"]).toBe('configmaps "ghost" not found');
    expect(status["details"]).toEqual({ name: "ghost", kind: "configmaps" });
    expect((await h.client.get(`${cms}/ghost`)).status).toBe(404);
  });

  it("a body uid that differs from the stored one: 409 precondition failure", async () => {
    const created = await h.client.post(cms, configMap("uid-check"));
    const uid = created.json.metadata.uid as string;
    const bogus = "00000000-0000-0000-0000-000000000000";
    const body = { ...created.json, metadata: { ...created.json.metadata, uid: bogus } };
    const status = expectStatus(await h.client.put(`${cms}/uid-check`, body), 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on configmaps "uid-check": Precondition failed: UID in precondition: ${bogus}, UID in object meta: ${uid}`,
    );
  });

  it("a body name that differs from the URL: 400 BadRequest", async () => {
    await h.client.post(cms, configMap("url-name"));
    const res = await h.client.put(`${cms}/url-name`, configMap("body-name"));
    const status = expectStatus(res, 400, "BadRequest");
    expect(status["message"]).toBe(
      "the name of the object (body-name) does not match the name on the URL (url-name)",
    );
  });

  it("generation goes up on a spec change only, not on a label change", async () => {
    const created = await h.client.post(deploys, deployment("gen"));
    expect(created.json.metadata.generation).toBe(1);
    const relabeled = await h.client.put(`${deploys}/gen`, {
      ...created.json,
      metadata: { ...created.json.metadata, labels: { app: "web", extra: "yes" } },
    });
    expect(relabeled.status, relabeled.text).toBe(200);
    expect(relabeled.json.metadata.generation).toBe(1);
    const rescaled = await h.client.put(`${deploys}/gen`, {
      ...relabeled.json,
      spec: { ...relabeled.json.spec, replicas: 5 },
    });
    expect(rescaled.status, rescaled.text).toBe(200);
    expect(rescaled.json.metadata.generation).toBe(2);
  });

  it("creationTimestamp and uid are restored from the stored object", async () => {
    const created = await h.client.post(cms, configMap("immutable"));
    const meta = { ...created.json.metadata, creationTimestamp: "2001-01-01T00:00:00Z" };
    delete meta.uid;
    const res = await h.client.put(`${cms}/immutable`, {
      ...created.json,
      metadata: meta,
      data: { a: "2" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata.creationTimestamp).toBe(created.json.metadata.creationTimestamp);
    expect(res.json.metadata.uid).toBe(created.json.metadata.uid);
  });

  it("a no-op update keeps the resourceVersion and emits no watch event", async () => {
    const created = await h.client.post(cms, configMap("noop"));
    const rv = created.json.metadata.resourceVersion as string;
    const watch = await h.client.watch(
      `${cms}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dnoop`,
    );
    try {
      const same = await h.client.put(`${cms}/noop`, created.json);
      expect(same.status, same.text).toBe(200);
      expect(same.json.metadata.resourceVersion).toBe(rv);
      expect(same.json.metadata.managedFields).toEqual(created.json.metadata.managedFields);
      const changed = await h.client.put(`${cms}/noop`, { ...created.json, data: { a: "2" } });
      expect(changed.status).toBe(200);
      const event = await watch.next();
      expect(event?.type).toBe("MODIFIED");
      expect(event?.object.data).toEqual({ a: "2" });
      expect(event?.object.metadata.resourceVersion).toBe(changed.json.metadata.resourceVersion);
    } finally {
      watch.close();
    }
  });

  it("status changes sent to the main resource are ignored when the type has a status subresource", async () => {
    const created = await h.client.post(deploys, deployment("main-status"));
    const res = await h.client.put(`${deploys}/main-status`, {
      ...created.json,
      status: { replicas: 7 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status?.replicas).toBeUndefined();
    expect(res.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    expect((await h.client.get(`${deploys}/main-status`)).json.status?.replicas).toBeUndefined();
  });

  it("a PUT to /status changes only status and keeps generation", async () => {
    const created = await h.client.post(deploys, deployment("sub-status"));
    const body = {
      ...created.json,
      metadata: { ...created.json.metadata, labels: { app: "web", sneaky: "label" } },
      spec: { ...created.json.spec, replicas: 9 },
      status: { replicas: 2, readyReplicas: 1 },
    };
    const res = await h.client.put(`${deploys}/sub-status/status?fieldManager=status-writer`, body);
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
    expect(res.json.spec.replicas).toBe(2);
    expect(res.json.metadata.generation).toBe(1);
    const entry = managers(res.json).find((m) => m["manager"] === "status-writer");
    expect(entry).toMatchObject({ operation: "Update", subresource: "status" });
    const got = await h.client.get(`${deploys}/sub-status`);
    expect(got.json.spec.replicas).toBe(2);
    expect(got.json.status.replicas).toBe(2);
  });

  it("a /status PUT with a stale resourceVersion: 409", async () => {
    const created = await h.client.post(deploys, deployment("sub-status-stale"));
    await h.client.put(`${deploys}/sub-status-stale/status`, {
      ...created.json,
      status: { replicas: 1 },
    });
    const res = await h.client.put(`${deploys}/sub-status-stale/status`, {
      ...created.json,
      status: { replicas: 3 },
    });
    expectStatus(res, 409, "Conflict");
  });
});

describe("patch", () => {
  const h = useServer();
  const cms = "/api/v1/namespaces/pat/configmaps";
  const deploys = "/apis/apps/v1/namespaces/pat/deployments";

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "pat" } })).status).toBe(
      201,
    );
  });

  it("merge patch: maps merge recursively, null deletes a key", async () => {
    await h.client.post(cms, configMap("merge", { a: "1", b: "2" }));
    const res = await h.client.patch(
      `${cms}/merge?fieldManager=kubectl-label`,
      { metadata: { labels: { tier: "fe" } }, data: { a: null, c: "3" } },
      MERGE,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata.labels).toEqual({ tier: "fe" });
    expect(res.json.data).toEqual({ b: "2", c: "3" });
    expect(managers(res.json).some((m) => m["manager"] === "kubectl-label")).toBe(true);
  });

  it("JSON patch: test, replace and add apply in order", async () => {
    await h.client.post(cms, configMap("jsonpatch"));
    const res = await h.client.patch(
      `${cms}/jsonpatch`,
      [
        { op: "test", path: "/data/a", value: "1" },
        { op: "replace", path: "/data/a", value: "9" },
        { op: "add", path: "/data/b", value: "2" },
        { op: "add", path: "/metadata/labels", value: { x: "y" } },
      ],
      JSON_PATCH,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ a: "9", b: "2" });
    expect(res.json.metadata.labels).toEqual({ x: "y" });
  });

  it("JSON patch: a failing test op is 422 Invalid and changes nothing", async () => {
    const created = await h.client.post(cms, configMap("jsonpatch-test"));
    const res = await h.client.patch(
      `${cms}/jsonpatch-test`,
      [
        { op: "test", path: "/data/a", value: "not-1" },
        { op: "replace", path: "/data/a", value: "9" },
      ],
      JSON_PATCH,
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      "the server rejected our request due to an error in our request",
    );
    const got = await h.client.get(`${cms}/jsonpatch-test`);
    expect(got.json.data).toEqual({ a: "1" });
    expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });

  it("JSON patch: a malformed document is 400 BadRequest", async () => {
    await h.client.post(cms, configMap("jsonpatch-bad"));
    expectStatus(
      await h.client.patch(`${cms}/jsonpatch-bad`, '[{"op": "add", "path": ', JSON_PATCH),
      400,
      "BadRequest",
    );
    expectStatus(
      await h.client.patch(`${cms}/jsonpatch-bad`, { op: "add" }, JSON_PATCH),
      400,
      "BadRequest",
    );
    expect((await h.client.get(`${cms}/jsonpatch-bad`)).json.data).toEqual({ a: "1" });
  });

  it("JSON patch: more than 10 000 operations is 413 RequestEntityTooLarge", async () => {
    await h.client.post(cms, configMap("jsonpatch-many"));
    const ops = Array.from({ length: 10_001 }, () => ({ op: "test", path: "/data/a", value: "1" }));
    const status = expectStatus(
      await h.client.patch(`${cms}/jsonpatch-many`, ops, JSON_PATCH),
      413,
      "RequestEntityTooLarge",
    );
    expect(status["message"]).toBe(
      "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
    const exactly = Array.from({ length: 10_000 }, () => ({
      op: "test",
      path: "/data/a",
      value: "1",
    }));
    expect((await h.client.patch(`${cms}/jsonpatch-many`, exactly, JSON_PATCH)).status).toBe(200);
  });

  it("strategic merge patch: containers merge by name, $setElementOrder orders them, $patch: delete removes an env var", async () => {
    const body = deployment("smp");
    const template = (body["spec"] as Json)["template"] as Json;
    template["spec"] = {
      containers: [
        {
          name: "a",
          image: "a:1",
          env: [
            { name: "KEEP", value: "1" },
            { name: "DROP", value: "2" },
          ],
        },
        { name: "b", image: "b:1" },
      ],
    };
    expect((await h.client.post(deploys, body)).status).toBe(201);

    const merged = await h.client.patch(
      `${deploys}/smp`,
      { spec: { template: { spec: { containers: [{ name: "b", image: "b:2" }] } } } },
      STRATEGIC,
    );
    expect(merged.status, merged.text).toBe(200);
    const afterMerge = merged.json.spec.template.spec.containers as Json[];
    expect(afterMerge.map((c) => [c["name"], c["image"]])).toEqual([
      ["a", "a:1"],
      ["b", "b:2"],
    ]);
    expect(merged.json.metadata.generation).toBe(2);

    const ordered = await h.client.patch(
      `${deploys}/smp`,
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "b" }, { name: "a" }],
              containers: [{ name: "a", image: "a:2" }],
            },
          },
        },
      },
      STRATEGIC,
    );
    expect(ordered.status, ordered.text).toBe(200);
    const afterOrder = ordered.json.spec.template.spec.containers as Json[];
    expect(afterOrder.map((c) => [c["name"], c["image"]])).toEqual([
      ["b", "b:2"],
      ["a", "a:2"],
    ]);

    const deleted = await h.client.patch(
      `${deploys}/smp`,
      {
        spec: {
          template: {
            spec: { containers: [{ name: "a", env: [{ name: "DROP", $patch: "delete" }] }] },
          },
        },
      },
      STRATEGIC,
    );
    expect(deleted.status, deleted.text).toBe(200);
    const a = (deleted.json.spec.template.spec.containers as Json[]).find((c) => c["name"] === "a");
    expect(a?.["env"]).toEqual([{ name: "KEEP", value: "1" }]);
    expect(a?.["image"]).toBe("a:2");
  });

  it("an unknown patch Content-Type: 415 listing the four accepted patch types", async () => {
    await h.client.post(cms, configMap("patch-ctype"));
    const res = await h.client.patch(
      `${cms}/patch-ctype`,
      { data: { a: "2" } },
      "application/json",
    );
    const status = expectStatus(res, 415, "UnsupportedMediaType");
    expect(status["message"]).toBe(
      "the body of the request was in an unknown format - accepted media types include: " +
        "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    );
  });

  it("a charset parameter on the patch Content-Type is ignored", async () => {
    await h.client.post(cms, configMap("patch-charset"));
    const res = await h.client.patch(
      `${cms}/patch-charset`,
      { data: { a: "2" } },
      `${MERGE}; charset=utf-8`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ a: "2" });
  });

  it("a patch on a missing object: 404", async () => {
    const status = expectStatus(
      await h.client.patch(`${cms}/nobody`, { data: { a: "1" } }, MERGE),
      404,
      "NotFound",
    );
    expect(status["message"]).toBe('configmaps "nobody" not found');
    expect((await h.client.get(`${cms}/nobody`)).status).toBe(404);
  });

  it("a no-op patch leaves resourceVersion and managedFields untouched", async () => {
    const created = await h.client.post(`${cms}?fieldManager=creator`, configMap("patch-noop"));
    const res = await h.client.patch(
      `${cms}/patch-noop?fieldManager=kubectl-patch`,
      { data: { a: "1" } },
      MERGE,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    expect(res.json.metadata.managedFields).toEqual(created.json.metadata.managedFields);
    const smp = await h.client.patch(
      `${cms}/patch-noop?fieldManager=kubectl-patch`,
      { data: { a: "1" } },
      STRATEGIC,
    );
    expect(smp.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });

  it("a patch carrying a stale metadata.resourceVersion: 409; the current one: 200", async () => {
    const created = await h.client.post(cms, configMap("patch-rv"));
    const oldRv = created.json.metadata.resourceVersion as string;
    const updated = await h.client.patch(`${cms}/patch-rv`, { data: { a: "2" } }, MERGE);
    expect(updated.status).toBe(200);
    const stale = await h.client.patch(
      `${cms}/patch-rv`,
      { metadata: { resourceVersion: oldRv }, data: { a: "3" } },
      MERGE,
    );
    const status = expectStatus(stale, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on configmaps "patch-rv": ${MODIFIED_MESSAGE}`,
    );
    const current = await h.client.patch(
      `${cms}/patch-rv`,
      { metadata: { resourceVersion: updated.json.metadata.resourceVersion }, data: { a: "4" } },
      MERGE,
    );
    expect(current.status, current.text).toBe(200);
    expect(current.json.data).toEqual({ a: "4" });
  });

  it("PATCH to /status changes only status", async () => {
    const created = await h.client.post(deploys, deployment("patch-status"));
    const res = await h.client.patch(
      `${deploys}/patch-status/status`,
      { spec: { replicas: 7 }, status: { replicas: 4 } },
      MERGE,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.status.replicas).toBe(4);
    expect(res.json.spec.replicas).toBe(2);
    expect(res.json.metadata.generation).toBe(created.json.metadata.generation);
  });
});

describe("server-side apply", () => {
  const h = useServer();
  const cms = "/api/v1/namespaces/ssa/configmaps";
  const deploys = "/apis/apps/v1/namespaces/ssa/deployments";

  function applied(name: string, value: string): string {
    return [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      `  name: ${name}`,
      "data:",
      `  key: ${value}`,
      "",
    ].join("\n");
  }

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "ssa" } })).status).toBe(
      201,
    );
  });

  it("without fieldManager: 422 on PatchOptions", async () => {
    const res = await h.client.patch(`${cms}/no-manager`, applied("no-manager", "v"), APPLY);
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect((await h.client.get(`${cms}/no-manager`)).status).toBe(404);
  });

  it("force on a non-apply patch: 422", async () => {
    await h.client.post(cms, configMap("force-merge"));
    const res = await h.client.patch(`${cms}/force-merge?force=true`, { data: { a: "2" } }, MERGE);
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect((await h.client.get(`${cms}/force-merge`)).json.data).toEqual({ a: "1" });
  });

  it("apply creates the object (201), then updates it (200), recording an Apply entry", async () => {
    const created = await h.client.patch(
      `${cms}/applied?fieldManager=mgr-a`,
      applied("applied", "one"),
      APPLY,
    );
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toEqual({ key: "one" });
    expect(created.json.metadata.uid).toBeTruthy();
    expect(managers(created.json)).toEqual([
      expect.objectContaining({
        manager: "mgr-a",
        operation: "Apply",
        apiVersion: "v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:key": {} } },
      }),
    ]);
    const updated = await h.client.patch(
      `${cms}/applied?fieldManager=mgr-a`,
      applied("applied", "two"),
      APPLY,
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.data).toEqual({ key: "two" });
    expect(updated.json.metadata.uid).toBe(created.json.metadata.uid);
  });

  it("a field dropped from the manager's applied configuration is removed", async () => {
    const both = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: shrink",
      "data:",
      "  key: v",
      "  extra: x",
      "",
    ].join("\n");
    const first = await h.client.patch(`${cms}/shrink?fieldManager=mgr-a`, both, APPLY);
    expect(first.status, first.text).toBe(201);
    expect(first.json.data).toEqual({ key: "v", extra: "x" });
    const res = await h.client.patch(
      `${cms}/shrink?fieldManager=mgr-a`,
      applied("shrink", "v"),
      APPLY,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ key: "v" });
  });

  it("applying the same configuration again changes nothing (same resourceVersion)", async () => {
    const first = await h.client.patch(
      `${cms}/idempotent?fieldManager=mgr-a`,
      applied("idempotent", "v"),
      APPLY,
    );
    expect(first.status, first.text).toBe(201);
    const again = await h.client.patch(
      `${cms}/idempotent?fieldManager=mgr-a`,
      applied("idempotent", "v"),
      APPLY,
    );
    expect(again.status, again.text).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    expect(again.json.metadata.managedFields).toEqual(first.json.metadata.managedFields);
  });

  it("a second manager changing an owned field: 409 Conflict with a FieldManagerConflict cause", async () => {
    const first = await h.client.patch(
      `${cms}/contested?fieldManager=mgr-a`,
      applied("contested", "mine"),
      APPLY,
    );
    expect(first.status).toBe(201);
    const res = await h.client.patch(
      `${cms}/contested?fieldManager=mgr-b`,
      applied("contested", "theirs"),
      APPLY,
    );
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      'Apply failed with 1 conflict: conflict with "mgr-a": .data.key',
    );
    expect(status["details"]).toEqual({
      causes: [
        { reason: "FieldManagerConflict", message: 'conflict with "mgr-a"', field: ".data.key" },
      ],
    });
    const got = await h.client.get(`${cms}/contested`);
    expect(got.json.data).toEqual({ key: "mine" });
    expect(got.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
  });

  it("a conflict with an Update manager names its apiVersion (kube's documented message)", async () => {
    const created = await h.client.post(`${deploys}?fieldManager=kubectl`, deployment("web"));
    expect(created.status).toBe(201);
    const body = JSON.stringify({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { replicas: 5 },
    });
    const res = await h.client.patch(`${deploys}/web?fieldManager=other`, body, APPLY);
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas',
    );
    expect(status["details"]).toEqual({
      causes: [
        {
          reason: "FieldManagerConflict",
          message: 'conflict with "kubectl" using apps/v1',
          field: ".spec.replicas",
        },
      ],
    });
  });

  it("force=true takes ownership of the conflicting field", async () => {
    expect(
      (await h.client.patch(`${cms}/forced?fieldManager=mgr-a`, applied("forced", "mine"), APPLY))
        .status,
    ).toBe(201);
    const res = await h.client.patch(
      `${cms}/forced?fieldManager=mgr-b&force=true`,
      applied("forced", "theirs"),
      APPLY,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ key: "theirs" });
    const entries = managers(res.json);
    const b = entries.find((m) => m["manager"] === "mgr-b");
    expect(b).toMatchObject({ operation: "Apply", fieldsV1: { "f:data": { "f:key": {} } } });
    const a = entries.find((m) => m["manager"] === "mgr-a");
    const aData = (a?.["fieldsV1"] as Json | undefined)?.["f:data"] as Json | undefined;
    expect(aData?.["f:key"]).toBeUndefined();
    // mgr-b now owns the field: mgr-a applying its old value conflicts.
    const back = await h.client.patch(
      `${cms}/forced?fieldManager=mgr-a`,
      applied("forced", "mine"),
      APPLY,
    );
    expect(expectStatus(back, 409, "Conflict")["message"]).toBe(
      'Apply failed with 1 conflict: conflict with "mgr-b": .data.key',
    );
  });

  it("apply with a name that differs from the URL: 400", async () => {
    const res = await h.client.patch(
      `${cms}/url-name?fieldManager=mgr-a`,
      applied("other-name", "v"),
      APPLY,
    );
    expectStatus(res, 400, "BadRequest");
  });
});

describe("the /scale subresource", () => {
  const h = useServer();
  const deploys = "/apis/apps/v1/namespaces/scl/deployments";

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "scl" } })).status).toBe(
      201,
    );
  });

  it("GET answers an autoscaling/v1 Scale with the selector as a string", async () => {
    const created = await h.client.post(deploys, deployment("get-scale", 3));
    const res = await h.client.get(`${deploys}/get-scale/scale`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: {
        name: "get-scale",
        namespace: "scl",
        uid: created.json.metadata.uid,
        resourceVersion: created.json.metadata.resourceVersion,
        creationTimestamp: created.json.metadata.creationTimestamp,
      },
      spec: { replicas: 3 },
      status: { selector: "app=web" },
    });
  });

  it("PUT writes spec.replicas to the Deployment", async () => {
    await h.client.post(deploys, deployment("put-scale", 2));
    const scale = (await h.client.get(`${deploys}/put-scale/scale`)).json;
    const res = await h.client.put(`${deploys}/put-scale/scale`, {
      ...scale,
      spec: { replicas: 4 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 4 },
    });
    expect(res.json.metadata.resourceVersion).not.toBe(scale.metadata.resourceVersion);
    const got = await h.client.get(`${deploys}/put-scale`);
    expect(got.json.spec.replicas).toBe(4);
    expect(got.json.metadata.generation).toBe(2);
    expect(got.json.metadata.resourceVersion).toBe(res.json.metadata.resourceVersion);
  });

  it("PUT with a stale resourceVersion: 409 on deployments.apps", async () => {
    await h.client.post(deploys, deployment("stale-scale", 2));
    const scale = (await h.client.get(`${deploys}/stale-scale/scale`)).json;
    expect(
      (await h.client.put(`${deploys}/stale-scale/scale`, { ...scale, spec: { replicas: 3 } }))
        .status,
    ).toBe(200);
    const res = await h.client.put(`${deploys}/stale-scale/scale`, {
      ...scale,
      spec: { replicas: 5 },
    });
    const status = expectStatus(res, 409, "Conflict");
    expect(status["message"]).toBe(
      `Operation cannot be fulfilled on deployments.apps "stale-scale": ${MODIFIED_MESSAGE}`,
    );
    expect((await h.client.get(`${deploys}/stale-scale`)).json.spec.replicas).toBe(3);
  });

  it("PUT with no Content-Type works (kubectl scale --current-replicas)", async () => {
    await h.client.post(deploys, deployment("kubectl-scale", 5));
    const scale = (await h.client.get(`${deploys}/kubectl-scale/scale`)).json;
    const res = await h.client.put(
      `${deploys}/kubectl-scale/scale`,
      { ...scale, spec: { replicas: 4 } },
      { contentType: null },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.spec.replicas).toBe(4);
    expect((await h.client.get(`${deploys}/kubectl-scale`)).json.spec.replicas).toBe(4);
  });

  it("PATCH with a merge patch and no fieldManager (kubectl scale)", async () => {
    await h.client.post(deploys, deployment("patch-scale", 1));
    const res = await h.client.patch(
      `${deploys}/patch-scale/scale`,
      { spec: { replicas: 6 } },
      MERGE,
      {
        headers: { accept: "application/json, */*" },
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 6 },
      status: { selector: "app=web" },
    });
    expect((await h.client.get(`${deploys}/patch-scale`)).json.spec.replicas).toBe(6);
  });

  it("a scale on a missing Deployment: 404", async () => {
    expectStatus(await h.client.get(`${deploys}/nobody/scale`), 404, "NotFound");
    expectStatus(
      await h.client.patch(`${deploys}/nobody/scale`, { spec: { replicas: 1 } }, MERGE),
      404,
      "NotFound",
    );
  });
});

describe("custom resources: update and patch rules", () => {
  const h = useServer();
  const widgets = "/apis/example.com/v1/namespaces/crs/widgets";

  function widget(name: string): Json {
    return { apiVersion: "example.com/v1", kind: "Widget", metadata: { name }, spec: { size: 1 } };
  }

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: "crs" } })).status).toBe(
      201,
    );
    await createCrd(
      h.client,
      crdBody({
        group: "example.com",
        plural: "widgets",
        kind: "Widget",
        subresources: { status: {} },
      }),
    );
    await waitForCrdEstablished(h.client, "widgets.example.com");
  });

  it("create drops status (status subresource) and sets generation 1", async () => {
    const res = await h.client.post(widgets, { ...widget("w-status"), status: { ready: true } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.status).toBeUndefined();
    expect(res.json.metadata.generation).toBe(1);
  });

  it("PUT without a resourceVersion: 422 must be specified for an update", async () => {
    expect((await h.client.post(widgets, widget("w-rv"))).status).toBe(201);
    const res = await h.client.put(`${widgets}/w-rv`, { ...widget("w-rv"), spec: { size: 2 } });
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'widgets.example.com "w-rv" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
    expect(status["details"]).toMatchObject({
      name: "w-rv",
      group: "example.com",
      kind: "widgets",
    });
  });

  it("PUT to a missing custom resource: 404 (no create-on-update)", async () => {
    const status = expectStatus(
      await h.client.put(`${widgets}/ghost`, widget("ghost")),
      404,
      "NotFound",
    );
    expect(status["message"]).toBe('widgets.example.com "ghost" not found');
  });

  it("a spec change bumps generation; a metadata-only change does not", async () => {
    const created = await h.client.post(widgets, widget("w-gen"));
    const relabeled = await h.client.patch(
      `${widgets}/w-gen`,
      { metadata: { labels: { a: "b" } } },
      MERGE,
    );
    expect(relabeled.json.metadata.generation).toBe(1);
    const resized = await h.client.put(`${widgets}/w-gen`, {
      ...relabeled.json,
      spec: { size: 3 },
    });
    expect(resized.status, resized.text).toBe(200);
    expect(resized.json.metadata.generation).toBe(2);
    expect(created.json.metadata.generation).toBe(1);
  });

  it("strategic merge patch: 415 listing the three patch types custom resources accept", async () => {
    expect((await h.client.post(widgets, widget("w-smp"))).status).toBe(201);
    const res = await h.client.patch(`${widgets}/w-smp`, { spec: { size: 4 } }, STRATEGIC);
    const status = expectStatus(res, 415, "UnsupportedMediaType");
    expect(status["message"]).toBe(
      "the body of the request was in an unknown format - accepted media types include: " +
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    const merged = await h.client.patch(`${widgets}/w-smp`, { spec: { size: 4 } }, MERGE);
    expect(merged.status, merged.text).toBe(200);
    expect(merged.json.spec.size).toBe(4);
  });
});
