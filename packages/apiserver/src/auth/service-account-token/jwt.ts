/**
 * Compact JWS (RFC 7515) with RS256, the form of kube's service-account tokens
 * (`pkg/serviceaccount/jwt.go`, signed by go-jose): `base64url(header).base64url(claims).
 * base64url(signature)`, the header `{"alg":"RS256","kid":KEY_ID}`.
 */
import { createSign, createVerify, type KeyObject } from "node:crypto";
import type { JsonObject } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";

/** Longest token read; anything longer is not one of ours (a bounded parse). */
const MAX_TOKEN_LENGTH = 64 * 1024;

/** Signs `claims` with RS256 under `keyId`. Claims are written in the order given. */
export function signJwt(claims: JsonObject, privateKey: KeyObject, keyId: string): string {
  const header = base64url(JSON.stringify({ alg: "RS256", kid: keyId }));
  const payload = base64url(JSON.stringify(claims));
  const signature = createSign("RSA-SHA256").update(`${header}.${payload}`).sign(privateKey);
  return `${header}.${payload}.${signature.toString("base64url")}`;
}

/** A compact JWS split and decoded, not yet verified. */
export interface ParsedJwt {
  readonly header: JsonObject;
  readonly claims: JsonObject;
  readonly signingInput: string;
  readonly signature: Buffer;
}

/**
 * Splits and decodes a compact JWS; undefined for anything that is not three base64url parts
 * whose first two are JSON objects (or that is longer than 64 KiB).
 */
export function parseJwt(token: string): ParsedJwt | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  const [header, claims] = [decodeJson(parts[0] as string), decodeJson(parts[1] as string)];
  if (!header || !claims) return undefined;
  return {
    header,
    claims,
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: Buffer.from(parts[2] as string, "base64url"),
  };
}

/** Whether the RS256 signature of `jwt` verifies under `publicKey`. */
export function verifyJwtSignature(jwt: ParsedJwt, publicKey: KeyObject): boolean {
  if (jwt.header["alg"] !== "RS256") return false;
  return createVerify("RSA-SHA256").update(jwt.signingInput).verify(publicKey, jwt.signature);
}

function base64url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

function decodeJson(part: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
