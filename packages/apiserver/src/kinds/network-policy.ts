/**
 * networking.k8s.io/v1 NetworkPolicies (`pkg/registry/networking/networkpolicy/strategy.go`):
 * SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort
 * (`pkg/apis/networking/v1/defaults.go`) and ValidateNetworkPolicySpec
 * (`pkg/apis/networking/validation/validation.go`; ValidationOptionsForNetworking on update).
 *
 * @kind NetworkPolicy
 * @defaults port protocol TCP; policyTypes Ingress (+ Egress with egress rules)
 * @validation port protocol TCP/UDP/SCTP; port 1–65535 or IANA name; endPort rules (≥ port,
 * only with a numeric port); at most two policyTypes, Ingress or Egress; podSelector and peer
 * pod/namespace selectors valid label selectors; a peer required, an ipBlock alone, its cidr
 * required and a valid CIDR, except entries valid CIDRs strictly inside it
 * @update same checks; invalid label values the stored podSelector had may stay
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  isValidPortName,
} from "kubekit/apimachinery";
import { cidrContains, cidrErrors, parseCidr } from "./cidr.js";
import type { KindStrategy } from "./kind-strategy.js";
import {
  validateLabelSelector,
  type LabelSelectorValidationOptions,
} from "./label-selector-validation.js";
import { objectAt } from "./pod-spec.js";

const PROTOCOLS = ["TCP", "UDP", "SCTP"];
const POLICY_TYPES = ["Ingress", "Egress"];
const MIN_PORT = 1;
const MAX_PORT = 65535;
const RULE_KINDS = ["ingress", "egress"] as const;

function withDefaultProtocols(rules: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(rules)) return rules;
  return rules.map((rule) => {
    if (!isJsonObject(rule) || !Array.isArray(rule["ports"])) return rule;
    const ports = rule["ports"].map((p) =>
      isJsonObject(p) && (p["protocol"] ?? null) === null ? { ...p, protocol: "TCP" } : p,
    );
    return { ...rule, ports };
  });
}

function defaultNetworkPolicy(obj: JsonObject): JsonObject {
  const spec: JsonObject = { ...objectAt(obj, "spec") };
  for (const key of RULE_KINDS) {
    const rules = withDefaultProtocols(spec[key]);
    if (rules !== undefined) spec[key] = rules;
  }
  const types = spec["policyTypes"];
  if (!Array.isArray(types) || types.length === 0) {
    const egress = spec["egress"];
    spec["policyTypes"] =
      Array.isArray(egress) && egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
  return { ...obj, spec };
}

function portNumberErrors(value: number, path: string): FieldError[] {
  return value < MIN_PORT || value > MAX_PORT
    ? [fieldInvalid(path, value, `must be between ${MIN_PORT} and ${MAX_PORT}, inclusive`)]
    : [];
}

/** ValidateNetworkPolicyPort. */
function validatePort(port: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const protocol = port["protocol"];
  if (typeof protocol === "string" && !PROTOCOLS.includes(protocol))
    errors.push(fieldNotSupported(`${at}.protocol`, protocol, PROTOCOLS));
  const value = port["port"];
  const endPort = port["endPort"];
  const hasEndPort = typeof endPort === "number";
  if (typeof value === "number") {
    errors.push(...portNumberErrors(value, `${at}.port`));
    if (hasEndPort) {
      // kube reports the port, not the endPort, as the bad value here.
      if (endPort < value)
        errors.push(
          fieldInvalid(`${at}.endPort`, value, "must be greater than or equal to `port`"),
        );
      errors.push(...portNumberErrors(endPort, `${at}.endPort`));
    }
  } else if (typeof value === "string") {
    if (hasEndPort)
      errors.push(
        fieldInvalid(`${at}.endPort`, endPort, "may not be specified when `port` is non-numeric"),
      );
    for (const msg of isValidPortName(value)) errors.push(fieldInvalid(`${at}.port`, value, msg));
  } else if (hasEndPort) {
    errors.push(
      fieldInvalid(`${at}.endPort`, endPort, "may not be specified when `port` is not specified"),
    );
  }
  return errors;
}

