import { randomBytes, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type * as X509 from "@peculiar/x509";
import { loadX509 } from "./x509-module.js";
import type { X509Module } from "./x509-module.js";

/** A PEM certificate and its private key. */
export interface PemKeyPair {
  /** One `-----BEGIN CERTIFICATE-----` block, ending with a newline. */
  readonly certPem: string;
  /** The private key as unencrypted PKCS#8 (`-----BEGIN PRIVATE KEY-----`), ending with a newline. */
  readonly keyPem: string;
}

/** Options of {@link CertificateAuthority.issueServing}. */
export interface ServingCertificateOptions {
  /** DNS subject alternative names, e.g. `["localhost"]`. */
  readonly dnsNames: readonly string[];
  /** IP subject alternative names (IPv4 or IPv6), e.g. `["127.0.0.1"]`; encoded as iPAddress entries. */
  readonly ipAddresses: readonly string[];
}

/** Options of {@link CertificateAuthority.issueClient}. */
export interface ClientCertificateOptions {
  /** The user name, written as the subject's CN. */
  readonly user: string;
  /** The user's groups, each written as one subject O value (in the order given). */
  readonly groups?: readonly string[];
}

/** A certificate authority that can sign serving and client certificates. */
export interface CertificateAuthority {
  /** The CA certificate (trust anchor) and its key. */
  readonly ca: PemKeyPair;
  /** A serving certificate for the given DNS names and IPs (SANs), e.g. ["localhost"], ["127.0.0.1"]; extKeyUsage serverAuth. */
  issueServing(options: ServingCertificateOptions): Promise<PemKeyPair>;
  /** A client certificate: CN = user name, O = each group (Kubernetes x509 client-cert authentication convention); extKeyUsage clientAuth. */
  issueClient(options: ClientCertificateOptions): Promise<PemKeyPair>;
}

/** Options of {@link createCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** Subject CN of the CA certificate; default `"kubekit-ca"`. */
  readonly commonName?: string;
  /** Validity of the CA and of every certificate it issues, in days; default 365. */
  readonly validityDays?: number;
}

const DEFAULT_CA_COMMON_NAME = "kubekit-ca";
const DEFAULT_VALIDITY_DAYS = 365;
/** Subject CN of serving certificates (kubeadm's name for the API server's certificate); clients match SANs, not the CN. */
const SERVING_COMMON_NAME = "kube-apiserver";
/** Certificates start being valid this long before they are made, to tolerate clock skew. */
const BACKDATE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Serial numbers carry 16 random bytes (about 127 bits of entropy). */
const SERIAL_NUMBER_BYTES = 16;

const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING_ALGORITHM = { name: "ECDSA", hash: "SHA-256" } as const;

/** Node's WebCrypto, passed explicitly to `@peculiar/x509` rather than through its global provider. */
const crypto = webcrypto;

/**
 * Creates a fresh certificate authority: a new ECDSA P-256 key and a
 * self-signed CA certificate (basicConstraints CA:TRUE critical, keyUsage
 * keyCertSign + cRLSign + digitalSignature critical, subject key identifier).
 *
 * Guarantees, for the CA and for every certificate it issues: keys are ECDSA
 * P-256 and signatures ECDSA with SHA-256; serial numbers are random and
 * positive (encoded in 16 bytes, first byte in 0x01..0x7f); validity starts one
 * minute in the past and lasts `validityDays`, never beyond the CA's own end.
 * Issued certificates carry basicConstraints CA:FALSE, keyUsage digitalSignature,
 * the matching extKeyUsage and an authority key identifier naming the CA key.
 * These are what Node's `tls` and Go's crypto/x509 (kubectl) require.
 *
 * Caveats: everything lives in memory only and the private keys are exported
 * unencrypted; this is meant for test servers, not for production PKI.
 *
 * @throws TypeError when `validityDays` is not a positive finite number or `commonName` is empty.
 */
