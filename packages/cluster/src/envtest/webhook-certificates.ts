/**
 * Certificates for a webhook server under test (envtest's `WebhookInstallOptions.setupCA`,
 * `pkg/envtest/webhook.go`: a CA, a serving certificate for the local host, written as
 * `tls.crt`/`tls.key` in a directory the webhook server reads).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createCertificateAuthority } from "@kubekit/apiserver";

/** Options of {@link generateWebhookCertificates}. */
export interface WebhookCertificateOptions {
  /** DNS names of the serving certificate besides `localhost` (e.g. `my-webhook.my-ns.svc`). */
  readonly dnsNames?: readonly string[];
  /** IP addresses besides `127.0.0.1` and `::1`. */
  readonly ipAddresses?: readonly string[];
  /**
   * A directory to write the certificate (`tls.crt`), its key (`tls.key`, mode 0600) and the
   * CA (`ca.crt`) into, created if missing; what `WebhookServer`'s `certDir` reads.
   */
  readonly certDir?: string;
  /** Validity of the CA and of the certificate, in days (default 365). */
  readonly validityDays?: number;
}

/** A CA and a serving certificate it signed. */
export interface WebhookCertificates {
  /** The CA certificate (PEM): what a client trusts. */
  readonly caPem: string;
  /** The CA certificate as a webhook configuration's `clientConfig.caBundle` (base64 of the PEM). */
  readonly caBundle: string;
  /** The serving certificate (PEM); its SANs are `localhost`, `127.0.0.1`, `::1` and those asked for. */
  readonly certPem: string;
  /** The serving certificate's private key (PKCS#8 PEM). */
  readonly keyPem: string;
  /** The directory written, when `certDir` was given. */
  readonly certDir?: string;
  /** `<certDir>/tls.crt`, when `certDir` was given. */
  readonly certFile?: string;
  /** `<certDir>/tls.key`, when `certDir` was given. */
  readonly keyFile?: string;
}

/**
 * Generates a fresh CA (ECDSA P-256) and a serving certificate for the local host and the
 * names asked for, and writes them into `certDir` when given, so that a test of a webhook
 * needs no certificate tooling.
 *
 * Caveat: the keys are unencrypted and the CA is new at each call: for tests only.
 *
 * @throws {TypeError} for an invalid DNS name, IP address or validity.
 * @example
 * A webhook server on a free port with generated certificates:
 *
 * ```ts
 * import { mkdtemp } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { WebhookServer } from "kubekit";
 * import { generateWebhookCertificates } from "@kubekit/cluster";
 *
 * const certDir = await mkdtemp(join(tmpdir(), "webhook-certs-"));
 * const certificates = await generateWebhookCertificates({ certDir });
 * const server = new WebhookServer({ port: 0, certDir });
 * await server.start();
 * console.log(`https://127.0.0.1:${server.port}`, certificates.caBundle.length);
 * await server.stop();
 * ```
 */
export async function generateWebhookCertificates(
  options: WebhookCertificateOptions = {},
): Promise<WebhookCertificates> {
  const authority = await createCertificateAuthority({
    commonName: "kubekit-webhook-ca",
    ...(options.validityDays !== undefined ? { validityDays: options.validityDays } : {}),
  });
  const serving = await authority.issueServing({
    dnsNames: ["localhost", ...(options.dnsNames ?? [])],
    ipAddresses: ["127.0.0.1", "::1", ...(options.ipAddresses ?? [])],
  });
  const certificates = {
    caPem: authority.ca.certPem,
    caBundle: Buffer.from(authority.ca.certPem).toString("base64"),
    certPem: serving.certPem,
    keyPem: serving.keyPem,
  };
  const { certDir } = options;
  if (certDir === undefined) return certificates;
  await mkdir(certDir, { recursive: true });
  const certFile = join(certDir, "tls.crt");
  const keyFile = join(certDir, "tls.key");
  await writeFile(join(certDir, "ca.crt"), certificates.caPem);
  await writeFile(keyFile, certificates.keyPem, { mode: 0o600 });
  await writeFile(certFile, certificates.certPem);
  return { ...certificates, certDir, certFile, keyFile };
}
