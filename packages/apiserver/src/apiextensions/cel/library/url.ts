/**
 * Kubernetes' URL library (`k8s.io/apiserver/pkg/cel/library/urls.go`): `url(s)`, `isURL(s)`, and
 * on `kubernetes.URL` `getScheme()`, `getHost()`, `getHostname()`, `getPort()`,
 * `getEscapedPath()`, `getQuery()`. Parsing follows Go's `url.ParseRequestURI` as far as URLs in
 * rules go: an absolute URL (`scheme://authority/path?query`) or an absolute path (`/path`),
 * no whitespace or control characters, valid `%` escapes. Ports are kept as written (Go does not
 * drop default ports), IPv6 hosts keep their brackets in `getHost()` and lose them in
 * `getHostname()`.
 */
import {
  celFunc,
  celMethod,
  CelScalar,
  listType,
  mapType,
  type CelFunc,
  type CelValue,
} from "@bufbuild/cel";
import { OpaqueType } from "../opaque-values.js";

interface ParsedUrl {
  readonly scheme: string;
  readonly host: string;
  readonly path: string;
  readonly query: string;
}

/** `kubernetes.URL` values. */
export const URL_TYPE = new OpaqueType<ParsedUrl>("kubernetes.URL");

const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;
const PATH_ONLY = /^(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

function hasControlOrSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Parses `s` as Go's `url.ParseRequestURI` would accept it; `undefined` otherwise. */
export function parseRequestUri(s: string): ParsedUrl | undefined {
  // Control characters, spaces and malformed escapes are refused by Go's parser.
  if (hasControlOrSpace(s) || /%(?![0-9a-fA-F]{2})/.test(s)) return undefined;
  const abs = ABSOLUTE.exec(s);
  if (abs) {
    const authority = abs[2] ?? "";
    const host = authority.includes("@")
      ? authority.slice(authority.lastIndexOf("@") + 1)
      : authority;
    if (/^\[/.test(host) && !/^\[[0-9a-fA-F:.%]+\](:\d*)?$/.test(host)) return undefined;
    if (!/^\[/.test(host) && !/^[^:[\]]*(:\d*)?$/.test(host)) return undefined;
    return { scheme: abs[1] ?? "", host, path: abs[3] ?? "", query: abs[4] ?? "" };
  }
  const path = PATH_ONLY.exec(s);
  if (path) return { scheme: "", host: "", path: path[1] ?? "", query: path[2] ?? "" };
  return undefined;
}

function hostname(host: string): string {
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]"));
  const colon = host.lastIndexOf(":");
  return colon < 0 ? host : host.slice(0, colon);
}

function port(host: string): string {
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : 0;
  const colon = host.indexOf(":", end);
  return colon < 0 ? "" : host.slice(colon + 1);
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

/** Go's `url.ParseQuery`: keys to their values in order; pairs that fail to decode are skipped. */
function query(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of q.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : decode(pair.slice(eq + 1));
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}

const { STRING, BOOL } = CelScalar;
const U = URL_TYPE.celType;
type Self = CelValue;

/** The URL functions. */
export const urlLibrary: readonly CelFunc[] = [
  celFunc("url", [STRING], U, ((s: string) => {
    const u = parseRequestUri(s);
    if (!u)
      throw new Error(
        `URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`,
      );
    return URL_TYPE.wrap(u, s) as unknown as CelValue;
  }) as never),
  celFunc("isURL", [STRING], BOOL, ((s: string) => parseRequestUri(s) !== undefined) as never),
  celMethod("getScheme", U, [], STRING, function (this: Self) {
    return URL_TYPE.payload(this).scheme;
  } as never),
  celMethod("getHost", U, [], STRING, function (this: Self) {
    return URL_TYPE.payload(this).host;
  } as never),
  celMethod("getHostname", U, [], STRING, function (this: Self) {
    return hostname(URL_TYPE.payload(this).host);
  } as never),
  celMethod("getPort", U, [], STRING, function (this: Self) {
    return port(URL_TYPE.payload(this).host);
  } as never),
  celMethod("getEscapedPath", U, [], STRING, function (this: Self) {
    return URL_TYPE.payload(this).path;
  } as never),
  celMethod("getQuery", U, [], mapType(STRING, listType(STRING)), function (this: Self) {
    return query(URL_TYPE.payload(this).query);
  } as never),
];