export async function createCertificateAuthority(
  options: CertificateAuthorityOptions = {},
): Promise<CertificateAuthority> {
  const commonName = options.commonName ?? DEFAULT_CA_COMMON_NAME;
  const validityDays = options.validityDays ?? DEFAULT_VALIDITY_DAYS;
  if (commonName.length === 0)
    throw new TypeError("certificate authority commonName must not be empty");
  if (!Number.isFinite(validityDays) || validityDays <= 0) {
    throw new TypeError(`validityDays must be a positive number, got ${validityDays}`);
  }
  const x509 = await loadX509();
  const keys = await generateKeyPair();
  const now = Date.now();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerialNumber(),
      name: [{ CN: [commonName] }],
      keys,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + validityDays * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign |
            x509.KeyUsageFlags.cRLSign |
            x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const ca: PemKeyPair = {
    certPem: certificatePem(caCert),
    keyPem: await privateKeyPem(x509, keys.privateKey),
  };
  const issuer: Issuer = { x509, cert: caCert, privateKey: keys.privateKey, validityDays };

  return {
    ca,
    async issueServing(serving) {
      const sans = servingSubjectAlternativeNames(serving);
      return issue(
        issuer,
        [{ CN: [SERVING_COMMON_NAME] }],
        [
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(sans),
        ],
      );
    },
    async issueClient(client) {
      return issue(issuer, clientSubject(client), [
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      ]);
    },
  };
}

/** What signing a certificate needs from the CA. */
interface Issuer {
  readonly x509: X509Module;
  readonly cert: X509.X509Certificate;
  readonly privateKey: webcrypto.CryptoKey;
  readonly validityDays: number;
}

/** Signs a new leaf certificate for a fresh key with the common leaf extensions plus `extensions`. */
async function issue(
  issuer: Issuer,
  subject: X509.JsonName,
  extensions: X509.Extension[],
): Promise<PemKeyPair> {
  const { x509 } = issuer;
  const keys = await generateKeyPair();
  const now = Date.now();
  const notAfter = Math.min(now + issuer.validityDays * DAY_MS, issuer.cert.notAfter.getTime());
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject,
      issuer: issuer.cert.subjectName,
      publicKey: keys.publicKey,
      signingKey: issuer.privateKey,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(notAfter),
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        ...extensions,
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(issuer.cert.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certPem: certificatePem(cert), keyPem: await privateKeyPem(x509, keys.privateKey) };
}

/** Validates the SANs of a serving certificate and turns them into general names. */
function servingSubjectAlternativeNames(options: ServingCertificateOptions): X509.JsonGeneralNames {
  if (options.dnsNames.length === 0 && options.ipAddresses.length === 0) {
    throw new TypeError("a serving certificate needs at least one DNS name or IP address");
  }
  const names: X509.JsonGeneralNames = [];
  for (const dns of options.dnsNames) {
    if (dns.length === 0 || /\s/.test(dns))
      throw new TypeError(`invalid DNS name ${JSON.stringify(dns)}`);
    names.push({ type: "dns", value: dns });
  }
  for (const ip of options.ipAddresses) {
    if (isIP(ip) === 0) throw new TypeError(`invalid IP address ${JSON.stringify(ip)}`);
    names.push({ type: "ip", value: ip });
  }
  return names;
}

/** The subject of a client certificate: one RDN holding every group as O, then CN = user. */
function clientSubject(options: ClientCertificateOptions): X509.JsonName {
  if (options.user.length === 0)
    throw new TypeError("a client certificate needs a non-empty user name");
  const groups = options.groups ?? [];
  if (groups.some((group) => group.length === 0))
    throw new TypeError("client certificate groups must not be empty");
  return groups.length === 0
    ? [{ CN: [options.user] }]
    : [{ O: [...groups] }, { CN: [options.user] }];
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
}

/** A random positive serial number as hex; the first byte is 0x01..0x7f so the DER INTEGER is positive and minimal. */
function randomSerialNumber(): string {
  const bytes = randomBytes(SERIAL_NUMBER_BYTES);
  bytes.writeUInt8(bytes.readUInt8(0) & 0x7f || 0x01, 0);
  return bytes.toString("hex");
}

function certificatePem(cert: X509.X509Certificate): string {
  return `${cert.toString("pem")}\n`;
}

async function privateKeyPem(x509: X509Module, key: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", key);
  return `${x509.PemConverter.encode(pkcs8, "PRIVATE KEY")}\n`;
}
