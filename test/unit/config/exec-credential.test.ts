import { describe, expect, it } from "vitest";
import {
  execCredentialRequest,
  isExecCredentialApiVersion,
  parseExecCredentialResponse,
} from "../../../packages/kubekit/src/config/exec-credential.js";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

function response(body: Record<string, unknown>): string {
  return JSON.stringify({ kind: "ExecCredential", apiVersion: V1, ...body });
}

describe("execCredentialRequest", () => {
  it("carries spec.interactive, and spec.cluster when given", () => {
    expect(JSON.parse(execCredentialRequest(V1, false, undefined))).toEqual({
      kind: "ExecCredential",
      apiVersion: V1,
      spec: { interactive: false },
    });
    expect(
      JSON.parse(execCredentialRequest(V1BETA1, true, { server: "https://h:1", config: { a: 1 } })),
    ).toEqual({
      kind: "ExecCredential",
      apiVersion: V1BETA1,
      spec: { cluster: { server: "https://h:1", config: { a: 1 } }, interactive: true },
    });
  });
});

describe("parseExecCredentialResponse", () => {
  it("accepts a token with an RFC 3339 expiry", () => {
    expect(
      parseExecCredentialResponse(
        response({ status: { token: "t", expirationTimestamp: "2026-01-01T01:00:00Z" } }),
        V1,
      ),
    ).toEqual({ ok: true, status: { token: "t", expiresAt: Date.UTC(2026, 0, 1, 1) } });
  });

  it("accepts a certificate and key pair", () => {
    expect(
      parseExecCredentialResponse(
        response({ status: { clientCertificateData: "C", clientKeyData: "K" } }),
        V1,
      ),
    ).toEqual({ ok: true, status: { clientCertificateData: "C", clientKeyData: "K" } });
  });

  it.each([
    ["not json", "output is not valid JSON"],
    ["[1]", "output is not a JSON object"],
    [
      JSON.stringify({ kind: "ExecCredential", apiVersion: V1BETA1, status: { token: "secret" } }),
      `returned apiVersion "${V1BETA1}", but the kubeconfig configures "${V1}"`,
    ],
    [
      JSON.stringify({ kind: "ExecCredential", status: { token: "secret" } }),
      "output has no apiVersion",
    ],
    [response({ kind: "Other", status: { token: "secret" } }), "kind must be ExecCredential"],
    [response({}), "output has no status"],
    [response({ status: {} }), "output has neither status.token nor a client certificate and key"],
    [response({ status: { token: 5 } }), "status.token is not a string"],
    [
      response({ status: { clientCertificateData: "C" } }),
      "only one of status.clientCertificateData and status.clientKeyData",
    ],
    [
      response({ status: { token: "secret", expirationTimestamp: "tomorrow" } }),
      "status.expirationTimestamp is not an RFC 3339 time",
    ],
  ])("rejects %s", (stdout, problem) => {
    const result = parseExecCredentialResponse(stdout, V1);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toContain(problem);
      expect(result.problem).not.toContain("secret");
    }
  });

  it("reports the secrets of a rejected response for scrubbing", () => {
    const result = parseExecCredentialResponse(
      JSON.stringify({
        kind: "ExecCredential",
        apiVersion: V1BETA1,
        status: { token: "tok", clientKeyData: "key" },
      }),
      V1,
    );
    expect(result).toMatchObject({ ok: false, secrets: ["tok", "key"] });
  });

  it("knows the supported apiVersions", () => {
    expect(isExecCredentialApiVersion(V1)).toBe(true);
    expect(isExecCredentialApiVersion(V1BETA1)).toBe(true);
    expect(isExecCredentialApiVersion("client.authentication.k8s.io/v1alpha1")).toBe(false);
  });
});
