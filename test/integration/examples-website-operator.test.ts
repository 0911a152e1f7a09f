/**
 * The website-operator example (packages/cluster/examples/website-operator/) against the embedded
 * server with its simulated cluster: its CRD installed with `installCrds`, a Website created
 * through the generated accessor becomes Ready once its Deployment is available, a change of the
 * Website rolls through, and deleting it goes through the operator's finalizer, which deletes the
 * Deployment and the Service. The operator's Manager also runs its WebhookServer, registered
 * from the example's webhook manifests with `installWebhooks` (generated certificates, the
 * `service` clientConfigs pointed at the local server): a Website without replicas gets them
 * from the defaulting webhook, the validating webhook's denial reaches the client in kube's
 * wording, and its warning as a `Warning` header.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { parseAllDocuments } from "yaml";
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "kubernetes-types/admissionregistration/v1.js";
import {
  Clientset,
  PrometheusMetricFactory,
  StatusError,
  WebhookServer,
  findStatusCondition,
  isNotFound,
  isStatusConditionTrue,
  noopLogger,
  type Warning,
} from "kubekit";
import { generateWebhookCertificates, installCrds, installWebhooks } from "@kubekit/cluster";
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
const WEBHOOKS = fileURLToPath(
  new URL(
    "../../packages/cluster/examples/website-operator/webhook/website-webhooks.yaml",
    import.meta.url,
  ),
);

/** The example's webhook configurations, as a user applies them. */
async function webhookManifests(): Promise<{
  validating: ValidatingWebhookConfiguration[];
  mutating: MutatingWebhookConfiguration[];
}> {
  const documents = parseAllDocuments(await readFile(WEBHOOKS, "utf8")).map(
    (doc) => doc.toJS() as ValidatingWebhookConfiguration | MutatingWebhookConfiguration,
  );
  return {
    validating: documents.filter(
      (d): d is ValidatingWebhookConfiguration => d.kind === "ValidatingWebhookConfiguration",
    ),
    mutating: documents.filter(
      (d): d is MutatingWebhookConfiguration => d.kind === "MutatingWebhookConfiguration",
    ),
  };
}

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
  let certDir: string;
  const warnings: string[] = [];

  beforeAll(async () => {
    const { server } = harness;
    await installCrds({ server, paths: [CRD] });
    cs = new Clientset(
      { ...server.kubeConfig().restConfig(), qps: -1 },
      { warningHandler: (warning: Warning) => warnings.push(warning.text) },
    );
    certDir = await mkdtemp(join(tmpdir(), "website-webhooks-"));
    const { caPem } = await generateWebhookCertificates({ certDir });
    const webhookServer = new WebhookServer({
      port: 0,
      certDir,
      logger: noopLogger,
      metricFactory: new PrometheusMetricFactory({ registry: new Registry() }),
    });
    running = websiteOperator({
      kubeConfig: server.kubeConfig(),
      namespace: "default",
      webhookServer,
    }).start(stop.signal);
    const port = await eventually("the webhook server serving", async () => webhookServer.port);
    await installWebhooks({
      server,
      ca: caPem,
      baseUrl: `https://127.0.0.1:${port}`,
      ...(await webhookManifests()),
    });
  });

  afterAll(async () => {
    stop.abort();
    await running;
    await cs?.restClient.transport.close();
    await rm(certDir, { recursive: true, force: true });
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

  it("defaults the replicas of a Website that sets none from its tier", async () => {
    const created = await websites(cs, "default").create({
      metadata: { name: "shop" },
      spec: { image: "nginx:1.27", tier: "large" },
    });
    expect(created.spec).toEqual({ image: "nginx:1.27", tier: "large", replicas: 3 });
    const small = await websites(cs, "default").create(
      { metadata: { name: "notes" }, spec: { image: "nginx:1.27" } },
      { dryRun: ["All"] },
    );
    expect(small.spec).toEqual({ image: "nginx:1.27", tier: "small", replicas: 1 });
    await websites(cs, "default").delete("shop");
    await eventually(
      "the defaulted Website gone",
      async () => ((await gone(() => websites(cs, "default").get("shop"))) ? true : undefined),
      30_000,
    );
  });

  it("denies a small Website with too many replicas, on create and on update", async () => {
    const denial =
      'admission webhook "validate.websites.example.com" denied the request: ' +
      "spec.replicas: Invalid value: 5: a small Website runs at most 3 replicas; set spec.tier to large";
    const error = await websites(cs, "default")
      .create({ metadata: { name: "crowded" }, spec: { image: "nginx:1.27", replicas: 5 } })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(403);
    expect((error as StatusError).message).toBe(denial);
    expect(await gone(() => websites(cs, "default").get("crowded"))).toBe(true);
    const blog = await websites(cs, "default").get("blog");
    await expect(
      websites(cs, "default").update({ ...blog, spec: { image: "nginx:1.28", replicas: 5 } }),
    ).rejects.toThrow(denial);
    const large = await websites(cs, "default").create(
      { metadata: { name: "crowded" }, spec: { image: "nginx:1.27", tier: "large", replicas: 5 } },
      { dryRun: ["All"] },
    );
    expect(large.spec?.replicas).toBe(5);
  });

  it("passes the validating webhook's warning about a named port back to the client", async () => {
    warnings.length = 0;
    await websites(cs, "default").create(
      { metadata: { name: "named" }, spec: { image: "nginx:1.27", port: "web" } },
      { dryRun: ["All"] },
    );
    expect(warnings).toEqual([
      'spec.port: the named port "web" is deprecated and ignored; set a port number',
    ]);
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
