import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isQualifiedName } from "kubekit/apimachinery";
import { nodeStrategy } from "../../../../packages/apiserver/src/kinds/node.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * core/v1 Nodes: the podCIDR/podCIDRs conversion (`pkg/apis/core/v1/conversion.go`) and
 * ValidateNode / ValidateNodeUpdate (`pkg/apis/core/validation/validation.go`).
 */

const node = hooksOf(nodeStrategy);
const CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
const CIDR_CHANGE =
  'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid';

function nodeWith(spec: JsonObject): JsonObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name: "node-1" }, spec };
}

describe("Node podCIDR and podCIDRs", () => {
  it("fills podCIDRs from podCIDR, and podCIDR from the first of podCIDRs", () => {
    expect(node.applyDefaults(nodeWith({ podCIDR: "10.244.1.0/24" }))["spec"]).toEqual({
      podCIDR: "10.244.1.0/24",
      podCIDRs: ["10.244.1.0/24"],
    });
    expect(
      node.applyDefaults(
        nodeWith({ podCIDR: "10.0.0.0/24", podCIDRs: ["10.244.1.0/24", "fd00::/64"] }),
      )["spec"],
    ).toEqual({
      podCIDR: "10.244.1.0/24",
      podCIDRs: ["10.244.1.0/24", "fd00::/64"],
    });
  });

  it("returns a node without CIDRs or already in step unchanged", () => {
    const bare = nodeWith({ unschedulable: true });
    expect(node.applyDefaults(bare)).toEqual(bare);
  });
});

describe("Node validation (ValidateNode)", () => {
  it("accepts valid taints and a dual-stack pair of CIDRs", () => {
    expect(
      node.validateCreate(
        nodeWith({
          podCIDRs: ["10.244.1.0/24", "fd00::/64"],
          taints: [
            { key: "dedicated", value: "gpu", effect: "NoSchedule" },
            { key: "dedicated", value: "gpu", effect: "NoExecute" },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it("reports taints at metadata.taints, as kube does", () => {
    expect(
      messages(
        node.validateCreate(
          nodeWith({
            taints: [
              { key: "bad key", value: "ok", effect: "NoSchedule" },
              { key: "a", value: "-bad-", effect: "" },
              { key: "b", effect: "Sometimes" },
              { key: "c", effect: "NoSchedule" },
              { key: "c", value: "other", effect: "NoSchedule" },
            ],
          }),
        ),
      ),
    ).toEqual([
      ...isQualifiedName("bad key").map(
        (m) => `metadata.taints[0].key: Invalid value: "bad key": ${m}`,
      ),
      "metadata.taints[1].value: Invalid value: \"-bad-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      "metadata.taints[1].effect: Required value",
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[4]: Duplicate value: {"effect":"NoSchedule","key":"c","value":"other"}: taints must be unique by key and effect pair',
    ]);
  });

  it("checks pod CIDRs: valid, one per family, no duplicates", () => {
    expect(messages(node.validateCreate(nodeWith({ podCIDR: "10.244.1.0" })))).toEqual([
      `spec.podCIDRs[0]: Invalid value: "10.244.1.0": ${CIDR_MESSAGE}`,
    ]);
    expect(
      messages(node.validateCreate(nodeWith({ podCIDRs: ["10.0.0.0/24", "10.0.0.0/24"] }))),
    ).toEqual([
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.0.0.0/24"]: may specify no more than one CIDR for each IP family',
      'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
    ]);
    expect(messages(node.validateCreate(nodeWith({ podCIDRs: ["10.0.0.0/24", "bad"] })))).toEqual([
      `spec.podCIDRs[1]: Invalid value: "bad": ${CIDR_MESSAGE}`,
      "spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[1]: <nil> (invalid CIDR address: bad)",
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","bad"]: may specify no more than one CIDR for each IP family',
    ]);
  });
});

describe("Node update (ValidateNodeUpdate)", () => {
  it("lets podCIDRs and providerID go from empty to set", () => {
    const old = nodeWith({});
    expect(
      node.validateUpdate(
        node.updated(nodeWith({ podCIDR: "10.244.1.0/24", providerID: "kind://node-1" }), old),
        old,
      ),
    ).toEqual([]);
  });

  it("keeps podCIDRs, providerID and externalID once set", () => {
    const old = node.applyDefaults(
      nodeWith({ podCIDR: "10.244.1.0/24", providerID: "kind://node-1" }),
    );
    expect(
      messages(
        node.validateUpdate(
          node.updated(
            nodeWith({ podCIDR: "10.244.2.0/24", providerID: "other", externalID: "x" }),
            old,
          ),
          old,
        ),
      ),
    ).toEqual([
      CIDR_CHANGE,
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      "spec.externalID: Forbidden: may not be updated",
    ]);
    expect(
      messages(
        node.validateUpdate(node.updated(nodeWith({ providerID: "kind://node-1" }), old), old),
      ),
    ).toEqual([CIDR_CHANGE]);
  });

  it("checks taints twice, as kube's ValidateNode then ValidateNodeUpdate do", () => {
    const old = nodeWith({});
    expect(messages(node.validateUpdate(nodeWith({ taints: [{ key: "a" }] }), old))).toEqual([
      "metadata.taints[0].effect: Required value",
      "metadata.taints[0].effect: Required value",
    ]);
  });

  it("answers DELETE with the object, selects by spec.unschedulable and prints kube's columns", () => {
    expect(nodeStrategy.policy?.deleteReturnsObject).toBe(true);
    expect(Object.keys(nodeStrategy.policy?.selectableFields ?? {})).toEqual([
      "spec.unschedulable",
    ]);
    expect(nodeStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Status",
      "Roles",
      "Age",
      "Version",
      "Internal-IP",
      "External-IP",
      "OS-Image",
      "Kernel-Version",
      "Container-Runtime",
    ]);
  });
});
