import { describe, expect, it } from "vitest";
import {
  cidrContains,
  cidrErrors,
  parseCidr,
} from "../../../../packages/apiserver/src/kinds/cidr.js";
import { messages } from "./kind-test-helpers.js";

/** CIDRs as `k8s.io/utils/net` ParseCIDRSloppy and apimachinery's IsValidCIDR read them. */

function cidr(text: string) {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new Error(`${text} does not parse`);
  return parsed;
}

describe("parseCidr (ParseCIDRSloppy)", () => {
  it("parses IPv4 CIDRs, clearing host bits, leading zeros allowed", () => {
    expect(parseCidr("10.1.2.3/8")).toEqual({ family: 4, prefix: 8, network: 10n << 24n });
    expect(parseCidr("010.001.0.0/16")).toEqual({
      family: 4,
      prefix: 16,
      network: (10n << 24n) | (1n << 16n),
    });
    expect(parseCidr("0.0.0.0/0")).toEqual({ family: 4, prefix: 0, network: 0n });
  });

  it("parses IPv6 CIDRs, `::` and an embedded IPv4 tail included", () => {
    expect(parseCidr("2001:db8::/32")).toEqual({
      family: 6,
      prefix: 32,
      network: 0x20010db8n << 96n,
    });
    expect(parseCidr("::ffff:10.0.0.1/128")).toEqual({
      family: 6,
      prefix: 128,
      network: (0xffffn << 32n) | (10n << 24n) | 1n,
    });
    expect(parseCidr("fd00:0:0:0:0:0:0:1/64")).toEqual({
      family: 6,
      prefix: 64,
      network: 0xfd00n << 112n,
    });
  });

  it.each([
    "10.0.0.0",
    "10.0.0.0/33",
    "10.0.0/8",
    "256.0.0.0/8",
    "10.0.0.0/-1",
    "2001:db8::/129",
    "1::2::3/64",
    "2001:db8/32",
    "fd00::g/64",
    "",
  ])("rejects %j", (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });
});

describe("cidrErrors (IsValidCIDR)", () => {
  it("reports an invalid CIDR with kube's message", () => {
    expect(cidrErrors("spec.podCIDRs[0]", "10.0.0.0/8")).toEqual([]);
    expect(messages(cidrErrors("spec.podCIDRs[0]", "10.0.0.1"))).toEqual([
      'spec.podCIDRs[0]: Invalid value: "10.0.0.1": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });
});

describe("cidrContains (IPNet.Contains of the inner network address)", () => {
  it("holds for networks inside, the same network included, and never across families", () => {
    expect(cidrContains(cidr("10.0.0.0/8"), cidr("10.1.0.0/16"))).toBe(true);
    expect(cidrContains(cidr("10.0.0.0/8"), cidr("10.0.0.0/8"))).toBe(true);
    expect(cidrContains(cidr("10.0.0.0/8"), cidr("11.0.0.0/16"))).toBe(false);
    expect(cidrContains(cidr("0.0.0.0/0"), cidr("::/0"))).toBe(false);
    expect(cidrContains(cidr("2001:db8::/32"), cidr("2001:db8:1::/48"))).toBe(true);
  });
});
