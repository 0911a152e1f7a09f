/**
 * Node's socket and TLS errors in the words Go's `net/http` and `crypto/tls` give them, which
 * kube quotes after `Post "<url>": ` (e.g. `dial tcp 127.0.0.1:9443: connect: connection
 * refused`, `tls: failed to verify certificate: x509: certificate signed by unknown authority`).
 */
import type { WebhookCallFailure } from "./webhook-call-error.js";
import { boundedText } from "./bounded-text.js";

/** A classified transport failure: its kind and Go's text. */
export interface TransportFailure {
  readonly failure: WebhookCallFailure;
  readonly text: string;
}

/** Node's certificate verification codes that Go reports as an unknown authority. */
const UNKNOWN_AUTHORITY = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
]);

const VERIFY = "tls: failed to verify certificate: x509:";

interface NodeError {
  readonly code?: string;
  readonly message: string;
  readonly address?: string;
  readonly port?: number;
  readonly host?: string;
  readonly cert?: { readonly subjectaltname?: string };
}

function dialAddress(err: NodeError, fallback: string): string {
  if (err.address === undefined) return fallback;
  const host = err.address.includes(":") ? `[${err.address}]` : err.address;
  return err.port === undefined ? host : `${host}:${err.port}`;
}

/** Go's `certificate is valid for A, B, not HOST`. */
function hostnameMismatch(err: NodeError, serverName: string): string {
  const names = (err.cert?.subjectaltname ?? "")
    .split(", ")
    .map((san) => san.replace(/^(DNS|IP Address):/, ""))
    .filter((san) => san !== "");
  return `${VERIFY} certificate is valid for ${names.join(", ")}, not ${err.host ?? serverName}`;
}

function tlsFailure(err: NodeError, serverName: string): TransportFailure | undefined {
  const code = err.code ?? "";
  if (UNKNOWN_AUTHORITY.has(code)) {
    return { failure: "tls", text: `${VERIFY} certificate signed by unknown authority` };
  }
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") {
    return { failure: "tls", text: `${VERIFY} certificate has expired or is not yet valid` };
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return { failure: "tls", text: hostnameMismatch(err, serverName) };
  }
  if (/wrong version number|packet length too long|http request/i.test(err.message)) {
    return { failure: "tls", text: "http: server gave HTTP response to HTTPS client" };
  }
  if (code === "EPROTO" || code.startsWith("ERR_SSL") || code.startsWith("ERR_TLS")) {
    return { failure: "tls", text: `tls: ${boundedText(err.message, 512)}` };
  }
  return undefined;
}

/**
 * The classified failure of a Node request error. `dialed` is `host:port` as dialed (for
 * errors without an address); `serverName` the name TLS verified.
 */
export function transportFailure(
  error: unknown,
  dialed: string,
  serverName: string,
): TransportFailure {
  const err: NodeError =
    typeof error === "object" && error !== null && "message" in error
      ? (error as NodeError)
      : { message: String(error) };
  const tls = tlsFailure(err, serverName);
  if (tls) return tls;
  switch (err.code) {
    case "ECONNREFUSED":
      return {
        failure: "refused",
        text: `dial tcp ${dialAddress(err, dialed)}: connect: connection refused`,
      };
    case "EHOSTUNREACH":
      return {
        failure: "refused",
        text: `dial tcp ${dialAddress(err, dialed)}: connect: no route to host`,
      };
    case "ENETUNREACH":
      return {
        failure: "refused",
        text: `dial tcp ${dialAddress(err, dialed)}: connect: network is unreachable`,
      };
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return {
        failure: "resolve",
        text: `dial tcp: lookup ${err.host ?? dialed.replace(/:\d+$/, "")}: no such host`,
      };
    case "ECONNRESET":
      return { failure: "refused", text: "EOF" };
    default:
      return { failure: "refused", text: boundedText(err.message, 512) };
  }
}
