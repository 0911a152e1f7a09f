/**
 * Webhooks written with kubekit's WebhookServer, registered in the embedded API server with
 * `installWebhooks` (the caBundle of generated certificates, url clientConfigs pointing at
 * 127.0.0.1) and exercised with kubekit's client: a validating webhook's denial and warnings,
 * a mutating webhook's patch, `kubectl apply` showing the denial and the warnings, and a
 * conversion webhook between two versions of a CRD.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import {
  Clientset,
  DynamicClient,
  PrometheusMetricFactory,
  StatusError,
  WebhookServer,
  conversionWebhook,
  mutatingWebhookFor,
  noopLogger,
  validatingWebhookFor,
  type JsonObject,
  type Warning,
} from "kubekit";
import {
  generateWebhookCertificates,
  installCrds,
  installWebhooks,
  withCaBundle,
  type WebhookCertificates,
} from "@kubekit/cluster";
import { hasKubectl } from "../../support/kubectl.js";
import { useServer } from "../../support/server-test-helpers.js";

const NAMESPACE = "webhook-test";

const crd: CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: ["v1beta1", "v1"].map((name) => ({
      name,
      served: true,
      storage: name === "v1",
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      },
    })),
    conversion: {
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: { service: { namespace: "system", name: "webhooks", path: "/convert" } },
      },
    },
  },
};

describe("a WebhookServer called by the embedded API server", () => {
  const harness = useServer();
  let dir: string;
  let certificates: WebhookCertificates;
  let webhooks: WebhookServer;
  const warnings: string[] = [];
  let clientset: Clientset;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "webhook-integration-"));
    certificates = await generateWebhookCertificates({ certDir: dir });
    webhooks = new WebhookServer({
      port: 0,
      certDir: dir,
      logger: noopLogger,
      metricFactory: new PrometheusMetricFactory({ registry: new Registry() }),
    });
    webhooks.register(
      "/validate-v1-configmap",
      validatingWebhookFor<ConfigMap>({
        validateCreate(configMap) {
          if (configMap.data?.["mode"] === "unsafe") throw new Error("mode unsafe is not allowed");
          return configMap.data?.["mode"] === "legacy" ? ["mode legacy is deprecated"] : [];
        },
      }),
    );
    webhooks.register(
      "/mutate-v1-configmap",
      mutatingWebhookFor<ConfigMap>({
        default(configMap) {
          configMap.metadata = {
            ...configMap.metadata,
            labels: { ...configMap.metadata?.labels, "example.com/defaulted": "true" },
          };
        },
      }),
    );
    webhooks.register(
      "/convert",
      conversionWebhook({
        hub: "example.com/v1",
        spokes: {
          "example.com/v1beta1": {
            toHub: ({ spec, ...rest }) => {
              const { size, ...others } = spec as JsonObject;
              return { ...rest, spec: { ...others, replicas: size ?? 1 } };
            },
            fromHub: ({ spec, ...rest }) => {
              const { replicas, ...others } = spec as JsonObject;
              return { ...rest, spec: { ...others, size: replicas ?? 1 } };
            },
          },
        },
      }),
    );
    await webhooks.start();
    const baseUrl = `https://127.0.0.1:${webhooks.port}`;
    const { server } = harness;
    const rules = [
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["configmaps"],
      },
    ];
    const namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": NAMESPACE } };
    const webhook = (name: string, path: string) => ({
      name,
      rules,
      namespaceSelector,
      clientConfig: { service: { namespace: "system", name: "webhooks", path } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      failurePolicy: "Fail",
    });
    await installWebhooks({
      server,
      ca: certificates.caPem,
      baseUrl,
      validating: [
        {
          metadata: { name: "configmap-validation" },
          webhooks: [webhook("validate.configmaps.example.com", "/validate-v1-configmap")],
        },
      ],
      mutating: [
        {
          metadata: { name: "configmap-defaulting" },
          webhooks: [webhook("default.configmaps.example.com", "/mutate-v1-configmap")],
        },
      ],
    });
    await installCrds({ server, crds: [withCaBundle(crd, certificates.caPem, { baseUrl })] });
    clientset = new Clientset(server.kubeConfig().restConfig(), {
      warningHandler: (warning: Warning) => warnings.push(warning.text),
    });
    await clientset.coreV1.namespaces().create({ metadata: { name: NAMESPACE } });
  });

  afterAll(async () => {
    await clientset?.restClient.transport.close();
    await webhooks?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const configMap = (name: string, mode: string, namespace = NAMESPACE): ConfigMap => ({
    metadata: { name, namespace },
    data: { mode },
  });

  it("denies with kube's wording for the validating webhook's error", async () => {
    const error = await clientset.coreV1
      .configMaps(NAMESPACE)
      .create(configMap("unsafe", "unsafe"))
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(403);
    expect((error as StatusError).message).toBe(
      'admission webhook "validate.configmaps.example.com" denied the request: mode unsafe is not allowed',
    );
    await expect(clientset.coreV1.configMaps(NAMESPACE).get("unsafe")).rejects.toThrow(/not found/);
  });

  it("stores the mutated object and passes the warnings back", async () => {
    const created = await clientset.coreV1
      .configMaps(NAMESPACE)
      .create(configMap("legacy", "legacy"));
    expect(created.metadata?.labels).toEqual({ "example.com/defaulted": "true" });
    expect(warnings).toContain("mode legacy is deprecated");
    const outside = await clientset.coreV1
      .configMaps("default")
      .create(configMap("outside", "unsafe", "default"));
    expect(outside.metadata?.labels).toBeUndefined();
  });

  it.skipIf(!hasKubectl)("shows kubectl apply the denial and the warnings", async () => {
    const kubeconfig = join(dir, "kubeconfig");
    await harness.server.writeKubeconfig(kubeconfig);
    const manifest = join(dir, "configmaps.json");
    const items = [configMap("kubectl-unsafe", "unsafe"), configMap("kubectl-legacy", "legacy")];
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: items.map((item) => ({ apiVersion: "v1", kind: "ConfigMap", ...item })),
      }),
    );
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          "kubectl",
          ["--kubeconfig", kubeconfig, "apply", "-f", manifest],
          { timeout: 30_000 },
          (error, stdout, stderr) =>
            resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr }),
        );
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'admission webhook "validate.configmaps.example.com" denied the request: mode unsafe is not allowed',
    );
    expect(result.stdout).toBe("configmap/kubectl-legacy created\n");
    expect(result.stderr).toContain("Warning: mode legacy is deprecated");
  });

  it("converts a custom resource written at v1beta1 when read at v1, and back", async () => {
    const dynamic = new DynamicClient(harness.server.kubeConfig().restConfig());
    const widgets = (version: string) =>
      dynamic.resource({ group: "example.com", version, resource: "widgets" }).namespace(NAMESPACE);
    try {
      await widgets("v1beta1").create({
        apiVersion: "example.com/v1beta1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { size: 3, color: "red" },
      });
      const asV1 = await widgets("v1").get("w");
      expect(asV1).toMatchObject({
        apiVersion: "example.com/v1",
        spec: { replicas: 3, color: "red" },
      });
      const asV1beta1 = await widgets("v1beta1").get("w");
      expect(asV1beta1).toMatchObject({
        apiVersion: "example.com/v1beta1",
        spec: { size: 3, color: "red" },
      });
    } finally {
      await dynamic.restClient.transport.close();
    }
  });
});
