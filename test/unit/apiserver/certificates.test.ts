import { X509Certificate, createPrivateKey } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../../../packages/apiserver/src/auth/certificates.js";
import type {
  CertificateAuthority,
  PemKeyPair,
} from "../../../packages/apiserver/src/auth/certificates.js";
import { loadX509 } from "../../../packages/apiserver/src/auth/x509-module.js";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

let authority: CertificateAuthority;
let caCert: X509Certificate;
let serving: PemKeyPair;
let client: PemKeyPair;

beforeAll(async () => {
  authority = await createCertificateAuthority({ commonName: "test-ca" });
  caCert = new X509Certificate(authority.ca.certPem);
  serving = await authority.issueServing({
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1", "::1"],
  });
  client = await authority.issueClient({ user: "alice", groups: ["dev", "ops"] });
});

/** Whether the serial number is positive, that is the first DER content byte is below 0x80. */
function positiveSerial(cert: X509Certificate): boolean {
  return /^[0-7]/.test(cert.serialNumber) && cert.serialNumber.length === 32;
}

/** Whether the certificate's validity started about a minute ago. */
function backdated(cert: X509Certificate): boolean {
  const from = new Date(cert.validFrom).getTime();
  return from <= Date.now() - 55_000 && from >= Date.now() - 120_000;
}

describe("createCertificateAuthority", () => {
  it("makes a self-signed CA with the given CN, basicConstraints CA and keyCertSign, both critical", async () => {
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe("CN=test-ca");
    expect(caCert.issuer).toBe("CN=test-ca");
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(caCert.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const x509 = await loadX509();
    const parsed = new x509.X509Certificate(authority.ca.certPem);
    const basic = parsed.getExtension(x509.BasicConstraintsExtension);
    const usage = parsed.getExtension(x509.KeyUsagesExtension);
    expect(basic?.ca).toBe(true);
    expect(basic?.critical).toBe(true);
    expect(usage?.critical).toBe(true);
    expect((usage?.usages ?? 0) & x509.KeyUsageFlags.keyCertSign).not.toBe(0);
    expect(parsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId).toMatch(
      /^[0-9a-f]{40}$/,
    );
  });

  it("exports the CA key as PKCS#8 PEM matching the certificate", () => {
    expect(authority.ca.keyPem.startsWith("-----BEGIN PRIVATE KEY-----\n")).toBe(true);
    expect(authority.ca.keyPem.endsWith("-----END PRIVATE KEY-----\n")).toBe(true);
    expect(authority.ca.certPem.startsWith("-----BEGIN CERTIFICATE-----\n")).toBe(true);
    expect(authority.ca.certPem.endsWith("-----END CERTIFICATE-----\n")).toBe(true);
    expect(caCert.checkPrivateKey(createPrivateKey(authority.ca.keyPem))).toBe(true);
  });

  it("backdates validity by a minute and uses random positive serial numbers", () => {
    expect(backdated(caCert)).toBe(true);
    const serials = [authority.ca.certPem, serving.certPem, client.certPem].map(
      (pem) => new X509Certificate(pem),
    );
    for (const cert of serials) expect(positiveSerial(cert)).toBe(true);
    expect(new Set(serials.map((cert) => cert.serialNumber)).size).toBe(3);
  });

  it("defaults the CN to kubekit-ca and the validity to 365 days", async () => {
    const other = await createCertificateAuthority();
    const cert = new X509Certificate(other.ca.certPem);
    expect(cert.subject).toBe("CN=kubekit-ca");
    const days =
      (new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(365);
    expect(days).toBeLessThan(365.01);
    expect(cert.fingerprint256).not.toBe(caCert.fingerprint256);
  });

  it("never lets an issued certificate outlive its CA", async () => {
    const shortLived = await createCertificateAuthority({ validityDays: 1 });
    const leaf = new X509Certificate((await shortLived.issueClient({ user: "u" })).certPem);
    const ca = new X509Certificate(shortLived.ca.certPem);
    expect(new Date(leaf.validTo).getTime()).toBeLessThanOrEqual(new Date(ca.validTo).getTime());
  });

  it("rejects invalid options", async () => {
    await expect(createCertificateAuthority({ validityDays: 0 })).rejects.toThrow(TypeError);
    await expect(createCertificateAuthority({ validityDays: Number.NaN })).rejects.toThrow(
      TypeError,
    );
    await expect(createCertificateAuthority({ commonName: "" })).rejects.toThrow(TypeError);
  });
});

describe("issueServing", () => {
  it("is signed by the CA and is not a CA itself", () => {
    const cert = new X509Certificate(serving.certPem);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkPrivateKey(createPrivateKey(serving.keyPem))).toBe(true);
    expect(backdated(cert)).toBe(true);
  });

  it("carries the DNS and IP SANs (IPs as iPAddress entries) and serverAuth", () => {
    const cert = new X509Certificate(serving.certPem);
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.checkHost("example.com")).toBeUndefined();
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(cert.checkIP("::1")).toBe("::1");
    expect(cert.checkIP("127.0.0.2")).toBeUndefined();
    expect(cert.subjectAltName).toContain("IP Address:127.0.0.1");
    expect(cert.keyUsage).toEqual([SERVER_AUTH]);
  });

  it("names the CA key in its authority key identifier", async () => {
    const x509 = await loadX509();
    const ca = new x509.X509Certificate(authority.ca.certPem);
    const leaf = new x509.X509Certificate(serving.certPem);
    expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(
      ca.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
    );
    expect(leaf.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(false);
  });

  it("rejects a certificate without SANs and malformed names", async () => {
    await expect(authority.issueServing({ dnsNames: [], ipAddresses: [] })).rejects.toThrow(
      TypeError,
    );
    await expect(
      authority.issueServing({ dnsNames: [], ipAddresses: ["300.0.0.1"] }),
    ).rejects.toThrow(TypeError);
    await expect(
      authority.issueServing({ dnsNames: ["local host"], ipAddresses: [] }),
    ).rejects.toThrow(TypeError);
    await expect(authority.issueServing({ dnsNames: [""], ipAddresses: [] })).rejects.toThrow(
      TypeError,
    );
  });
});

describe("issueClient", () => {
  it("puts the user in CN and each group in O, with clientAuth", () => {
    const cert = new X509Certificate(client.certPem);
    expect(cert.subject.split("\n")).toEqual(["O=dev + O=ops", "CN=alice"]);
    expect(cert.keyUsage).toEqual([CLIENT_AUTH]);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(client.keyPem))).toBe(true);
  });

  it("omits O when there are no groups and keeps special characters in names", async () => {
    const noGroups = new X509Certificate(
      (await authority.issueClient({ user: "system:node:n1" })).certPem,
    );
    expect(noGroups.subject).toBe("CN=system:node:n1");
    const special = new X509Certificate(
      (await authority.issueClient({ user: "a, b=c", groups: ["x+y"] })).certPem,
    );
    expect(special.subject).toBe("O=x\\+y\nCN=a\\, b=c");
  });

  it("rejects an empty user or group", async () => {
    await expect(authority.issueClient({ user: "" })).rejects.toThrow(TypeError);
    await expect(authority.issueClient({ user: "u", groups: [""] })).rejects.toThrow(TypeError);
  });
});
