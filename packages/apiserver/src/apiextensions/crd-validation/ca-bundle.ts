/**
 * A webhook's `caBundle` as kube-apiserver checks it (`ValidateCABundle` in k8s.io/apiserver
 * `pkg/util/webhook/validation.go`, through client-go's `rootCertPool`): the base64-decoded
 * bytes must hold at least one PEM CERTIFICATE block that parses (Go's `AppendCertsFromPEM`).
 */
import { X509Certificate } from "node:crypto";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** kube's error text for a bundle without a usable certificate. */
export const INVALID_CA_BUNDLE =
  "unable to load root certificates: unable to parse bytes as PEM block";

/** Whether the base64 `caBundle` holds at least one parsable PEM certificate. */
export function isValidCABundle(caBundle: string): boolean {
  const pem = Buffer.from(caBundle, "base64").toString("latin1");
  for (const match of pem.matchAll(PEM_CERTIFICATE)) {
    try {
      new X509Certificate(Buffer.from((match[1] ?? "").replace(/\s+/g, ""), "base64"));
      return true;
    } catch {
      // not a certificate: try the next block, as AppendCertsFromPEM does
    }
  }
  return false;
}
