/**
 * The exec credential plugin protocol (`client.authentication.k8s.io` `ExecCredential`,
 * versions v1 and v1beta1): the request kubekit passes in `KUBERNETES_EXEC_INFO`, and the
 * checks on the response the plugin prints on stdout.
 */
import { isJsonObject, type JsonValue } from "../core/json.js";

/** The apiVersions of `ExecCredential` kubekit speaks (client-go dropped v1alpha1 in 1.24). */
export const EXEC_CREDENTIAL_API_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
] as const;

/** A supported `ExecCredential` apiVersion. */
export type ExecCredentialApiVersion = (typeof EXEC_CREDENTIAL_API_VERSIONS)[number];

/** Whether `apiVersion` is one kubekit speaks. */
export function isExecCredentialApiVersion(
  apiVersion: string,
): apiVersion is ExecCredentialApiVersion {
  return (EXEC_CREDENTIAL_API_VERSIONS as readonly string[]).includes(apiVersion);
}

/** The cluster extension whose value is passed to the plugin as `spec.cluster.config`. */
export const EXEC_CLUSTER_CONFIG_EXTENSION = "client.authentication.k8s.io/exec";

/**
 * The cluster details passed to a plugin with `provideClusterInfo: true` (`spec.cluster`),
 * in wire spelling. The CA is always inlined as base64, even when the kubeconfig names a file.
 */
export interface ExecClusterInfo {
  readonly server: string;
  readonly "tls-server-name"?: string;
  readonly "insecure-skip-tls-verify"?: boolean;
  readonly "certificate-authority-data"?: string;
  readonly "proxy-url"?: string;
  readonly "disable-compression"?: boolean;
  /** The value of the cluster's `client.authentication.k8s.io/exec` extension. */
  readonly config?: JsonValue;
}

/**
 * The JSON text of the `ExecCredential` request put in `KUBERNETES_EXEC_INFO`:
 * `{"kind":"ExecCredential","apiVersion":…,"spec":{"cluster":…,"interactive":…}}`.
 */
export function execCredentialRequest(
  apiVersion: ExecCredentialApiVersion,
  interactive: boolean,
  cluster: ExecClusterInfo | undefined,
): string {
  const spec = cluster === undefined ? { interactive } : { cluster, interactive };
  return JSON.stringify({ kind: "ExecCredential", apiVersion, spec });
}

/** The credentials a plugin returned. */
export interface ExecCredentialStatus {
  readonly token?: string;
  /** PEM client certificate (with {@link clientKeyData}). */
  readonly clientCertificateData?: string;
  /** PEM private key (with {@link clientCertificateData}). */
  readonly clientKeyData?: string;
  /** When the credentials expire (ms since the epoch); absent: until a 401. */
  readonly expiresAt?: number;
}

/** The outcome of {@link parseExecCredentialResponse}. */
export type ExecCredentialParseResult =
  | { readonly ok: true; readonly status: ExecCredentialStatus }
  | {
      readonly ok: false;
      /** What is wrong; never contains output values. */
      readonly problem: string;
      /** Secret strings found in the output, to scrub from anything shown (stderr). */
      readonly secrets: readonly string[];
    };

/** Strings in `status` that must never be shown. */
function secretsOf(status: unknown): string[] {
  if (!isJsonObject(status)) return [];
  const out: string[] = [];
  for (const key of ["token", "clientKeyData"]) {
    const value = status[key];
    if (typeof value === "string" && value !== "") out.push(value);
  }
  return out;
}

function optionalString(status: Record<string, JsonValue>, key: string): string | undefined | null {
  const value = status[key];
  if (value === undefined || value === null || value === "") return undefined;
  return typeof value === "string" ? value : null;
}

/** RFC 3339 with a time zone, as Kubernetes timestamps are written. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Checks a plugin's stdout the way client-go does: an `ExecCredential` of the configured
 * apiVersion with a `status` holding a token, or a client certificate and key (both or
 * neither), and an optional RFC 3339 `expirationTimestamp`.
 */
export function parseExecCredentialResponse(
  stdout: string,
  apiVersion: ExecCredentialApiVersion,
): ExecCredentialParseResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return { ok: false, problem: "output is not valid JSON", secrets: [] };
  }
  if (!isJsonObject(parsed)) {
    return { ok: false, problem: "output is not a JSON object", secrets: [] };
  }
  const secrets = secretsOf(parsed["status"]);
  const bad = (problem: string): ExecCredentialParseResult => ({ ok: false, problem, secrets });
  const returned = parsed["apiVersion"];
  if (returned !== apiVersion) {
    return bad(
      typeof returned === "string" && returned !== ""
        ? `returned apiVersion ${JSON.stringify(returned)}, but the kubeconfig configures ${JSON.stringify(apiVersion)}`
        : `output has no apiVersion (expected ${JSON.stringify(apiVersion)})`,
    );
  }
  if (parsed["kind"] !== "ExecCredential") {
    return bad("output is not an ExecCredential (kind must be ExecCredential)");
  }
  const status = parsed["status"];
  if (!isJsonObject(status)) return bad("output has no status");
  const token = optionalString(status, "token");
  const cert = optionalString(status, "clientCertificateData");
  const key = optionalString(status, "clientKeyData");
  if (token === null) return bad("status.token is not a string");
  if (cert === null) return bad("status.clientCertificateData is not a string");
  if (key === null) return bad("status.clientKeyData is not a string");
  if (token === undefined && cert === undefined && key === undefined) {
    return bad("output has neither status.token nor a client certificate and key");
  }
  if ((cert === undefined) !== (key === undefined)) {
    return bad("output has only one of status.clientCertificateData and status.clientKeyData");
  }
  let expiresAt: number | undefined;
  const expiration = status["expirationTimestamp"];
  if (expiration !== undefined && expiration !== null) {
    const time =
      typeof expiration === "string" && RFC3339.test(expiration) ? Date.parse(expiration) : NaN;
    if (Number.isNaN(time)) return bad("status.expirationTimestamp is not an RFC 3339 time");
    expiresAt = time;
  }
  return {
    ok: true,
    status: {
      ...(token !== undefined && { token }),
      ...(cert !== undefined && { clientCertificateData: cert }),
      ...(key !== undefined && { clientKeyData: key }),
      ...(expiresAt !== undefined && { expiresAt }),
    },
  };
}
