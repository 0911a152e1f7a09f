/**
 * The website-operator example (packages/cluster/examples/website-operator/) against the embedded
 * server with its simulated cluster: its CRD installed with `installCrds`, a Website created
 * through the generated accessor becomes Ready once its Deployment is available, a change of the
 * Website rolls through, and deleting it goes through the operator's finalizer, which deletes the
 * Deployment and the Service.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, findStatusCondition, isNotFound, isStatusConditionTrue } from "kubekit";
import { installCrds } from "@kubekit/cluster";
import {
  websites,
  type Website,
} from "../../packages/cluster/examples/website-operator/generated/example.com/v1.js";
import {
  WEBSITE_FINALIZER,
  websiteOperator,
} from "../../packages/cluster/examples/website-operator/website-operator.js";
import { eventually, useServer } from "../support/server-test-helpers.js";

const CRD = fileURLToPath(
  new URL("../../packages/cluster/examples/website-operator/website-crd.yaml", import.meta.url),
);

/** Whether `read` rejects with NotFound. */
async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

describe("the website-operator example", () => {
  const harness = useServer({ cluster: { nodes: 1 } });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let cs: Clientset;

  beforeAll(async () => {
    const { server } = harness;
    await installCrds({ server, paths: [CRD] });
    cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    running = websiteOperator({ kubeConfig: server.kubeConfig(), namespace: "default" }).start(
      stop.signal,
    );
  });

  afterAll(async () => {
    stop.abort();
    await running;
  });

  /** The Website once `check` holds for it. */
  const websiteWhen = (what: string, check: (w: Website) => boolean): Promise<Website> =>
    eventually(
      what,
      async () => {
        const website = await websites(cs, "default").get("blog");
        return check(website) ? website : undefined;
      },
      30_000,
    );

  it("makes a Website Ready once its Deployment is available, with a Service in front", async () => {
    await websites(cs, "default").create({
      apiVersion: "example.com/v1",
      kind: "Website",
      metadata: { name: "blog" },
      spec: { image: "nginx:1.27", replicas: 2, port: 8080, tier: "small" },
    });
    const ready = await websiteWhen("the Website Ready", (w) =>
      isStatusConditionTrue(w.status?.conditions, "Ready"),
    );
    expect(ready.metadata?.finalizers).toEqual([WEBSITE_FINALIZER]);
    expect(ready.status).toMatchObject({
      availableReplicas: 2,
      observedGeneration: ready.metadata?.generation,
      url: "http://blog.default.svc:8080",
    });
    expect(findStatusCondition(ready.status?.conditions, "Ready")).toMatchObject({
      reason: "Available",
      message: "2 of 2 replicas available",
    });
    const deployment = await cs.appsV1.deployments("default").get("blog");
    expect(deployment.status?.availableReplicas).toBe(2);
    expect(deployment.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.27");
    expect(deployment.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: "Website",
        name: "blog",
        uid: ready.metadata?.uid,
        controller: true,
      }),
    ]);
    const service = await cs.coreV1.services("default").get("blog");
    expect(service.spec?.ports).toEqual([
      expect.objectContaining({ name: "http", port: 8080, targetPort: "http" }),
    ]);
    expect(service.metadata?.ownerReferences?.[0]?.uid).toBe(ready.metadata?.uid);
  });

  it("rolls a change of the Website through to the Deployment and the status", async () => {
    const current = await websites(cs, "default").get("blog");
    await websites(cs, "default").update({
      ...current,
      spec: { image: "nginx:1.28", replicas: 1, port: 8080 },
    });
    const updated = await websiteWhen(
      "the new generation Ready",
      (w) =>
        w.status?.observedGeneration === w.metadata?.generation &&
        isStatusConditionTrue(w.status?.conditions, "Ready") &&
        w.status?.availableReplicas === 1,
    );
    expect(findStatusCondition(updated.status?.conditions, "Ready")?.message).toBe(
      "1 of 1 replicas available",
    );
    const deployment = await cs.appsV1.deployments("default").get("blog");
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.28");
  });

  it("deletes the Deployment and the Service through its finalizer when the Website is deleted", async () => {
    await websites(cs, "default").delete("blog");
    await eventually(
      "the Website, its Deployment and its Service gone",
      async () =>
        (await gone(() => websites(cs, "default").get("blog"))) &&
        (await gone(() => cs.appsV1.deployments("default").get("blog"))) &&
        (await gone(() => cs.coreV1.services("default").get("blog")))
          ? true
          : undefined,
      30_000,
    );
  });
});
