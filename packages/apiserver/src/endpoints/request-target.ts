/**
 * The request-target of an HTTP/1.1 request line (RFC 9112 §3.2), read as Go's
 * `net/url.ParseRequestURI` reads it for kube-apiserver: origin-form (`/path?query`),
 * absolute-form (`scheme://host/path?query`, routed by its path) or `*`. Anything else
 * (authority-form `host:port`, a relative path) and any path with a `%` not followed by two hex
 * digits is refused with Go's `400 Bad Request` before any handler runs.
 */
export interface RequestTarget {
  /** The path, still percent-encoded (segments are decoded by {@link decodePathSegment}). */
  readonly path: string;
  readonly query: URLSearchParams;
}

/** A `%` not followed by two hex digits: `net/url`'s `EscapeError`. */
const INVALID_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Parses a request's `req.url`; `undefined` when Go's server would reject it with a 400 (see
 * {@link RequestTarget}). A scheme-relative `//host/path` is an origin-form path whose first
 * segment is empty (Go does not read an authority from it), so it routes nowhere.
 */
export function parseRequestTarget(raw: string): RequestTarget | undefined {
  let pathAndQuery: string;
  // `*` (asterisk-form) is a valid target that names no path kube-apiserver serves.
  if (raw === "*") return { path: raw, query: new URLSearchParams() };
  if (raw.startsWith("/")) pathAndQuery = raw;
  else if (ABSOLUTE_FORM.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return undefined;
    }
    pathAndQuery = url.pathname + url.search;
  } else return undefined;
  const q = pathAndQuery.indexOf("?");
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  if (INVALID_ESCAPE.test(path)) return undefined;
  return { path, query: new URLSearchParams(q < 0 ? "" : pathAndQuery.slice(q + 1)) };
}

const utf8 = new TextDecoder("utf-8", { fatal: false });
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/**
 * Percent-decodes one path segment of a target accepted by {@link parseRequestTarget}. Node
 * hands the request line over as Latin-1, so each other character is one raw byte. Bytes that
 * are not UTF-8 become U+FFFD instead of throwing: Go keeps them as raw bytes, which no valid
 * object name contains either, so both answer NotFound or Invalid, never a server error.
 */
export function decodePathSegment(segment: string): string {
  if (!/[%\x80-\xff]/.test(segment)) return segment;
  const bytes = new Uint8Array(segment.length);
  let n = 0;
  for (let i = 0; i < segment.length; i++) {
    const pair = segment.slice(i + 1, i + 3);
    if (segment[i] === "%" && HEX_PAIR.test(pair)) {
      bytes[n++] = parseInt(pair, 16);
      i += 2;
    } else bytes[n++] = segment.charCodeAt(i) & 0xff;
  }
  return utf8.decode(bytes.subarray(0, n));
}
