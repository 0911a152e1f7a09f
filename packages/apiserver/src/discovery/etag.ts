import { createHash } from "node:crypto";

/**
 * Entity tags for the cacheable documents the embedded server serves (discovery, OpenAPI),
 * and the `If-None-Match` check that turns a repeated request into a `304 Not Modified`.
 */

/**
 * A strong entity tag for a response body: the uppercase hex SHA-512 of the body, quoted,
 * like kube-apiserver's aggregated discovery ETag. Equal bodies always give equal tags.
 */
export function bodyEtag(body: string): string {
  return `"${createHash("sha512").update(body).digest("hex").toUpperCase()}"`;
}

/**
 * Whether an `If-None-Match` header matches `etag` (the request may be answered 304): the
 * header is `*` or lists the tag, compared weakly (a `W/` prefix on either side is ignored, as
 * RFC 9110 prescribes for `If-None-Match`). Both quoted and bare tags in the header are
 * accepted, since some clients send the hash without quotes. An absent header never matches.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const want = opaqueTag(etag);
  for (const raw of header.split(",")) {
    const candidate = raw.trim();
    if (candidate === "*") return true;
    if (candidate !== "" && opaqueTag(candidate) === want) return true;
  }
  return false;
}

function opaqueTag(tag: string): string {
  const strong = tag.startsWith("W/") ? tag.slice(2) : tag;
  return strong.length >= 2 && strong.startsWith('"') && strong.endsWith('"')
    ? strong.slice(1, -1)
    : strong;
}
