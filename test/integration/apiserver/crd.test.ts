import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawResponse, type WatchHandle } from "../../support/api-client.js";
import {
  CRDS,
  crdBody,
  crdCondition,
  createCrd,
  eventually,
  expectPlainNotFound,
  expectRouteNotFound,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

/**
 * CustomResourceDefinitions and custom resources of the embedded server over real HTTP,
 * against kube-apiserver's apiextensions-apiserver
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go`), and
 * what kubectl needs: a new CRD's group must be discoverable at once.
 */

const AGGREGATED_V2_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
const TABLE_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const CR_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];
const TERMINATING_VERBS = ["delete", "deletecollection", "get", "list", "watch"];
const CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";
const CR_FINALIZER = "example.com/hold";

/** The CRD the main tests use: status and scale subresources with non-default paths. */
function widgetCrd(group: string): Json {
  return crdBody({
    group,
    plural: "widgets",
    kind: "Widget",
    shortNames: ["wd"],
    subresources: {
      status: {},
      scale: {
        specReplicasPath: ".spec.size",
        statusReplicasPath: ".status.currentSize",
        labelSelectorPath: ".status.labelSelector",
      },
    },
    printerColumns: [
      { name: "Size", type: "integer", jsonPath: ".spec.size" },
      { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
    ],
  });
}

/**
 * The storageVersionHash formula
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go`).
 */
function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256")
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString("base64");
}

function resourceNamed(list: Json, name: string): Json | undefined {
  return (list["resources"] as Json[]).find((r) => r["name"] === name);
}

function aggregatedGroup(doc: Json, group: string): Json | undefined {
  return (doc["items"] as Json[]).find((i) => (i["metadata"] as Json)["name"] === group);
}