/** ValidateIPBlock. */
function validateIpBlock(block: JsonObject, at: string): FieldError[] {
  const cidr = typeof block["cidr"] === "string" ? block["cidr"] : "";
  if (cidr === "") return [fieldRequired(`${at}.cidr`)];
  const errors = cidrErrors(`${at}.cidr`, cidr);
  const outer = parseCidr(cidr);
  if (outer === undefined) return errors;
  const except = Array.isArray(block["except"]) ? block["except"] : [];
  except.forEach((value, i) => {
    if (typeof value !== "string") return;
    const path = `${at}.except[${i}]`;
    const inner = parseCidr(value);
    if (inner === undefined) {
      errors.push(...cidrErrors(path, value));
    } else if (!cidrContains(outer, inner) || outer.prefix >= inner.prefix) {
      errors.push(fieldInvalid(path, value, "must be a strict subset of `cidr`"));
    }
  });
  return errors;
}

/** ValidateNetworkPolicyPeer. */
function validatePeer(
  peer: JsonObject,
  at: string,
  options: LabelSelectorValidationOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  let peers = 0;
  for (const key of ["podSelector", "namespaceSelector"]) {
    const selector = peer[key];
    if (selector === undefined || selector === null) continue;
    peers++;
    errors.push(...validateLabelSelector(selector, `${at}.${key}`, options));
  }
  const ipBlock = peer["ipBlock"];
  const hasIpBlock = isJsonObject(ipBlock);
  if (hasIpBlock) {
    peers++;
    errors.push(...validateIpBlock(ipBlock, `${at}.ipBlock`));
  }
  if (peers === 0) errors.push(fieldRequired(at, "must specify a peer"));
  else if (peers > 1 && hasIpBlock)
    errors.push(fieldForbidden(at, "may not specify both ipBlock and another peer"));
  return errors;
}

/** ValidateNetworkPolicySpec. */
function validateNetworkPolicy(
  obj: JsonObject,
  options: LabelSelectorValidationOptions = {},
): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [
    ...validateLabelSelector(spec["podSelector"], "spec.podSelector", options),
  ];
  for (const key of RULE_KINDS) {
    const rules = spec[key];
    if (!Array.isArray(rules)) continue;
    const peersKey = key === "ingress" ? "from" : "to";
    rules.forEach((rule, i) => {
      if (!isJsonObject(rule)) return;
      const ports = Array.isArray(rule["ports"]) ? rule["ports"] : [];
      ports.forEach((port, j) => {
        if (isJsonObject(port)) errors.push(...validatePort(port, `spec.${key}[${i}].ports[${j}]`));
      });
      const peers = Array.isArray(rule[peersKey]) ? rule[peersKey] : [];
      peers.forEach((peer, j) => {
        if (isJsonObject(peer))
          errors.push(...validatePeer(peer, `spec.${key}[${i}].${peersKey}[${j}]`, options));
      });
    });
  }
  const types = spec["policyTypes"];
  if (Array.isArray(types)) {
    if (types.length > POLICY_TYPES.length) {
      errors.push(
        fieldInvalid("spec.policyTypes", types, "may not specify more than two policyTypes"),
      );
    } else {
      types.forEach((t, i) => {
        if (!POLICY_TYPES.includes(String(t)))
          errors.push(fieldNotSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
      });
    }
  }
  return errors;
}

/** The NetworkPolicy strategy. */
export const networkPolicyStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: defaultNetworkPolicy,
  validateCreate: (obj) => validateNetworkPolicy(obj),
  // ValidationOptionsForNetworking: invalid label values may stay when the stored podSelector
  // already had some.
  validateUpdate: (next, old) =>
    validateNetworkPolicy(next, {
      allowInvalidLabelValues:
        validateLabelSelector(objectAt(old, "spec")["podSelector"], "spec.podSelector").length > 0,
    }),
};
