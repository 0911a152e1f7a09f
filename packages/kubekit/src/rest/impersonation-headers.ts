/**
 * The impersonation headers of a request (client-go's impersonating round tripper).
 */
import type { Impersonation } from "../config/rest-config.js";

/** Characters allowed in an HTTP header name (RFC 7230 `tchar`), except `%`. */
const HEADER_TOKEN_CHAR = /^[!#$&'*+\-.^_`|~0-9A-Za-z]$/;

/**
 * An extra's key as it appears in a header name: bytes that are not valid in a header name,
 * and `%`, percent-encoded (uppercase hex), so the server can decode the original key.
 */
export function escapeExtraKey(key: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(key)) {
    const ch = String.fromCharCode(byte);
    out +=
      byte < 0x80 && HEADER_TOKEN_CHAR.test(ch)
        ? ch
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The headers that impersonate `impersonation`: `Impersonate-User`, `Impersonate-Uid`,
 * one `Impersonate-Group` value per group, and one `Impersonate-Extra-<key>` value per
 * extra value (the key escaped by {@link escapeExtraKey}). Headers with several values are
 * arrays (sent as repeated header lines). Empty user and uid are omitted; an undefined
 * impersonation gives no headers.
 */
export function impersonationHeaders(
  impersonation: Impersonation | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (impersonation === undefined) return headers;
  if (impersonation.user) headers["impersonate-user"] = impersonation.user;
  if (impersonation.uid) headers["impersonate-uid"] = impersonation.uid;
  if (impersonation.groups !== undefined && impersonation.groups.length > 0) {
    headers["impersonate-group"] = [...impersonation.groups];
  }
  for (const [key, values] of Object.entries(impersonation.extra ?? {})) {
    if (values.length > 0) headers[`impersonate-extra-${escapeExtraKey(key)}`] = [...values];
  }
  return headers;
}
