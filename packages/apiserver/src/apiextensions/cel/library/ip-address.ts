/**
 * IP addresses and prefixes as Go's `net/netip` parses them (the parser behind Kubernetes' IP and
 * CIDR CEL libraries): IPv4 in dotted decimal without leading zeros, IPv6 with `::` compression
 * and an optional trailing IPv4 part; zones (`%eth0`) are refused. Formatting is netip's
 * canonical form (RFC 5952 for IPv6).
 */

/** An address: 32 (IPv4) or 128 (IPv6) bits. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

function parseIpv4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith("0"))) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseIpv6(s: string): bigint | undefined {
  let groups: number[] = [];
  let ipv4Tail: bigint | undefined;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    ipv4Tail = parseIpv4(s.slice(lastColon + 1));
    if (ipv4Tail === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!head || !tail) return undefined;
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return undefined;
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  if (ipv4Tail !== undefined) v = (v & ~0xffffffffn) | ipv4Tail;
  return v;
}

/** Parses an address (netip.ParseAddr without zones); `undefined` when invalid. */
export function parseIp(s: string): IpAddress | undefined {
  if (s.length > 64 || s.includes("%")) return undefined;
  if (s.includes(":")) {
    const v = parseIpv6(s);
    return v === undefined ? undefined : { family: 6, value: v };
  }
  const v = parseIpv4(s);
  return v === undefined ? undefined : { family: 4, value: v };
}

/** Whether an IPv6 address is IPv4-mapped (`::ffff:a.b.c.d`). */
export function isIpv4Mapped(ip: IpAddress): boolean {
  return ip.family === 6 && ip.value >> 32n === 0xffffn;
}

/** netip's canonical text of `ip`. */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((sh) => ((ip.value >> sh) & 255n).toString()).join(".");
  }
  if (isIpv4Mapped(ip)) return `::ffff:${formatIp({ family: 4, value: ip.value & 0xffffffffn })}`;
  const groups = Array.from({ length: 8 }, (_, i) =>
    Number((ip.value >> BigInt((7 - i) * 16)) & 0xffffn),
  );
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** The number of bits of an address of `ip`'s family. */
export function bitLength(ip: IpAddress): bigint {
  return ip.family === 4 ? 32n : 128n;
}

/** `ip` with all but the first `bits` bits cleared. */
export function maskIp(ip: IpAddress, bits: number): IpAddress {
  const total = bitLength(ip);
  const hostBits = total - BigInt(bits);
  return { family: ip.family, value: (ip.value >> hostBits) << hostBits };
}
