import { webcrypto } from "node:crypto";
import { loadX509 } from "../../packages/apiserver/src/auth/x509-module.js";

/** A fresh ECDSA P-256 key and a PKCS#10 request for it, both PEM. */
export interface CertificateRequestPem {
  readonly csrPem: string;
  readonly keyPem: string;
}

/**
 * Generates a key and a certificate signing request for `subject` (e.g. `CN=alice, O=dev`)
 * with @peculiar/x509 (no openssl), optionally with DNS subject alternative names.
 */
export async function createCertificateRequest(
  subject: string,
  dnsNames: readonly string[] = [],
): Promise<CertificateRequestPem> {
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: subject,
      keys,
      signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
      extensions:
        dnsNames.length > 0
          ? [
              new x509.SubjectAlternativeNameExtension(
                dnsNames.map((value) => ({ type: "dns", value })),
              ),
            ]
          : [],
    },
    webcrypto,
  );
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return {
    csrPem: `${csr.toString("pem")}\n`,
    keyPem: `${x509.PemConverter.encode(pkcs8, "PRIVATE KEY")}\n`,
  };
}
