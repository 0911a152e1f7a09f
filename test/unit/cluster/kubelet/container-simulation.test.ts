import { describe, expect, it } from "vitest";
import {
  normalizedImage,
  simulatedContainerId,
  simulatedImageId,
} from "../../../../packages/cluster/src/kubelet/container-image.js";
import { simulatedOutput } from "../../../../packages/cluster/src/kubelet/container-output.js";
import { PodIpAllocator } from "../../../../packages/cluster/src/kubelet/pod-ip-allocator.js";

describe("container images", () => {
  it("normalizes references as containerd reports them", () => {
    expect(normalizedImage("nginx")).toBe("docker.io/library/nginx:latest");
    expect(normalizedImage("busybox:1.36")).toBe("docker.io/library/busybox:1.36");
    expect(normalizedImage("bitnami/redis")).toBe("docker.io/bitnami/redis:latest");
    expect(normalizedImage("registry.k8s.io/pause:3.9")).toBe("registry.k8s.io/pause:3.9");
    expect(normalizedImage("localhost:5000/app")).toBe("localhost:5000/app:latest");
  });

  it("derives stable image and container IDs", () => {
    expect(simulatedImageId("nginx")).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(simulatedImageId("nginx")).toBe(simulatedImageId("docker.io/library/nginx:latest"));
    const digest = `sha256:${"a".repeat(64)}`;
    expect(simulatedImageId(`nginx@${digest}`)).toBe(`docker.io/library/nginx@${digest}`);
    expect(simulatedContainerId("u", "app", 0)).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(simulatedContainerId("u", "app", 1)).not.toBe(simulatedContainerId("u", "app", 0));
  });
});

describe("simulatedOutput", () => {
  it("prints what echo and simple shell scripts print, else a line naming the container", () => {
    expect(simulatedOutput({ name: "c", command: ["/bin/echo", "-n", "a", "b"] })).toEqual(["a b"]);
    expect(
      simulatedOutput({
        name: "c",
        command: ["sh"],
        args: ["-c", 'echo "x y" && printf "p\\nq\\n"'],
      }),
    ).toEqual(["x y", "p", "q"]);
    expect(
      simulatedOutput({ name: "c", image: "nginx", command: ["sh", "-c", "sleep 10"] }),
    ).toEqual(["kubekit: container c (image nginx) started"]);
  });
});

describe("PodIpAllocator", () => {
  it("hands out .2 to .254 round-robin, reusing released addresses only after a full turn", () => {
    const ips = new PodIpAllocator("10.244.3.0/24");
    expect(ips.allocate()).toBe("10.244.3.2");
    expect(ips.allocate()).toBe("10.244.3.3");
    ips.release("10.244.3.2");
    expect(ips.allocate()).toBe("10.244.3.4");
    ips.reserve("10.244.3.5");
    expect(ips.allocate()).toBe("10.244.3.6");
    const rest = Array.from({ length: 248 }, () => ips.allocate());
    expect(rest.at(-1)).toBe("10.244.3.254");
    expect(ips.allocate()).toBe("10.244.3.2");
  });

  it("rejects a pod CIDR that is not an IPv4 /24", () => {
    expect(() => new PodIpAllocator("10.244.0.0/16")).toThrow(RangeError);
  });
});
