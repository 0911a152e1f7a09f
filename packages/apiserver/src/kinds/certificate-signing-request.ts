/**
 * certificates.k8s.io/v1 CertificateSigningRequests
 * (`pkg/registry/certificates/certificates/strategy.go`): `spec.signerName` is a selectable
 * field; nothing else is checked here.
 *
 * @kind CertificateSigningRequest
 */
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The CertificateSigningRequest strategy. */
export const certificateSigningRequestStrategy: KindStrategy = {
  policy: { selectableFields: selectableFields("spec.signerName") },
};
