/**
 * The signing half of kube-controller-manager's csrsigning controller
 * (`pkg/controller/certificates/signer/signer.go`, `authority/authority.go`) for the
 * kube-apiserver client signers: the CSR's signer rules are checked, then a certificate for
 * the CSR's public key and subject is issued from the server's CA.
 */
import { randomBytes, webcrypto } from "node:crypto";
import type * as X509 from "@peculiar/x509";
import type { PemKeyPair } from "../auth/certificates.js";
import { loadX509 } from "../auth/x509-module.js";

/** `kubernetes.io/kube-apiserver-client`: client certificates for any user. */
export const KUBE_APISERVER_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client";
/** `kubernetes.io/kube-apiserver-client-kubelet`: kubelets' client certificates (`system:node:*`). */
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

/** The signers {@link signCertificateRequest} serves. */
export const SUPPORTED_SIGNERS: readonly string[] = [
  KUBE_APISERVER_CLIENT_SIGNER,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
];

/** What a CertificateSigningRequest's spec says about the certificate to issue. */
export interface CertificateSigningOptions {
  /** `spec.signerName`: `kubernetes.io/kube-apiserver-client` or `kubernetes.io/kube-apiserver-client-kubelet`. */
  readonly signerName: string;
  /** `spec.usages` (kube's key usage names: `client auth`, `digital signature`, `key encipherment`). */
  readonly usages: readonly string[];
  /** `spec.expirationSeconds`: the requested validity (at least 600 s; at most the signer's one year). */
  readonly expirationSeconds?: number;
}

/**
 * A request the signer refuses (bad PEM, bad signature, usages or subject its signer does
 * not allow); the message is kube's, recorded as the CSR's `Failed` condition.
 */
export class CertificateSigningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CertificateSigningError";
  }
}

/** kube-controller-manager's `--cluster-signing-duration` default: one year. */
const SIGNING_DURATION_MS = 365 * 24 * 3600 * 1000;
/** The shortest `expirationSeconds` honoured (kube's 10 minutes). */
const MIN_EXPIRATION_SECONDS = 600;
/** Certificates start this long in the past (kube's `backdate`, 5 minutes). */
const BACKDATE_MS = 5 * 60 * 1000;
const SIGNING_ALGORITHM = { name: "ECDSA", hash: "SHA-256" } as const;
const crypto = webcrypto;

/** `validAPIServerClientUsages`: `client auth` required, `digital signature` and `key encipherment` optional. */
function checkClientUsages(usages: readonly string[]): void {
  for (const usage of usages) {
    if (!["digital signature", "key encipherment", "client auth"].includes(usage)) {
      throw new CertificateSigningError(`invalid usage for client certificate: ${usage}`);
    }
  }
  if (!usages.includes("client auth")) {
    throw new CertificateSigningError("missing required usage for client certificate: client auth");
  }
}

/** `ValidateKubeletClientCSR`: O system:nodes, no SANs, CN system:node:*, kubelet client usages. */
function checkKubeletClient(
  x509: typeof X509,
  csr: X509.Pkcs10CertificateRequest,
  usages: readonly string[],
): void {
  const organizations = csr.subjectName.getField("O");
  if (organizations.length !== 1 || organizations[0] !== "system:nodes") {
    throw new CertificateSigningError("subject organization is not system:nodes");
  }
  const san = csr.getExtension("2.5.29.17");
  const names = san ? new x509.SubjectAlternativeNameExtension(san.rawData).names.toJSON() : [];
  const wording: Record<string, string> = { dns: "DNS", email: "Email", ip: "IP", url: "URI" };
  for (const type of ["dns", "email", "ip", "url"]) {
    if (names.some((n) => n.type === type)) {
      throw new CertificateSigningError(`${wording[type]} subjectAltNames are not allowed`);
    }
  }
  if (!(csr.subjectName.getField("CN")[0] ?? "").startsWith("system:node:")) {
    throw new CertificateSigningError("subject common name does not begin with system:node:");
  }
  const set = [...new Set(usages)].sort().join(",");
  if (
    set !== "client auth,digital signature" &&
    set !== "client auth,digital signature,key encipherment"
  ) {
    throw new CertificateSigningError(
      "usages did not match [client auth digital signature key encipherment]",
    );
  }
}

/** The key usage bits and extended key usages of kube's usage names (`keyUsagesFromStrings`). */
function usageExtensions(x509: typeof X509, usages: readonly string[]): X509.Extension[] {
  let bits = 0;
  if (usages.includes("digital signature")) bits |= x509.KeyUsageFlags.digitalSignature;
  if (usages.includes("key encipherment")) bits |= x509.KeyUsageFlags.keyEncipherment;
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ];
  if (bits !== 0) extensions.push(new x509.KeyUsagesExtension(bits, true));
  return extensions;
}

/**
 * Issues the certificate a CertificateSigningRequest asks for, signed by `ca`: the CSR's
 * subject and subject alternative names, its public key, the usages' key usage bits and
 * `clientAuth`, valid from 5 minutes ago for `expirationSeconds` (raised to 600, capped at one
 * year and at the CA's own end). Dates are real time (the certificate is verified by TLS
 * peers, which use the real clock).
 *
 * @returns the certificate as one PEM block ending with a newline.
 * @throws {CertificateSigningError} for an unsupported signer, a request that is not a
 *   PEM `CERTIFICATE REQUEST` with a valid signature, or usages and a subject the signer
 *   does not allow (kube's messages).
 */
export async function signCertificateRequest(
  ca: PemKeyPair,
  csrPem: string,
  options: CertificateSigningOptions,
): Promise<string> {
  if (!SUPPORTED_SIGNERS.includes(options.signerName)) {
    throw new CertificateSigningError(`unsupported signer ${JSON.stringify(options.signerName)}`);
  }
  const x509 = await loadX509();
  let csr: X509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw new CertificateSigningError("PEM block type must be CERTIFICATE REQUEST");
  }
  if (!(await csr.verify(crypto))) {
    throw new CertificateSigningError("x509: ECDSA verification failure");
  }
  if (options.signerName === KUBE_APISERVER_CLIENT_KUBELET_SIGNER) {
    checkKubeletClient(x509, csr, options.usages);
  } else {
    checkClientUsages(options.usages);
  }
  const caCert = new x509.X509Certificate(ca.certPem);
  const signingKey = await crypto.subtle.importKey(
    "pkcs8",
    x509.PemConverter.decodeFirst(ca.keyPem),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const seconds = Math.max(
    MIN_EXPIRATION_SECONDS,
    options.expirationSeconds ?? SIGNING_DURATION_MS / 1000,
  );
  const now = Date.now();
  const notAfter = Math.min(
    now + Math.min(seconds * 1000, SIGNING_DURATION_MS),
    caCert.notAfter.getTime(),
  );
  const serial = randomBytes(16);
  serial.writeUInt8(serial.readUInt8(0) & 0x7f || 0x01, 0);
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial.toString("hex"),
      subject: csr.subjectName,
      issuer: caCert.subjectName,
      publicKey: csr.publicKey,
      signingKey,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(notAfter),
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        ...usageExtensions(x509, options.usages),
        ...csr.getExtensions("2.5.29.17"),
        await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return `${cert.toString("pem")}\n`;
}
