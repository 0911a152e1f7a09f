import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import { ApiServer } from "@kubekit/apiserver";

describe("ApiServer.kubeConfig()", () => {
  let tokenServer: ApiServer;
  let certServer: ApiServer;

  beforeAll(async () => {
    tokenServer = await ApiServer.start({
      tls: true,
      auth: { tokens: { "s3cret-token": "admin" } },
    });
    certServer = await ApiServer.start({ tls: true, auth: { clientCertificates: true } });
  });

  afterAll(async () => {
    await tokenServer.stop();
    await certServer.stop();
  });

  it("gives a KubeConfig whose RestConfig reaches the server with its token over TLS", async () => {
    const kc = tokenServer.kubeConfig({ namespace: "kube-system" });
    expect(kc.namespace).toBe("kube-system");
    const rc = kc.restConfig();
    expect(rc.host).toBe(tokenServer.url);
    expect(rc.tls.caPem).toBe(tokenServer.caPem);
    const res = await new RESTClient(rc)
      .get()
      .absPath("/api/v1/namespaces/default")
      .do<{ metadata: { name: string } }>();
    expect(res.body.metadata.name).toBe("default");
    expect(String(kc)).not.toContain("s3cret-token");
  });

  it("uses the admin client certificate when the server authenticates by certificate", async () => {
    const rc = certServer.kubeConfig().restConfig();
    expect(rc.tls.certPem).toContain("BEGIN CERTIFICATE");
    const res = await new RESTClient(rc)
      .get()
      .absPath("/api/v1/namespaces")
      .do<{ items: unknown[] }>();
    expect(res.body.items.length).toBeGreaterThanOrEqual(4);
  });
});
