/**
 * CIDR values as kube-apiserver reads them: `k8s.io/utils/net` ParseCIDRSloppy (Go's
 * `net.ParseCIDR`, which also accepts IPv4 octets with leading zeros) and apimachinery's
 * IsValidCIDR (`staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go`), used by the
 * Node and NetworkPolicy rules.
 */
import type { FieldError } from "kubekit";
import { fieldInvalid } from "kubekit/apimachinery";

/** A parsed CIDR: its family, network address (host bits cleared) and prefix length. */
export interface Cidr {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

/** Go's parseIPv4 (the sloppy one): four decimal fields of at most 255, leading zeros allowed. */
function parseIpv4(text: string): bigint | undefined {
  const fields = text.split(".");
  if (fields.length !== 4) return undefined;
  let value = 0n;
  for (const field of fields) {
    if (!/^[0-9]{1,9}$/.test(field) || Number(field) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(field));
  }
  return value;
}

/** Go's parseIPv6: hex groups, at most one `::`, an IPv4 address in place of the last two groups. */
function parseIpv6(text: string): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string, last: boolean): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (last && i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groupsOf(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "", true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** The CIDR `value` as ParseCIDRSloppy reads it, or `undefined` when it is not one. */
export function parseCidr(value: string): Cidr | undefined {
  const slash = value.indexOf("/");
  if (slash < 0) return undefined;
  const address = value.slice(0, slash);
  const mask = value.slice(slash + 1);
  let family: 4 | 6 = 4;
  let ip = parseIpv4(address);
  if (ip === undefined) {
    family = 6;
    ip = parseIpv6(address);
  }
  const bits = family === 4 ? 32 : 128;
  if (ip === undefined || !/^[0-9]{1,10}$/.test(mask) || Number(mask) > bits) return undefined;
  const prefix = Number(mask);
  const hostBits = BigInt(bits - prefix);
  return { family, prefix, network: (ip >> hostBits) << hostBits };
}

/**
 * IsValidCIDR: `<path>: Invalid value: "<value>": must be a valid CIDR value, (e.g.
 * 10.9.8.0/24 or 2001:db8::/64)` unless `value` parses.
 */
export function cidrErrors(path: string, value: string): FieldError[] {
  return parseCidr(value) === undefined
    ? [fieldInvalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    : [];
}

/** Whether `inner`'s network address lies in `outer` (Go's `IPNet.Contains` of its IP). */
export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family) return false;
  const hostBits = BigInt((outer.family === 4 ? 32 : 128) - outer.prefix);
  return (inner.network >> hostBits) << hostBits === outer.network;
}
