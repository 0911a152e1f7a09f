import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isValidLabelValue } from "kubekit/apimachinery";
import { networkPolicyStrategy } from "../../../../packages/apiserver/src/kinds/network-policy.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * networking.k8s.io/v1 NetworkPolicies: SetDefaults_NetworkPolicy / SetDefaults_NetworkPolicyPort
 * (`pkg/apis/networking/v1/defaults.go`), ValidateNetworkPolicySpec
 * (`pkg/apis/networking/validation/validation.go`).
 */

const policy = hooksOf(networkPolicyStrategy);
const RANGE = "must be between 1 and 65535, inclusive";
const CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

function policyWith(spec: JsonObject): JsonObject {
  return { metadata: { name: "deny", namespace: "default" }, spec: { podSelector: {}, ...spec } };
}

function errors(spec: JsonObject): string[] {
  return messages(policy.validateCreate(policy.applyDefaults(policyWith(spec))));
}

describe("NetworkPolicy defaults", () => {
  it("sets policyTypes Ingress, plus Egress when there are egress rules", () => {
    expect((policy.applyDefaults(policyWith({}))["spec"] as JsonObject)["policyTypes"]).toEqual([
      "Ingress",
    ]);
    expect(
      (policy.applyDefaults(policyWith({ egress: [{}] }))["spec"] as JsonObject)["policyTypes"],
    ).toEqual(["Ingress", "Egress"]);
    expect(
      (policy.applyDefaults(policyWith({ policyTypes: ["Egress"] }))["spec"] as JsonObject)[
        "policyTypes"
      ],
    ).toEqual(["Egress"]);
  });

  it("defaults each port's protocol to TCP", () => {
    const spec = policy.applyDefaults(
      policyWith({
        ingress: [{ ports: [{ port: 80 }, { port: 53, protocol: "UDP" }] }],
        egress: [{ ports: [{ port: 443 }] }],
      }),
    )["spec"] as JsonObject;
    expect(spec["ingress"]).toEqual([
      {
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 53, protocol: "UDP" },
        ],
      },
    ]);
    expect(spec["egress"]).toEqual([{ ports: [{ port: 443, protocol: "TCP" }] }]);
  });
});

describe("NetworkPolicy validation", () => {
  it("accepts a complete policy", () => {
    expect(
      errors({
        podSelector: { matchLabels: { app: "db" } },
        ingress: [
          {
            from: [
              { podSelector: { matchLabels: { app: "web" } }, namespaceSelector: {} },
              { ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } },
            ],
            ports: [{ port: 5432 }, { port: 30000, endPort: 32767 }, { port: "postgres" }],
          },
        ],
      }),
    ).toEqual([]);
  });

  it("checks ports: protocol, number range, endPort rules, IANA names", () => {
    expect(
      errors({
        ingress: [
          {
            ports: [
              { port: 0, protocol: "ICMP" },
              { port: 100, endPort: 90 },
              { port: "http", endPort: 90 },
              { endPort: 90 },
              { port: "Not_A_Name" },
            ],
          },
        ],
      }),
    ).toEqual([
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      `spec.ingress[0].ports[0].port: Invalid value: 0: ${RANGE}`,
      "spec.ingress[0].ports[1].endPort: Invalid value: 100: must be greater than or equal to `port`",
      "spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
      "spec.ingress[0].ports[3].endPort: Invalid value: 90: may not be specified when `port` is not specified",
      'spec.ingress[0].ports[4].port: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });

  it("checks peers: one required, an ipBlock alone, its CIDRs", () => {
    expect(
      errors({
        egress: [
          {
            to: [
              {},
              { ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} },
              { ipBlock: {} },
              { ipBlock: { cidr: "10.0.0.0" } },
              { ipBlock: { cidr: "10.0.0.0/16", except: ["10.0.0.0/16", "11.0.0.0/24", "bad"] } },
            ],
          },
        ],
      }),
    ).toEqual([
      "spec.egress[0].to[0]: Required value: must specify a peer",
      "spec.egress[0].to[1]: Forbidden: may not specify both ipBlock and another peer",
      "spec.egress[0].to[2].ipBlock.cidr: Required value",
      `spec.egress[0].to[3].ipBlock.cidr: Invalid value: "10.0.0.0": ${CIDR}`,
      'spec.egress[0].to[4].ipBlock.except[0]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`',
      'spec.egress[0].to[4].ipBlock.except[1]: Invalid value: "11.0.0.0/24": must be a strict subset of `cidr`',
      `spec.egress[0].to[4].ipBlock.except[2]: Invalid value: "bad": ${CIDR}`,
    ]);
  });

  it("checks policyTypes", () => {
    expect(errors({ policyTypes: ["Ingress", "Sideways"] })).toEqual([
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ]);
    expect(errors({ policyTypes: ["Ingress", "Egress", "Ingress"] })).toEqual([
      'spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes',
    ]);
  });

  it("lets an update keep invalid label values the stored podSelector already had", () => {
    const bad = policy.applyDefaults(
      policyWith({
        podSelector: { matchExpressions: [{ key: "a", operator: "In", values: ["-x-"] }] },
      }),
    );
    const badMessages = isValidLabelValue("-x-").map(
      (m) => `spec.podSelector.matchExpressions[0].values[0]: Invalid value: "-x-": ${m}`,
    );
    expect(messages(policy.validateCreate(bad))).toEqual(badMessages);
    expect(policy.validateUpdate(bad, bad)).toEqual([]);
    expect(messages(policy.validateUpdate(bad, policy.applyDefaults(policyWith({}))))).toEqual(
      badMessages,
    );
  });

  it("tracks generation", () => {
    expect(networkPolicyStrategy.policy).toEqual({ tracksGeneration: true });
  });
});
