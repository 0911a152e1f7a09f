/**
 * core/v1 Services (`pkg/registry/core/service/strategy.go` and its REST allocator
 * `pkg/registry/core/service/storage/alloc.go`, whose `patchAllocatedValues` keeps what was
 * allocated): SetDefaults_Service (`pkg/apis/core/v1/defaults.go`) and the part of ValidateService
 * / ValidateServiceUpdate (`pkg/apis/core/validation/validation.go`) the embedded server enforces.
 *
 * @kind Service
 * @defaults type ClusterIP, sessionAffinity None (sessionAffinityConfig dropped), protocol TCP,
 * targetPort = port, traffic policies (internal Cluster; external Cluster for NodePort and
 * LoadBalancer), ipFamilies [IPv4] SingleStack; clusterIP(s) and nodePorts (30000–32767) allocated,
 * status.loadBalancer {} on create
 * @validation name a DNS-1035 label; supported type and sessionAffinity; externalName required
 * for ExternalName; ports required (but headless/ExternalName), port 1–65535, names required
 * when several, DNS-1123 labels and unique, protocol, targetPort 1–65535 or an IANA port name;
 * nodePort only for NodePort/LoadBalancer
 * @update same checks; clusterIP(s), ipFamilies, ipFamilyPolicy, nodePorts kept across update,
 * every patch type and server-side apply; a changed clusterIP is rejected
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  isDns1123Label,
  isValidPortName,
} from "kubekit/apimachinery";
import { servicePrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const SESSION_AFFINITIES = ["ClientIP", "None"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PORT_RANGE = "must be between 1 and 65535, inclusive";
/** kube-apiserver's default `--service-node-port-range`. */
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

/** 10.96.0.1 is the `kubernetes` Service's (`controllers/kubernetes-service.ts`); allocation starts after it. */
let nextClusterIp = 2;
let nextNodePort = 0;

function allocateClusterIp(): string {
  const n = nextClusterIp++;
  return `10.96.${(n >> 8) & 255}.${n & 255}`;
}

function allocateNodePort(): number {
  const port = NODE_PORT_MIN + (nextNodePort % (NODE_PORT_MAX - NODE_PORT_MIN + 1));
  nextNodePort++;
  return port;
}

function needsNodePorts(spec: JsonObject): boolean {
  return spec["type"] === "NodePort" || spec["type"] === "LoadBalancer";
}

function portsOf(spec: JsonObject): JsonValue[] {
  return Array.isArray(spec["ports"]) ? spec["ports"] : [];
}

function withNodePorts(spec: JsonObject, nodePortFor: (port: JsonObject) => JsonValue): JsonObject {
  if (!needsNodePorts(spec)) return spec;
  return {
    ...spec,
    ports: portsOf(spec).map((p) =>
      isJsonObject(p) && (p["nodePort"] === undefined || p["nodePort"] === 0)
        ? { ...p, nodePort: nodePortFor(p) }
        : p,
    ),
  };
}

/** Allocation on create: clusterIP(s), ipFamilies, ipFamilyPolicy and nodePorts. */
function allocate(obj: JsonObject): JsonObject {
  let spec: JsonObject = { ...objectAt(obj, "spec") };
  if (spec["type"] !== "ExternalName") {
    if (spec["clusterIP"] === undefined || spec["clusterIP"] === "") {
      spec["clusterIP"] = allocateClusterIp();
    }
    spec["clusterIPs"] ??= [spec["clusterIP"]];
    spec["ipFamilies"] ??= ["IPv4"];
    spec["ipFamilyPolicy"] ??= "SingleStack";
  }
  spec = withNodePorts(spec, () => allocateNodePort());
  return { ...obj, spec, status: { loadBalancer: {} } };
}

/**
 * `patchAllocatedValues`: an update (any verb, apply included) that leaves out clusterIP,
 * clusterIPs, ipFamilies, ipFamilyPolicy or a port's nodePort keeps the allocated value,
 * unless the Service becomes an ExternalName.
 */
function keepAllocated(next: JsonObject, old: JsonObject): JsonObject {
  const spec: JsonObject = { ...objectAt(next, "spec") };
  const oldSpec = objectAt(old, "spec");
  if (spec["type"] === "ExternalName" || oldSpec["type"] === "ExternalName") return next;
  const empty = (v: JsonValue | undefined): boolean =>
    v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
  if (empty(spec["clusterIP"]) && oldSpec["clusterIP"] !== undefined)
    spec["clusterIP"] = oldSpec["clusterIP"];
  if (
    empty(spec["clusterIPs"]) &&
    oldSpec["clusterIPs"] !== undefined &&
    spec["clusterIP"] === oldSpec["clusterIP"]
  )
    spec["clusterIPs"] = oldSpec["clusterIPs"];
  for (const key of ["ipFamilies", "ipFamilyPolicy"]) {
    if (empty(spec[key]) && oldSpec[key] !== undefined) spec[key] = oldSpec[key];
  }
  const oldPorts = portsOf(oldSpec).filter(isJsonObject);
  return {
    ...next,
    spec: withNodePorts(spec, (p) => {
      const same = oldPorts.find(
        (o) => o["port"] === p["port"] && (o["protocol"] ?? "TCP") === (p["protocol"] ?? "TCP"),
      );
      return typeof same?.["nodePort"] === "number" ? same["nodePort"] : allocateNodePort();
    }),
  };
}

