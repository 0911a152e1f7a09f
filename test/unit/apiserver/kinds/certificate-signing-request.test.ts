import { describe, expect, it } from "vitest";
import { certificateSigningRequestStrategy } from "../../../../packages/apiserver/src/kinds/certificate-signing-request.js";
import { definedHooks } from "./kind-test-helpers.js";

/** certificates.k8s.io/v1 CertificateSigningRequests (`pkg/registry/certificates/certificates/strategy.go`). */

describe("CertificateSigningRequest", () => {
  it("selects by spec.signerName and has no write hooks of its own", () => {
    const fields = certificateSigningRequestStrategy.policy?.selectableFields ?? {};
    expect(Object.keys(fields)).toEqual(["spec.signerName"]);
    expect(
      fields["spec.signerName"]?.({ spec: { signerName: "kubernetes.io/kube-apiserver-client" } }),
    ).toBe("kubernetes.io/kube-apiserver-client");
    expect(fields["spec.signerName"]?.({})).toBe("");
    expect(definedHooks(certificateSigningRequestStrategy)).toEqual([]);
  });
});
