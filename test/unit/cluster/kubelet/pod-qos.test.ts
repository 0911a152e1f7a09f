import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { podQosClass, quantityValue } from "../../../../packages/cluster/src/kubelet/pod-qos.js";

function pod(...resources: object[]): Pod {
  return {
    metadata: { name: "p" },
    spec: { containers: resources.map((r, i) => ({ name: `c${i}`, image: "x", resources: r })) },
  };
}

describe("quantityValue", () => {
  it("reads decimal, binary and exponent suffixes", () => {
    expect(quantityValue("500m")).toBe(0.5);
    expect(quantityValue("1Gi")).toBe(quantityValue("1024Mi"));
    expect(quantityValue("1e3")).toBe(1000);
    expect(quantityValue("2k")).toBe(2000);
    expect(quantityValue(3)).toBe(3);
    expect(quantityValue("1Zi")).toBeNaN();
  });
});

describe("podQosClass (GetPodQOS)", () => {
  it("is BestEffort without requests or limits, Guaranteed with equal ones, Burstable otherwise", () => {
    expect(podQosClass(pod({}))).toBe("BestEffort");
    const equal = {
      requests: { cpu: "1", memory: "1Gi" },
      limits: { cpu: "1000m", memory: "1024Mi" },
    };
    expect(podQosClass(pod(equal, equal))).toBe("Guaranteed");
    expect(podQosClass(pod({ limits: { cpu: "1", memory: "1Gi" } }))).toBe("Guaranteed");
    expect(podQosClass(pod(equal, {}))).toBe("Burstable");
    expect(podQosClass(pod({ requests: { cpu: "100m" } }))).toBe("Burstable");
    expect(podQosClass(pod({ limits: { cpu: "1" } }))).toBe("Burstable");
  });
});
