/**
 * Kubernetes' IP and CIDR libraries (`k8s.io/apiserver/pkg/cel/library/ip.go`, `cidr.go`):
 * `ip(s)`, `isIP(s)`, `ip.isCanonical(s)`, and on `net.IP` `family()`, `isUnspecified()`,
 * `isLoopback()`, `isLinkLocalMulticast()`, `isLinkLocalUnicast()`, `isGlobalUnicast()`,
 * `string(ip)`; `cidr(s)`, `isCIDR(s)`, and on `net.CIDR` `containsIP(ip|s)`,
 * `containsCIDR(cidr|s)`, `ip()`, `masked()`, `prefixLength()`, `string(cidr)`. As in kube,
 * IPv4-mapped IPv6 addresses and zones are refused.
 */
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from "@bufbuild/cel";
import { OpaqueType } from "../opaque-values.js";
import {
  bitLength,
  formatIp,
  isIpv4Mapped,
  maskIp,
  parseIp,
  type IpAddress,
} from "./ip-address.js";

interface Prefix {
  readonly ip: IpAddress;
  readonly bits: number;
}

/** `net.IP` values. */
export const IP = new OpaqueType<IpAddress>("net.IP");
/** `net.CIDR` values. */
export const CIDR = new OpaqueType<Prefix>("net.CIDR");

function strictIp(s: string): IpAddress | undefined {
  const ip = parseIp(s);
  return ip && !isIpv4Mapped(ip) ? ip : undefined;
}

function parseCidr(s: string): Prefix | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const ip = strictIp(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bitsText) || (bitsText.length > 1 && bitsText.startsWith("0")))
    return undefined;
  const bits = Number(bitsText);
  return bits > Number(bitLength(ip)) ? undefined : { ip, bits };
}

function wrapIp(ip: IpAddress): CelValue {
  return IP.wrap(ip, formatIp(ip)) as unknown as CelValue;
}

function wrapCidr(p: Prefix): CelValue {
  return CIDR.wrap(p, `${formatIp(p.ip)}/${p.bits}`) as unknown as CelValue;
}

function contains(p: Prefix, ip: IpAddress): boolean {
  return ip.family === p.ip.family && maskIp(ip, p.bits).value === maskIp(p.ip, p.bits).value;
}

function ipArg(v: CelValue | string): IpAddress {
  if (typeof v !== "string") return IP.payload(v);
  const ip = strictIp(v);
  if (!ip)
    throw new Error(`IP Address ${JSON.stringify(v)} parse error during conversion from string`);
  return ip;
}

function cidrArg(v: CelValue | string): Prefix {
  if (typeof v !== "string") return CIDR.payload(v);
  const p = parseCidr(v);
  if (!p)
    throw new Error(
      `network address parse error during conversion from string: ${JSON.stringify(v)}`,
    );
  return p;
}

function inRange(ip: IpAddress, family: 4 | 6, prefix: bigint, bits: number): boolean {
  return ip.family === family && maskIp(ip, bits).value === prefix;
}

const { STRING, BOOL, INT } = CelScalar;
const T_IP = IP.celType;
const T_CIDR = CIDR.celType;
type Self = CelValue;

const ipFunctions: readonly CelFunc[] = [
  celFunc("ip", [STRING], T_IP, ((s: string) => wrapIp(ipArg(s))) as never),
  celFunc("isIP", [STRING], BOOL, ((s: string) => strictIp(s) !== undefined) as never),
  celFunc("ip.isCanonical", [STRING], BOOL, ((s: string) => formatIp(ipArg(s)) === s) as never),
  celFunc("string", [T_IP], STRING, ((v: CelValue) => formatIp(IP.payload(v))) as never),
  celMethod("family", T_IP, [], INT, function (this: Self) {
    return BigInt(IP.payload(this).family);
  } as never),
  celMethod("isUnspecified", T_IP, [], BOOL, function (this: Self) {
    return IP.payload(this).value === 0n;
  } as never),
  celMethod("isLoopback", T_IP, [], BOOL, function (this: Self) {
    const ip = IP.payload(this);
    return ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n;
  } as never),
  celMethod("isLinkLocalMulticast", T_IP, [], BOOL, function (this: Self) {
    const ip = IP.payload(this);
    return inRange(ip, 4, 0xe0000000n, 24) || inRange(ip, 6, 0xff02n << 112n, 16);
  } as never),
  celMethod("isLinkLocalUnicast", T_IP, [], BOOL, function (this: Self) {
    const ip = IP.payload(this);
    return inRange(ip, 4, 0xa9fe0000n, 16) || inRange(ip, 6, 0xfe80n << 112n, 10);
  } as never),
  celMethod("isGlobalUnicast", T_IP, [], BOOL, function (this: Self) {
    const ip = IP.payload(this);
    if (ip.value === 0n || (ip.family === 4 && ip.value === 0xffffffffn)) return false;
    if (ip.family === 4 && (ip.value >> 24n === 127n || ip.value >> 28n === 0xen)) return false;
    if (ip.family === 6 && (ip.value === 1n || ip.value >> 120n === 0xffn)) return false;
    return !(inRange(ip, 4, 0xa9fe0000n, 16) || inRange(ip, 6, 0xfe80n << 112n, 10));
  } as never),
];

const cidrFunctions: readonly CelFunc[] = [
  celFunc("cidr", [STRING], T_CIDR, ((s: string) => wrapCidr(cidrArg(s))) as never),
  celFunc("isCIDR", [STRING], BOOL, ((s: string) => parseCidr(s) !== undefined) as never),
  celFunc("string", [T_CIDR], STRING, ((v: CelValue) => {
    const p = CIDR.payload(v);
    return `${formatIp(p.ip)}/${p.bits}`;
  }) as never),
  celMethod("containsIP", T_CIDR, [T_IP], BOOL, function (this: Self, v: CelValue) {
    return contains(CIDR.payload(this), ipArg(v));
  } as never),
  celMethod("containsIP", T_CIDR, [STRING], BOOL, function (this: Self, v: string) {
    return contains(CIDR.payload(this), ipArg(v));
  } as never),
  celMethod("containsCIDR", T_CIDR, [T_CIDR], BOOL, function (this: Self, v: CelValue) {
    const outer = CIDR.payload(this);
    const inner = cidrArg(v);
    return inner.bits >= outer.bits && contains(outer, inner.ip);
  } as never),
  celMethod("containsCIDR", T_CIDR, [STRING], BOOL, function (this: Self, v: string) {
    const outer = CIDR.payload(this);
    const inner = cidrArg(v);
    return inner.bits >= outer.bits && contains(outer, inner.ip);
  } as never),
  celMethod("ip", T_CIDR, [], T_IP, function (this: Self) {
    return wrapIp(CIDR.payload(this).ip);
  } as never),
  celMethod("masked", T_CIDR, [], T_CIDR, function (this: Self) {
    const p = CIDR.payload(this);
    return wrapCidr({ ip: maskIp(p.ip, p.bits), bits: p.bits });
  } as never),
  celMethod("prefixLength", T_CIDR, [], INT, function (this: Self) {
    return BigInt(CIDR.payload(this).bits);
  } as never),
];

/** The IP and CIDR functions. */
export const ipCidrLibrary: readonly CelFunc[] = [...ipFunctions, ...cidrFunctions];
