import { describe, expect, it } from "vitest";
import { templateHash } from "../../../../packages/cluster/src/controller-support/template-hash.js";

const template = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "nginx", image: "nginx" }] },
};

describe("templateHash (pod-template-hash, controller-revision-hash)", () => {
  it("is a valid label value from SafeEncodeString's alphabet", () => {
    expect(templateHash(template)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });

  it("ignores key order and undefined members, as equal templates must hash equally", () => {
    const reordered = {
      spec: { containers: [{ image: "nginx", name: "nginx", command: undefined }] },
      metadata: { labels: { app: "web" } },
    };
    expect(templateHash(reordered)).toBe(templateHash(template));
  });

  it("changes with the template and with the collision count", () => {
    const changed = { ...template, spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } };
    expect(templateHash(changed)).not.toBe(templateHash(template));
    expect(templateHash(template, 1)).not.toBe(templateHash(template));
    expect(templateHash(template, 0)).toBe(templateHash(template));
  });
});
