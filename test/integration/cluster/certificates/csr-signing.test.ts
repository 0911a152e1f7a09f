import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.js";
import { X509Certificate } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { Clientset, NoCredentials } from "kubekit";
import { ApiClient } from "../../../support/api-client.js";
import { createCertificateRequest } from "../../../support/certificate-request.js";
import { eventually, useServer } from "../../../support/server-test-helpers.js";

/**
 * CertificateSigningRequests over real HTTP: the approval and status subresources with kube's
 * rules, and the simulated csrsigning controller issuing client certificates from the
 * server's CA that then authenticate to the server.
 */

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

async function csrBody(
  name: string,
  subject: string,
  spec: Partial<CertificateSigningRequest["spec"]> = {},
): Promise<{ body: CertificateSigningRequest; keyPem: string }> {
  const { csrPem, keyPem } = await createCertificateRequest(subject);
  return {
    keyPem,
    body: {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: {
        request: Buffer.from(csrPem).toString("base64"),
        signerName: "kubernetes.io/kube-apiserver-client",
        usages: ["client auth"],
        ...spec,
      },
    },
  };
}

function approved(csr: CertificateSigningRequest, type = "Approved"): CertificateSigningRequest {
  return {
    ...csr,
    status: {
      conditions: [
        ...(csr.status?.conditions ?? []),
        { type, status: "True", reason: "Test", message: "by the test" },
      ],
    },
  };
}

describe("certificate signing requests", () => {
  const h = useServer({
    tls: true,
    auth: {
      tokens: { "admin-token": { name: "admin", groups: ["system:masters"] } },
      clientCertificates: true,
    },
    cluster: { nodes: 1, controllers: ["csrsigning"] },
  });
  const client = (): Clientset => new Clientset(h.server.kubeConfig().restConfig());
  let adminClient: ApiClient | undefined;
  const admin = (): ApiClient =>
    (adminClient ??= ApiClient.for(h.server, { token: "admin-token" }));
  afterAll(() => adminClient?.close());

  it("lists approval and status in discovery and keeps spec and status out of main writes", async () => {
    const discovery = await admin().get("/apis/certificates.k8s.io/v1");
    const names = (discovery.json.resources as { name: string }[]).map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "certificatesigningrequests",
        "certificatesigningrequests/approval",
        "certificatesigningrequests/status",
      ]),
    );
    const { body } = await csrBody("main-write", "CN=bob");
    const created = await admin().post(CSRS, approved(body));
    expect(created.status).toBe(201);
    // PrepareForCreate: no pre-approved requests.
    expect(created.json.status?.conditions).toBeUndefined();
    const put = await admin().put(`${CSRS}/main-write`, approved(created.json));
    expect(put.status).toBe(200);
    expect(put.json.status?.conditions).toBeUndefined();
    const status = await admin().put(`${CSRS}/main-write/status`, approved(created.json));
    expect(status.status).toBe(422);
    expect(status.json.message).toContain('updates may not add a condition of type "Approved"');
  });

  it("validates approval conditions: exclusive, unique, True", async () => {
    const { body } = await csrBody("rules", "CN=carol");
    const created = (await admin().post(CSRS, body)).json as CertificateSigningRequest;
    const both = await admin().put(`${CSRS}/rules/approval`, approved(approved(created), "Denied"));
    expect(both.status).toBe(422);
    expect(both.json.message).toContain("Approved and Denied conditions are mutually exclusive");
    const twice = await admin().put(`${CSRS}/rules/approval`, approved(approved(created)));
    expect(twice.json.message).toContain('status.conditions[1].type: Duplicate value: "Approved"');
    const notTrue = await admin().put(`${CSRS}/rules/approval`, {
      ...created,
      status: { conditions: [{ type: "Denied", status: "False" }] },
    });
    expect(notTrue.json.message).toContain(
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    );
    const denied = await admin().put(`${CSRS}/rules/approval`, approved(created, "Denied"));
    expect(denied.status).toBe(200);
    expect(denied.json.status.conditions[0]).toMatchObject({ type: "Denied", status: "True" });
    const removed = await admin().put(`${CSRS}/rules/approval`, {
      ...denied.json,
      status: { conditions: [] },
    });
    expect(removed.json.message).toContain('updates may not remove a condition of type "Denied"');
  });

  it("issues an approved client certificate from the server's CA that authenticates", async () => {
    const { body, keyPem } = await csrBody("alice", "CN=alice, O=dev", {
      expirationSeconds: 3600,
    });
    const cs = client();
    const created = await cs.certificatesV1.certificateSigningRequests().create(body);
    const approval = await admin().put(`${CSRS}/alice/approval`, approved(created));
    expect(approval.status).toBe(200);
    const issued = await eventually("certificate", async () => {
      const got = await cs.certificatesV1.certificateSigningRequests().get("alice");
      return got.status?.certificate ? got : undefined;
    });
    const certPem = Buffer.from(issued.status?.certificate ?? "", "base64").toString("utf8");
    const cert = new X509Certificate(certPem);
    expect(cert.subject).toBe("CN=alice\nO=dev");
    expect(cert.checkIssued(new X509Certificate(h.server.caPem ?? ""))).toBe(true);
    const lifetime = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    // 3600 s requested, backdated 5 minutes (second precision).
    expect(lifetime).toBe((3600 + 300) * 1000);
    const adminConfig = h.server.kubeConfig().restConfig();
    const asAlice = new Clientset({
      ...adminConfig,
      credentials: new NoCredentials(),
      tls: { ...adminConfig.tls, certPem, keyPem },
    });
    const review = await asAlice.authenticationV1.selfSubjectReviews().create({});
    expect(review.status?.userInfo).toMatchObject({
      username: "alice",
      groups: expect.arrayContaining(["dev"]),
    });
  });

  it("fails requests whose usages the signer does not allow, and ignores denied ones", async () => {
    const cs = client();
    const { body } = await csrBody("server-usage", "CN=dave", {
      usages: ["client auth", "server auth"],
    });
    const created = await cs.certificatesV1.certificateSigningRequests().create(body);
    await admin().put(`${CSRS}/server-usage/approval`, approved(created));
    const failed = await eventually("Failed condition", async () => {
      const got = await cs.certificatesV1.certificateSigningRequests().get("server-usage");
      return got.status?.conditions?.find((c) => c.type === "Failed");
    });
    expect(failed).toMatchObject({
      status: "True",
      reason: "SignerValidationFailure",
      message: "invalid usage for client certificate: server auth",
    });
    const kubelet = await csrBody("kubelet", "CN=eve", {
      signerName: "kubernetes.io/kube-apiserver-client-kubelet",
      usages: ["digital signature", "client auth"],
    });
    const made = await cs.certificatesV1.certificateSigningRequests().create(kubelet.body);
    await admin().put(`${CSRS}/kubelet/approval`, approved(made));
    const refused = await eventually("kubelet Failed condition", async () => {
      const got = await cs.certificatesV1.certificateSigningRequests().get("kubelet");
      return got.status?.conditions?.find((c) => c.type === "Failed");
    });
    expect(refused.message).toBe("subject organization is not system:nodes");
  });
});