function defaultService(obj: JsonObject): JsonObject {
  const spec: JsonObject = { ...objectAt(obj, "spec") };
  if ((spec["type"] ?? "") === "") spec["type"] = "ClusterIP";
  if ((spec["sessionAffinity"] ?? "") === "") spec["sessionAffinity"] = "None";
  if (spec["sessionAffinity"] === "None") delete spec["sessionAffinityConfig"];
  if (Array.isArray(spec["ports"])) {
    spec["ports"] = spec["ports"].map((p) => {
      if (!isJsonObject(p)) return p;
      const out: JsonObject = { protocol: "TCP", ...p };
      if ((out["protocol"] ?? "") === "") out["protocol"] = "TCP";
      const target = out["targetPort"];
      if (target === undefined || target === null || target === 0 || target === "")
        out["targetPort"] = out["port"] ?? null;
      return out;
    });
  }
  if (
    spec["internalTrafficPolicy"] === undefined &&
    ["ClusterIP", "NodePort", "LoadBalancer"].includes(String(spec["type"]))
  )
    spec["internalTrafficPolicy"] = "Cluster";
  if (needsNodePorts(spec) && (spec["externalTrafficPolicy"] ?? "") === "")
    spec["externalTrafficPolicy"] = "Cluster";
  return { ...obj, spec };
}

function validatePorts(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const ports = portsOf(spec);
  const headless = spec["clusterIP"] === "None";
  if (ports.length === 0 && spec["type"] !== "ExternalName" && !headless) {
    errors.push(fieldRequired("spec.ports"));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    if (!isJsonObject(p)) return;
    const at = `spec.ports[${i}]`;
    const name = p["name"];
    if (ports.length > 1 && (typeof name !== "string" || name === "")) {
      errors.push(fieldRequired(`${at}.name`));
    } else if (typeof name === "string" && name !== "") {
      for (const msg of isDns1123Label(name)) errors.push(fieldInvalid(`${at}.name`, name, msg));
      if (names.has(name)) errors.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    const port = p["port"];
    if (typeof port !== "number" || port < 1 || port > 65535)
      errors.push(fieldInvalid(`${at}.port`, port ?? 0, PORT_RANGE));
    const protocol = p["protocol"];
    if (!PROTOCOLS.includes(String(protocol)))
      errors.push(fieldNotSupported(`${at}.protocol`, protocol ?? "", PROTOCOLS));
    const target = p["targetPort"];
    if (typeof target === "number" && (target < 1 || target > 65535)) {
      errors.push(fieldInvalid(`${at}.targetPort`, target, PORT_RANGE));
    } else if (typeof target === "string") {
      for (const msg of isValidPortName(target))
        errors.push(fieldInvalid(`${at}.targetPort`, target, msg));
    }
    const nodePort = p["nodePort"];
    if (typeof nodePort === "number" && nodePort !== 0) {
      if (!needsNodePorts(spec))
        errors.push(
          fieldInvalid(`${at}.nodePort`, nodePort, "may not be used when `type` is 'ClusterIP'"),
        );
      else if (nodePort < 1 || nodePort > 65535)
        errors.push(fieldInvalid(`${at}.nodePort`, nodePort, PORT_RANGE));
    }
  });
  return errors;
}

/** ValidateService's rules the embedded server enforces. */
function validateService(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  if (!TYPES.includes(String(spec["type"])))
    errors.push(fieldNotSupported("spec.type", spec["type"] ?? "", TYPES));
  if (spec["type"] === "ExternalName") {
    const external = spec["externalName"];
    if (typeof external !== "string" || external === "")
      errors.push(fieldRequired("spec.externalName"));
  }
  if (!SESSION_AFFINITIES.includes(String(spec["sessionAffinity"])))
    errors.push(
      fieldNotSupported("spec.sessionAffinity", spec["sessionAffinity"] ?? "", SESSION_AFFINITIES),
    );
  errors.push(...validatePorts(spec));
  return errors;
}

/** ValidateServiceUpdate's rule: the primary clusterIP may not change once set. */
function validateClusterIpUnchanged(next: JsonObject, old: JsonObject): FieldError[] {
  const spec = objectAt(next, "spec");
  const oldSpec = objectAt(old, "spec");
  if (spec["type"] === "ExternalName" || oldSpec["type"] === "ExternalName") return [];
  const ips = Array.isArray(spec["clusterIPs"]) ? spec["clusterIPs"] : [];
  const oldIps = Array.isArray(oldSpec["clusterIPs"]) ? oldSpec["clusterIPs"] : [];
  if (spec["clusterIP"] === oldSpec["clusterIP"] && ips[0] === oldIps[0]) return [];
  return [
    fieldInvalid(
      "spec.clusterIPs[0]",
      ips.length > 0 ? ips : [spec["clusterIP"] ?? ""],
      "may not change once set",
    ),
  ];
}

/** The Service strategy. */
export const serviceStrategy: KindStrategy = {
  policy: {
    deleteReturnsObject: true,
    nameRule: "dns1035",
    selectableFields: selectableFields("spec.clusterIP", "spec.type"),
  },
  prepareForCreate: allocate,
  prepareForUpdate: keepAllocated,
  applyDefaults: defaultService,
  validateCreate: validateService,
  validateUpdate: (next, old) => [
    ...validateService(next),
    ...validateClusterIpUnchanged(next, old),
  ],
  printer: servicePrinter,
};
