import { describe, expect, it } from "vitest";
import {
  nodeInternalIp,
  podCidrOf,
} from "../../../../packages/cluster/src/nodes/node-registration.js";
import { PodIpAllocator } from "../../../../packages/cluster/src/kubelet/pod-ip-allocator.js";

describe("node addresses (kind's numbering, continued past 255 nodes)", () => {
  it("numbers the first nodes as kind does", () => {
    expect([podCidrOf(0), podCidrOf(1), podCidrOf(254)]).toEqual([
      "10.244.1.0/24",
      "10.244.2.0/24",
      "10.244.255.0/24",
    ]);
    expect([nodeInternalIp(0), nodeInternalIp(253)]).toEqual(["172.18.0.2", "172.18.0.255"]);
  });

  it("gives each of 1,000 nodes a distinct valid /24 and address", () => {
    const cidrs = new Set<string>();
    const ips = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const cidr = podCidrOf(i);
      const ip = nodeInternalIp(i);
      for (const octet of cidr.slice(0, -3).split(".").concat(ip.split("."))) {
        expect(Number(octet)).toBeLessThanOrEqual(255);
      }
      cidrs.add(cidr);
      ips.add(ip);
      new PodIpAllocator(cidr); // accepts it as a /24
    }
    expect([cidrs.size, ips.size]).toEqual([1000, 1000]);
    expect([podCidrOf(255), podCidrOf(999), nodeInternalIp(254)]).toEqual([
      "10.245.0.0/24",
      "10.247.232.0/24",
      "172.18.1.0",
    ]);
  });
});
