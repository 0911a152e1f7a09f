/**
 * Webhooks as users deploy them: `kubekit serve` in one process, a WebhookServer process
 * (test/e2e/fixtures/webhook-server.mjs) in another with its certificate in a directory, and
 * the webhook configurations pointing at it with the CA as `caBundle`. The server calls the
 * defaulting webhook, then the validating one; a denial reaches the client in kube's words and
 * a warning as a `Warning` header; with the webhook process stopped, failurePolicy Fail refuses
 * writes and Ignore lets them through. SIGTERM stops the webhook process, which exits by itself.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Clientset, KubeConfig, isForbidden, isInternalError, type StatusError } from "kubekit";
import { generateWebhookCertificates } from "@kubekit/cluster";
import { runFixture, scratchDir, startServe } from "./support/child-process.js";

const CONFIGMAP_RULE = {
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["configmaps"],
};

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (err) {
    return err as StatusError;
  }
  throw new Error("expected the request to be refused");
}

describe("a webhook server process called by `kubekit serve`", () => {
  it("defaults and validates, and its failure policy applies once it stops", async () => {
    const dir = scratchDir();
    const certDir = join(dir, "certs");
    const certificates = await generateWebhookCertificates({ certDir });
    const serve = await startServe(join(dir, "kubeconfig"));
    const warnings: string[] = [];
    const cs = new Clientset(
      (await KubeConfig.load({ kubeconfig: serve.kubeconfig })).restConfig(),
      {
        warningHandler: (warning) => warnings.push(warning.text),
      },
    );
    const webhook = runFixture("webhook-server.mjs", { CERT_DIR: certDir });
    try {
      const port = await webhook.waitForLine("the webhook port", (line) =>
        line.startsWith("port ") ? Number(line.slice(5)) : undefined,
      );
      const clientConfig = (path: string) => ({
        url: `https://127.0.0.1:${port}${path}`,
        caBundle: certificates.caBundle,
      });
      await cs.admissionregistrationV1.mutatingWebhookConfigurations().create({
        metadata: { name: "defaults" },
        webhooks: [
          {
            name: "default.configmaps.example.com",
            clientConfig: clientConfig("/mutate-v1-configmap"),
            rules: [CONFIGMAP_RULE],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      });
      await cs.admissionregistrationV1.validatingWebhookConfigurations().create({
        metadata: { name: "validates" },
        webhooks: [
          {
            name: "validate.configmaps.example.com",
            clientConfig: clientConfig("/validate-v1-configmap"),
            rules: [CONFIGMAP_RULE],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            failurePolicy: "Fail",
          },
        ],
      });
      const configMaps = cs.coreV1.configMaps("default");

      const created = await configMaps.create({ metadata: { name: "small" }, data: { size: "3" } });
      expect(created.metadata?.labels).toEqual({ "defaulted-by": "webhook" });
      await configMaps.create({ metadata: { name: "unsized" } });
      expect(warnings).toContain("no size given: 1 assumed");
      const denied = await rejectionOf(
        configMaps.create({ metadata: { name: "big" }, data: { size: "11" } }),
      );
      expect(isForbidden(denied)).toBe(true);
      expect(denied.status.message).toBe(
        'admission webhook "validate.configmaps.example.com" denied the request: size 11 is above 10',
      );

      webhook.kill("SIGTERM");
      expect(await webhook.waitForExit(10_000), webhook.output()).toEqual({
        code: 0,
        signal: null,
      });
      expect(webhook.stdoutLines).toContain("stopped");

      // Nobody answers now: Fail refuses the write (500, as kube's "failed calling webhook").
      const refused = await rejectionOf(configMaps.create({ metadata: { name: "after-stop" } }));
      expect(isInternalError(refused)).toBe(true);
      expect(refused.status.message).toMatch(
        /^Internal error occurred: failed calling webhook "default\.configmaps\.example\.com": /,
      );
    } finally {
      webhook.kill("SIGKILL");
      await cs.restClient.transport.close();
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  }, 120_000);
});
