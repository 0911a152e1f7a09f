import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { certificateSigningRequestStrategy as csr } from "../../../../packages/apiserver/src/kinds/certificate-signing-request.js";

/**
 * certificates.k8s.io/v1 CertificateSigningRequests (`pkg/registry/certificates/certificates/strategy.go`,
 * `pkg/apis/certificates/validation/validation.go`).
 */

const REQUEST = Buffer.from(
  "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n",
).toString("base64");

function request(spec: JsonObject = {}, conditions?: JsonObject[]): JsonObject {
  return {
    metadata: { name: "r" },
    spec: {
      request: REQUEST,
      signerName: "kubernetes.io/kube-apiserver-client",
      usages: ["client auth"],
      ...spec,
    },
    ...(conditions ? { status: { conditions } } : {}),
  };
}

describe("CertificateSigningRequest", () => {
  it("selects by spec.signerName", () => {
    const fields = csr.policy?.selectableFields ?? {};
    expect(Object.keys(fields)).toEqual(["spec.signerName"]);
    expect(fields["spec.signerName"]?.(request())).toBe("kubernetes.io/kube-apiserver-client");
  });

  it("validates the request, usages, signer and expirationSeconds on create", () => {
    expect(csr.validateCreate?.(request())).toEqual([]);
    const errors = csr.validateCreate?.(
      request({
        request: "bm90IHBlbQ==",
        usages: ["client auth", "bogus", "client auth"],
        signerName: "",
        expirationSeconds: 60,
      }),
    );
    expect(errors?.map((e) => `${e.field}: ${e.type}`)).toEqual([
      "spec.request: FieldValueInvalid",
      "spec.usages[1]: FieldValueNotSupported",
      "spec.usages[2]: FieldValueDuplicate",
      "spec.signerName: FieldValueRequired",
      "spec.expirationSeconds: FieldValueInvalid",
    ]);
  });

  it("keeps spec and status on main writes, conditions on status writes, the certificate on approval", () => {
    const old = request({}, [{ type: "Approved", status: "True" }]);
    const next = { ...request({ usages: ["server auth"] }), status: { certificate: "Y2VydA==" } };
    expect(csr.prepareForUpdate?.(next, old)).toEqual({
      ...next,
      spec: old.spec,
      status: old.status,
    });
    const approval = csr.statusSubresources?.["approval"];
    expect(approval?.prepareForUpdate?.(next, old)).toEqual({
      ...next,
      spec: old.spec,
      status: { conditions: [] },
    });
    expect(csr.status?.prepareForUpdate?.(next, old)).toEqual({ ...next, spec: old.spec });
  });

  it("lets approval add Approved or Denied, exclusive and True, and status writes neither", () => {
    const old = request();
    const approved = request({}, [{ type: "Approved", status: "True" }]);
    const approval = csr.statusSubresources?.["approval"];
    expect(approval?.validateUpdate?.(approved, old)).toEqual([]);
    expect(csr.status?.validateUpdate?.(approved, old)?.[0]?.detail).toBe(
      'updates may not add a condition of type "Approved"',
    );
    const both = request({}, [
      { type: "Approved", status: "True" },
      { type: "Denied", status: "True" },
    ]);
    expect(approval?.validateUpdate?.(both, old)?.[0]?.detail).toBe(
      "Approved and Denied conditions are mutually exclusive",
    );
    expect(approval?.validateUpdate?.(old, approved)?.[0]?.detail).toBe(
      'updates may not remove a condition of type "Approved"',
    );
  });

  it("prints kubectl's columns with the Condition summary", () => {
    const issued = {
      ...request({ expirationSeconds: 3600 }, [{ type: "Approved", status: "True" }]),
      status: { conditions: [{ type: "Approved", status: "True" }], certificate: "Y2VydA==" },
    };
    expect(csr.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Age",
      "SignerName",
      "Requestor",
      "RequestedDuration",
      "Condition",
    ]);
    const cells = csr.printer?.row(issued, Date.now()).cells;
    expect(cells?.slice(2)).toEqual([
      "kubernetes.io/kube-apiserver-client",
      "",
      "60m",
      "Approved,Issued",
    ]);
    expect(csr.printer?.row(request(), Date.now()).cells[5]).toBe("Pending");
  });
});