describe("CustomResourceDefinitions", () => {
  const h = useServer();

  async function createNamespace(name: string): Promise<void> {
    const res = await h.client.post("/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    });
    expect(res.status).toBe(201);
  }

  function widget(group: string, name: string, spec: Json = { size: 1 }): Json {
    return { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name }, spec };
  }

  describe("creation and discovery", () => {
    const group = "create.kubekit.test";

    it("answers 201 with generation 1, storedVersions and no conditions yet", async () => {
      const res = await createCrd(h.client, widgetCrd(group));
      expect(res.json.kind).toBe("CustomResourceDefinition");
      expect(res.json.apiVersion).toBe("apiextensions.k8s.io/v1");
      expect(res.json.metadata.name).toBe(`widgets.${group}`);
      expect(res.json.metadata.generation).toBe(1);
      expect(typeof res.json.metadata.uid).toBe("string");
      expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(res.json.status.storedVersions).toEqual(["v1"]);
      expect(res.json.status.conditions ?? []).toEqual([]);

      // Immediately after the create response: legacy group list, aggregated discovery and the
      // group version's resource list already show the new resource (kubectl applies a CRD and
      // its objects in one run).
      const apis = await h.client.get("/apis");
      const listed = (apis.json.groups as Json[]).find((g) => g["name"] === group);
      expect(listed).toEqual({
        name: group,
        versions: [{ groupVersion: `${group}/v1`, version: "v1" }],
        preferredVersion: { groupVersion: `${group}/v1`, version: "v1" },
      });

      const aggregated = await h.client.get("/apis", { headers: { accept: AGGREGATED_V2_ACCEPT } });
      const item = aggregatedGroup(aggregated.json, group);
      expect(item).toBeDefined();
      const versions = (item as Json)["versions"] as Json[];
      expect(versions.map((v) => v["version"])).toEqual(["v1"]);
      const resource = (versions[0]?.["resources"] as Json[])[0] as Json;
      expect(resource).toMatchObject({
        resource: "widgets",
        singularResource: "widget",
        scope: "Namespaced",
        responseKind: { group, version: "v1", kind: "Widget" },
        shortNames: ["wd"],
      });
      expect([...(resource["verbs"] as string[])].sort()).toEqual(CR_VERBS);
      const subresources = resource["subresources"] as Json[];
      expect(subresources).toContainEqual({
        subresource: "status",
        responseKind: { group, version: "v1", kind: "Widget" },
        verbs: ["get", "patch", "update"],
      });
      expect(subresources).toContainEqual({
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: ["get", "patch", "update"],
      });

      const gv = await h.client.get(`/apis/${group}/v1`);
      expect(gv.status).toBe(200);
      expect(gv.json.kind).toBe("APIResourceList");
      expect(gv.json.groupVersion).toBe(`${group}/v1`);
      const main = resourceNamed(gv.json, "widgets");
      expect(main).toMatchObject({
        name: "widgets",
        singularName: "widget",
        namespaced: true,
        kind: "Widget",
        shortNames: ["wd"],
        storageVersionHash: storageVersionHash(group, "v1", "Widget"),
      });
      expect([...((main as Json)["verbs"] as string[])].sort()).toEqual(CR_VERBS);
      expect(resourceNamed(gv.json, "widgets/status")).toEqual({
        name: "widgets/status",
        singularName: "",
        namespaced: true,
        kind: "Widget",
        verbs: ["get", "patch", "update"],
      });
      expect(resourceNamed(gv.json, "widgets/scale")).toEqual({
        name: "widgets/scale",
        singularName: "",
        namespaced: true,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
    });

    it("then gets NamesAccepted and Established, with acceptedNames filled in", async () => {
      const crd = await waitForCrdEstablished(h.client, `widgets.${group}`);
      expect(crdCondition(crd, "NamesAccepted")).toMatchObject({
        status: "True",
        reason: "NoConflicts",
        message: "no conflicts found",
      });
      expect(crdCondition(crd, "Established")).toMatchObject({
        status: "True",
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      });
      for (const c of ((crd["status"] as Json)["conditions"] as Json[]) ?? []) {
        expect(c["lastTransitionTime"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
      expect((crd["status"] as Json)["acceptedNames"]).toMatchObject({
        plural: "widgets",
        singular: "widget",
        kind: "Widget",
        listKind: "WidgetList",
        shortNames: ["wd"],
      });
      expect((crd["status"] as Json)["storedVersions"]).toEqual(["v1"]);
    });

    it("a watcher of the CRD sees the status written as MODIFIED events", async () => {
      const g = "watched.kubekit.test";
      const list = await h.client.get(CRDS);
      const watch = await h.client.watch(
        `${CRDS}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`,
      );
      try {
        await createCrd(h.client, crdBody({ group: g, plural: "gadgets", kind: "Gadget" }));
        const added = await watch.next();
        expect(added?.type).toBe("ADDED");
        expect(added?.object.metadata.name).toBe(`gadgets.${g}`);
        let established = false;
        while (!established) {
          const ev = await watch.next();
          expect(ev?.type).toBe("MODIFIED");
          expect(ev?.object.metadata.name).toBe(`gadgets.${g}`);
          established = crdCondition(ev?.object, "Established")?.["status"] === "True";
        }
      } finally {
        watch.close();
      }
    });
  });

  describe("custom resources", () => {
    const group = "cr.kubekit.test";
    const ns = "crd-cr";
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;

    beforeAll(async () => {
      await createNamespace(ns);
      await createCrd(h.client, widgetCrd(group));
      await waitForCrdEstablished(h.client, `widgets.${group}`);
    });

    it("create, get and list: list items carry kind and apiVersion", async () => {
      const created = await h.client.post(base, widget(group, "w-create", { size: 2 }));
      expect(created.status).toBe(201);
      expect(created.json.apiVersion).toBe(`${group}/v1`);
      expect(created.json.kind).toBe("Widget");
      expect(created.json.metadata).toMatchObject({
        name: "w-create",
        namespace: ns,
        generation: 1,
      });
      expect(created.json.spec).toEqual({ size: 2 });

      const got = await h.client.get(`${base}/w-create`);
      expect(got.status).toBe(200);
      expect(got.json.metadata.uid).toBe(created.json.metadata.uid);
      expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);

      const list = await h.client.get(base);
      expect(list.status).toBe(200);
      expect(list.json.kind).toBe("WidgetList");
      expect(list.json.apiVersion).toBe(`${group}/v1`);
      expect(list.json.metadata.resourceVersion).toMatch(/^\d+$/);
      const item = (list.json.items as Json[]).find(
        (i) => (i["metadata"] as Json)["name"] === "w-create",
      );
      expect(item).toMatchObject({ apiVersion: `${group}/v1`, kind: "Widget" });

      const all = await h.client.get(`/apis/${group}/v1/widgets`);
      expect(all.status).toBe(200);
      expect((all.json.items as Json[]).map((i) => (i["metadata"] as Json)["name"])).toContain(
        "w-create",
      );
    });

    it("a status sent on create is dropped (status subresource enabled)", async () => {
      const res = await h.client.post(base, {
        ...widget(group, "w-create-status"),
        status: { currentSize: 9 },
      });
      expect(res.status).toBe(201);
      expect(res.json.status).toBeUndefined();
    });

    it("get of a missing CR is a NotFound Status naming the qualified resource", async () => {
      const res = await h.client.get(`${base}/nope`);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "NotFound",
        message: `widgets.${group} "nope" not found`,
        details: { name: "nope", group, kind: "widgets" },
        code: 404,
      });
    });

    it("watch from the list resourceVersion streams ADDED, MODIFIED and DELETED with kind", async () => {
      const list = await h.client.get(base);
      const watch = await h.client.watch(
        `${base}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`,
      );
      try {
        expect(watch.status).toBe(200);
        const created = await h.client.post(base, widget(group, "w-watch"));
        expect(created.status).toBe(201);
        const patched = await h.client.patch(
          `${base}/w-watch`,
          { spec: { size: 5 } },
          "application/merge-patch+json",
        );
        expect(patched.status).toBe(200);
        const deleted = await h.client.delete(`${base}/w-watch`);
        expect(deleted.status).toBe(200);
        const events = await watch.take(3);
        expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
        for (const e of events) {
          expect(e.object.kind).toBe("Widget");
          expect(e.object.apiVersion).toBe(`${group}/v1`);
          expect(e.object.metadata.name).toBe("w-watch");
        }
        expect(events[1]?.object.spec).toEqual({ size: 5 });
        expect(events[1]?.object.metadata.resourceVersion).toBe(
          patched.json.metadata.resourceVersion,
        );
      } finally {
        watch.close();
      }
    });

    it("watch without a resourceVersion starts with a synthetic ADDED per existing CR", async () => {
      const ns2 = "crd-cr-synthetic";
      await createNamespace(ns2);
      const path = `/apis/${group}/v1/namespaces/${ns2}/widgets`;
      for (const name of ["a", "b"]) {
        expect((await h.client.post(path, widget(group, name))).status).toBe(201);
      }
      const watch = await h.client.watch(`${path}?watch=true`);
      try {
        const events = await watch.take(2);
        expect(events.map((e) => e.type)).toEqual(["ADDED", "ADDED"]);
        expect(events.map((e) => e.object.metadata.name).sort()).toEqual(["a", "b"]);
        for (const e of events) expect(e.object.kind).toBe("Widget");
      } finally {
        watch.close();
      }
    });

    it("delete answers 200 with a Success Status carrying the resource as details.kind", async () => {
      const created = await h.client.post(base, widget(group, "w-delete"));
      const res = await h.client.delete(`${base}/w-delete`);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        kind: "Status",
        apiVersion: "v1",
        status: "Success",
        details: { name: "w-delete", group, kind: "widgets", uid: created.json.metadata.uid },
      });
      expect((await h.client.get(`${base}/w-delete`)).status).toBe(404);
    });

    it("PUT without a resourceVersion is 422 Invalid (no unconditional update for CRs)", async () => {
      const created = await h.client.post(base, widget(group, "w-put"));
      expect(created.status).toBe(201);
      const { resourceVersion: _rv, ...meta } = created.json.metadata as Json;
      const res = await h.client.put(`${base}/w-put`, {
        ...created.json,
        metadata: meta,
        spec: { size: 3 },
      });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Invalid",
        code: 422,
        details: { name: "w-put", group, kind: "widgets" },
      });
      expect(res.json.message).toMatch(
        new RegExp(
          `^widgets\\.${group.replace(/\./g, "\\.")} "w-put" is invalid: metadata\\.resourceVersion: Invalid value: 0(x0)?: must be specified for an update$`,
        ),
      );
      expect(res.json.details.causes).toContainEqual(
        expect.objectContaining({ reason: "FieldValueInvalid", field: "metadata.resourceVersion" }),
      );
      const unchanged = await h.client.get(`${base}/w-put`);
      expect(unchanged.json.spec).toEqual({ size: 1 });
    });

    it("PUT with a stale resourceVersion is 409 Conflict", async () => {
      const created = await h.client.post(base, widget(group, "w-stale"));
      const first = await h.client.put(`${base}/w-stale`, { ...created.json, spec: { size: 2 } });
      expect(first.status).toBe(200);
      const stale = await h.client.put(`${base}/w-stale`, { ...created.json, spec: { size: 3 } });
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({
        reason: "Conflict",
        message: `Operation cannot be fulfilled on widgets.${group} "w-stale": the object has been modified; please apply your changes to the latest version and try again`,
      });
    });

    it("PUT on a missing CR is 404 (no create-on-update)", async () => {
      const res = await h.client.put(`${base}/w-missing`, {
        ...widget(group, "w-missing"),
        metadata: { name: "w-missing", resourceVersion: "1" },
      });
      expect(res.status).toBe(404);
      expect(res.json.reason).toBe("NotFound");
    });

    it("strategic merge patch is 415 for custom resources", async () => {
      await h.client.post(base, widget(group, "w-smp"));
      const res = await h.client.patch(
        `${base}/w-smp`,
        { spec: { size: 4 } },
        "application/strategic-merge-patch+json",
      );
      expect(res.status).toBe(415);
      expect(res.json.reason).toBe("UnsupportedMediaType");
    });

    it("generation goes up on spec changes only; status sent to the main resource is ignored", async () => {
      const created = await h.client.post(base, widget(group, "w-gen"));
      expect(created.json.metadata.generation).toBe(1);

      const spec = await h.client.put(`${base}/w-gen`, { ...created.json, spec: { size: 2 } });
      expect(spec.status).toBe(200);
      expect(spec.json.metadata.generation).toBe(2);

      const labelled = await h.client.put(`${base}/w-gen`, {
        ...spec.json,
        metadata: { ...spec.json.metadata, labels: { tier: "gold" } },
      });
      expect(labelled.status).toBe(200);
      expect(labelled.json.metadata.labels).toEqual({ tier: "gold" });
      expect(labelled.json.metadata.generation).toBe(2);

      const withStatus = await h.client.put(`${base}/w-gen`, {
        ...labelled.json,
        status: { currentSize: 7 },
      });
      expect(withStatus.status).toBe(200);
      expect(withStatus.json.status).toBeUndefined();
      expect(withStatus.json.metadata.generation).toBe(2);

      const patched = await h.client.patch(
        `${base}/w-gen`,
        { spec: { color: "red" } },
        "application/merge-patch+json",
      );
      expect(patched.status).toBe(200);
      expect(patched.json.metadata.generation).toBe(3);
      expect(patched.json.spec).toEqual({ size: 2, color: "red" });
    });

    it("/status update changes status only: spec and generation stay", async () => {
      const created = await h.client.post(base, widget(group, "w-status", { size: 1 }));
      const res = await h.client.put(`${base}/w-status/status`, {
        ...created.json,
        metadata: { ...created.json.metadata, labels: { ignored: "yes" } },
        spec: { size: 99 },
        status: { currentSize: 1, phase: "Ready" },
      });
      expect(res.status).toBe(200);
      expect(res.json.status).toEqual({ currentSize: 1, phase: "Ready" });
      expect(res.json.spec).toEqual({ size: 1 });
      expect(res.json.metadata.generation).toBe(1);
      expect(res.json.metadata.labels).toBeUndefined();
      expect(res.json.metadata.resourceVersion).not.toBe(created.json.metadata.resourceVersion);

      const got = await h.client.get(`${base}/w-status`);
      expect(got.json.spec).toEqual({ size: 1 });
      expect(got.json.status).toEqual({ currentSize: 1, phase: "Ready" });

      const viaSub = await h.client.get(`${base}/w-status/status`);
      expect(viaSub.status).toBe(200);
      expect(viaSub.json.status).toEqual({ currentSize: 1, phase: "Ready" });

      const patched = await h.client.patch(
        `${base}/w-status/status`,
        { status: { phase: "Degraded" }, spec: { size: 50 } },
        "application/merge-patch+json",
      );
      expect(patched.status).toBe(200);
      expect(patched.json.status).toEqual({ currentSize: 1, phase: "Degraded" });
      expect(patched.json.spec).toEqual({ size: 1 });
      expect(patched.json.metadata.generation).toBe(1);
    });

    it("/scale reads and writes through specReplicasPath, statusReplicasPath, labelSelectorPath", async () => {
      const created = await h.client.post(base, widget(group, "w-scale", { size: 2 }));
      const status = await h.client.put(`${base}/w-scale/status`, {
        ...created.json,
        status: { currentSize: 1, labelSelector: "app=w-scale" },
      });
      expect(status.status).toBe(200);

      const scale = await h.client.get(`${base}/w-scale/scale`);
      expect(scale.status).toBe(200);
      expect(scale.json).toMatchObject({
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: {
          name: "w-scale",
          namespace: ns,
          uid: created.json.metadata.uid,
          resourceVersion: status.json.metadata.resourceVersion,
        },
        spec: { replicas: 2 },
        status: { replicas: 1, selector: "app=w-scale" },
      });

      const put = await h.client.put(
        `${base}/w-scale/scale`,
        { ...scale.json, spec: { replicas: 5 } },
        { contentType: null },
      );
      expect(put.status).toBe(200);
      expect(put.json.kind).toBe("Scale");
      expect(put.json.spec.replicas).toBe(5);

      const after = await h.client.get(`${base}/w-scale`);
      expect(after.json.spec).toEqual({ size: 5 });
      expect(after.json.status).toEqual({ currentSize: 1, labelSelector: "app=w-scale" });
      expect(after.json.metadata.generation).toBe(2);

      const patched = await h.client.patch(
        `${base}/w-scale/scale`,
        { spec: { replicas: 0 } },
        "application/merge-patch+json",
      );
      expect(patched.status).toBe(200);
      expect((await h.client.get(`${base}/w-scale`)).json.spec.size).toBe(0);

      const stale = await h.client.put(`${base}/w-scale/scale`, {
        ...scale.json,
        spec: { replicas: 3 },
      });
      expect(stale.status).toBe(409);
    });

    it("Table: Name plus the printer columns, PartialObjectMetadata rows", async () => {
      const ns3 = "crd-cr-table";
      await createNamespace(ns3);
      const path = `/apis/${group}/v1/namespaces/${ns3}/widgets`;
      await h.client.post(path, widget(group, "t1", { size: 4, color: "blue" }));
      const res = await h.client.get(path, { headers: { accept: TABLE_ACCEPT } });
      expect(res.status).toBe(200);
      expect(res.json.kind).toBe("Table");
      expect(res.json.apiVersion).toBe("meta.k8s.io/v1");
      expect(res.json.metadata.resourceVersion).toMatch(/^\d+$/);
      const columns = res.json.columnDefinitions as Json[];
      expect(columns.map((c) => c["name"])).toEqual(["Name", "Size", "Color"]);
      expect(columns[0]).toMatchObject({ name: "Name", type: "string", format: "name" });
      expect(columns[1]).toMatchObject({ type: "integer", priority: 0 });
      expect(columns[2]).toMatchObject({ type: "string", priority: 1 });
      const rows = res.json.rows as Json[];
      expect(rows).toHaveLength(1);
      expect(rows[0]?.["cells"]).toEqual(["t1", 4, "blue"]);
      expect(rows[0]?.["object"]).toMatchObject({
        kind: "PartialObjectMetadata",
        apiVersion: "meta.k8s.io/v1",
        metadata: { name: "t1", namespace: ns3 },
      });

      const one = await h.client.get(`${path}/t1`, { headers: { accept: TABLE_ACCEPT } });
      expect(one.json.kind).toBe("Table");
      expect((one.json.rows as Json[])[0]?.["cells"]).toEqual(["t1", 4, "blue"]);
    });
  });

  describe("tables and scope", () => {
    it("a CRD without printer columns gets Name and Age (date) columns", async () => {
      const group = "noprinter.kubekit.test";
      await createCrd(h.client, crdBody({ group, plural: "plains", kind: "Plain" }));
      await waitForCrdEstablished(h.client, `plains.${group}`);
      const path = `/apis/${group}/v1/namespaces/default/plains`;
      expect(
        (
          await h.client.post(path, {
            apiVersion: `${group}/v1`,
            kind: "Plain",
            metadata: { name: "p" },
          })
        ).status,
      ).toBe(201);
      const res = await h.client.get(path, { headers: { accept: TABLE_ACCEPT } });
      expect(res.status).toBe(200);
      const columns = res.json.columnDefinitions as Json[];
      expect(columns.map((c) => c["name"])).toEqual(["Name", "Age"]);
      expect(columns[1]?.["type"]).toBe("date");
      const cells = (res.json.rows as Json[])[0]?.["cells"] as unknown[];
      expect(cells[0]).toBe("p");
      expect(typeof cells[1]).toBe("string");
    });

    it("a cluster-scoped CRD serves its objects at /apis/G/V/plural/name", async () => {
      const group = "cluster.kubekit.test";
      await createCrd(
        h.client,
        crdBody({ group, plural: "regions", kind: "Region", scope: "Cluster", shortNames: ["rg"] }),
      );
      const gv = await h.client.get(`/apis/${group}/v1`);
      expect(resourceNamed(gv.json, "regions")).toMatchObject({
        namespaced: false,
        kind: "Region",
      });
      const aggregated = await h.client.get("/apis", { headers: { accept: AGGREGATED_V2_ACCEPT } });
      const item = aggregatedGroup(aggregated.json, group) as Json;
      const resource = ((item["versions"] as Json[])[0]?.["resources"] as Json[])[0];
      expect(resource?.["scope"]).toBe("Cluster");

      await waitForCrdEstablished(h.client, `regions.${group}`);
      const created = await h.client.post(`/apis/${group}/v1/regions`, {
        apiVersion: `${group}/v1`,
        kind: "Region",
        metadata: { name: "eu" },
        spec: { zones: 3 },
      });
      expect(created.status).toBe(201);
      expect(created.json.metadata.namespace).toBeUndefined();
      const got = await h.client.get(`/apis/${group}/v1/regions/eu`);
      expect(got.status).toBe(200);
      expect(got.json.spec).toEqual({ zones: 3 });
      const list = await h.client.get(`/apis/${group}/v1/regions`);
      expect(list.json.kind).toBe("RegionList");
      expect((list.json.items as Json[])[0]).toMatchObject({
        kind: "Region",
        apiVersion: `${group}/v1`,
      });
      expectRouteNotFound(await h.client.get(`/apis/${group}/v1/namespaces/default/regions/eu`));
    });
  });

  describe("validation", () => {
    it("a CRD whose name is not plural.group is 422 Invalid on metadata.name", async () => {
      const res = await h.client.post(
        CRDS,
        crdBody({
          group: "badname.kubekit.test",
          plural: "things",
          kind: "Thing",
          name: "stuff.badname.kubekit.test",
        }),
      );
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        kind: "Status",
        reason: "Invalid",
        code: 422,
        details: {
          name: "stuff.badname.kubekit.test",
          group: "apiextensions.k8s.io",
          kind: "CustomResourceDefinition",
        },
      });
      expect(res.json.message).toMatch(
        /^CustomResourceDefinition\.apiextensions\.k8s\.io "stuff\.badname\.kubekit\.test" is invalid: /,
      );
      expect(res.json.details.causes).toContainEqual(
        expect.objectContaining({ field: "metadata.name" }),
      );
      expect((await h.client.get(`${CRDS}/stuff.badname.kubekit.test`)).status).toBe(404);
      expectPlainNotFound(await h.client.get("/apis/badname.kubekit.test/v1"));
    });

    it("a CRD with two storage versions is 422 Invalid on spec.versions", async () => {
      const res = await h.client.post(
        CRDS,
        crdBody({
          group: "twostore.kubekit.test",
          plural: "things",
          kind: "Thing",
          versions: [
            { name: "v1", served: true, storage: true },
            { name: "v1beta1", served: true, storage: true },
          ],
        }),
      );
      expect(res.status).toBe(422);
      expect(res.json.reason).toBe("Invalid");
      expect(res.json.details.kind).toBe("CustomResourceDefinition");
      expect(res.json.message).toContain("must have exactly one version marked as storage version");
      expect(res.json.details.causes).toContainEqual(
        expect.objectContaining({ field: "spec.versions" }),
      );
      expect((await h.client.get(`${CRDS}/things.twostore.kubekit.test`)).status).toBe(404);
    });

    it("served versions v1beta1 and v1 list v1 first, as the preferred version", async () => {
      const group = "multi.kubekit.test";
      await createCrd(
        h.client,
        crdBody({
          group,
          plural: "things",
          kind: "Thing",
          versions: [
            { name: "v1beta1", served: true, storage: false },
            { name: "v1", served: true, storage: true },
          ],
        }),
      );
      const apis = await h.client.get("/apis");
      const listed = (apis.json.groups as Json[]).find((g) => g["name"] === group);
      expect(listed).toEqual({
        name: group,
        versions: [
          { groupVersion: `${group}/v1`, version: "v1" },
          { groupVersion: `${group}/v1beta1`, version: "v1beta1" },
        ],
        preferredVersion: { groupVersion: `${group}/v1`, version: "v1" },
      });
      const one = await h.client.get(`/apis/${group}`);
      expect(one.json.preferredVersion).toEqual({ groupVersion: `${group}/v1`, version: "v1" });
      const aggregated = await h.client.get("/apis", { headers: { accept: AGGREGATED_V2_ACCEPT } });
      const item = aggregatedGroup(aggregated.json, group) as Json;
      expect((item["versions"] as Json[]).map((v) => v["version"])).toEqual(["v1", "v1beta1"]);
      expect((await h.client.get(`/apis/${group}/v1beta1`)).status).toBe(200);
    });

    it("an unserved version is not discoverable and its paths are 404", async () => {
      const group = "unserved.kubekit.test";
      await createCrd(
        h.client,
        crdBody({
          group,
          plural: "things",
          kind: "Thing",
          versions: [
            { name: "v1", served: true, storage: true },
            { name: "v1alpha1", served: false, storage: false },
          ],
        }),
      );
      const one = await h.client.get(`/apis/${group}`);
      expect(one.json.versions).toEqual([{ groupVersion: `${group}/v1`, version: "v1" }]);
      expectPlainNotFound(await h.client.get(`/apis/${group}/v1alpha1`));
      expectPlainNotFound(await h.client.get(`/apis/${group}/v1alpha1/namespaces/default/things`));
    });
  });

  describe("deletion", () => {
    const group = "delete.kubekit.test";
    const crdName = `widgets.${group}`;
    const nsA = "crd-del-a";
    const nsB = "crd-del-b";
    let watch: WatchHandle | undefined;
    let deleteResponse: RawResponse;

    beforeAll(async () => {
      await createNamespace(nsA);
      await createNamespace(nsB);
      await createCrd(h.client, widgetCrd(group));
      await waitForCrdEstablished(h.client, crdName);
      for (const [ns, name] of [
        [nsA, "a1"],
        [nsA, "a2"],
        [nsB, "b1"],
      ] as const) {
        const res = await h.client.post(
          `/apis/${group}/v1/namespaces/${ns}/widgets`,
          widget(group, name),
        );
        expect(res.status).toBe(201);
      }
      const held = await h.client.post(`/apis/${group}/v1/namespaces/${nsB}/widgets`, {
        ...widget(group, "held"),
        metadata: { name: "held", finalizers: [CR_FINALIZER] },
      });
      expect(held.status).toBe(201);
      const list = await h.client.get(`/apis/${group}/v1/widgets`);
      expect(list.json.items).toHaveLength(4);
      watch = await h.client.watch(
        `/apis/${group}/v1/widgets?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`,
      );
      deleteResponse = await h.client.delete(`${CRDS}/${crdName}`);
    });

    afterAll(() => {
      watch?.close();
    });

    it("DELETE answers 200 with the CRD carrying deletionTimestamp and the cleanup finalizer", () => {
      expect(deleteResponse.status).toBe(200);
      expect(deleteResponse.json.kind).toBe("CustomResourceDefinition");
      expect(deleteResponse.json.metadata.name).toBe(crdName);
      expect(deleteResponse.json.metadata.deletionTimestamp).toMatch(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      );
      expect(deleteResponse.json.metadata.finalizers).toContain(CLEANUP_FINALIZER);
    });

    it("the DELETE response carries the Terminating condition (InstanceDeletionPending)", () => {
      expect(crdCondition(deleteResponse.json, "Terminating")).toMatchObject({
        status: "True",
        reason: "InstanceDeletionPending",
      });
    });

    it("watchers of the custom resources see DELETED for each unblocked CR", async () => {
      const seen = new Map<string, string[]>();
      while (["a1", "a2", "b1"].some((n) => !seen.get(n)?.includes("DELETED"))) {
        const ev = await (watch as WatchHandle).next();
        expect(ev, "the watch ended before every CR was deleted").toBeDefined();
        const name = String(ev?.object?.metadata?.name);
        seen.set(name, [...(seen.get(name) ?? []), String(ev?.type)]);
      }
      for (const n of ["a1", "a2", "b1"]) expect(seen.get(n)).toEqual(["DELETED"]);
      expect(seen.get("held") ?? ["MODIFIED"]).toEqual(["MODIFIED"]);
    });

    it("while a CR's finalizer blocks, the CRD stays, terminating, with shrunken verbs", async () => {
      const held = await eventually("held CR marked for deletion", async () => {
        const res = await h.client.get(`/apis/${group}/v1/namespaces/${nsB}/widgets/held`);
        return res.json?.metadata?.deletionTimestamp ? (res.json as Json) : undefined;
      });
      expect((held["metadata"] as Json)["finalizers"]).toEqual([CR_FINALIZER]);
      const crd = await h.client.get(`${CRDS}/${crdName}`);
      expect(crd.status).toBe(200);
      expect(crd.json.metadata.deletionTimestamp).toBeDefined();
      expect(crd.json.metadata.finalizers).toContain(CLEANUP_FINALIZER);
      const gv = await h.client.get(`/apis/${group}/v1`);
      expect(gv.status).toBe(200);
      expect(
        [...((resourceNamed(gv.json, "widgets") as Json)["verbs"] as string[])].sort(),
      ).toEqual(TERMINATING_VERBS);
      const remaining = await h.client.get(`/apis/${group}/v1/widgets`);
      expect((remaining.json.items as Json[]).map((i) => (i["metadata"] as Json)["name"])).toEqual([
        "held",
      ]);
    });

    it("creating a CR while the CRD is terminating is 403 with the documented message", async () => {
      const res = await h.client.post(
        `/apis/${group}/v1/namespaces/${nsA}/widgets`,
        widget(group, "late"),
      );
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Forbidden",
        code: 403,
        message: `widgets.${group} "late" is forbidden: create not allowed while custom resource definition is terminating`,
        details: { name: "late", group, kind: "widgets" },
      });
    });

    it("removing the finalizer completes: DELETED, the CRD goes, discovery and CR paths 404", async () => {
      const res = await h.client.patch(
        `/apis/${group}/v1/namespaces/${nsB}/widgets/held`,
        { metadata: { finalizers: null } },
        "application/merge-patch+json",
      );
      expect(res.status).toBe(200);
      for (;;) {
        const ev = await (watch as WatchHandle).next();
        expect(ev, "the watch ended before the held CR was deleted").toBeDefined();
        if (ev?.object?.metadata?.name !== "held") continue;
        if (ev.type === "DELETED") break;
        expect(ev.type).toBe("MODIFIED");
      }
      await eventually("CRD removal", async () => {
        const crd = await h.client.get(`${CRDS}/${crdName}`);
        return crd.status === 404 ? true : undefined;
      });
      const apis = await h.client.get("/apis");
      expect((apis.json.groups as Json[]).map((g) => g["name"])).not.toContain(group);
      const aggregated = await h.client.get("/apis", { headers: { accept: AGGREGATED_V2_ACCEPT } });
      expect(aggregatedGroup(aggregated.json, group)).toBeUndefined();
      expectPlainNotFound(await h.client.get(`/apis/${group}/v1`));
      expectPlainNotFound(await h.client.get(`/apis/${group}/v1/widgets`));
      expectPlainNotFound(await h.client.get(`/apis/${group}/v1/namespaces/${nsA}/widgets/a1`));
      expectPlainNotFound(
        await h.client.post(`/apis/${group}/v1/namespaces/${nsA}/widgets`, widget(group, "after")),
      );
      const index = await h.client.get("/openapi/v3");
      expect(Object.keys(index.json.paths)).not.toContain(`apis/${group}/v1`);
    });
  });
});
