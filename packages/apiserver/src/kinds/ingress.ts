/**
 * networking.k8s.io/v1 Ingresses (`pkg/registry/networking/ingress/strategy.go`) and
 * ValidateIngressSpec, ValidateIngressCreate and ValidateIngressUpdate
 * (`pkg/apis/networking/validation/validation.go`).
 *
 * @kind Ingress
 * @validation rules or defaultBackend required; host a DNS-1123 subdomain or wildcard, not an
 * IP; paths and pathType required and supported; Exact/Prefix paths absolute without `//`, `/./`,
 * `/../`, `%2f` and not ending in `/.` or `/..`; backend service (DNS-1035 name, port name or
 * number 1–65535, not both) or resource, not both; TLS hosts DNS-1123 subdomains or wildcard ones,
 * TLS secretName a DNS-1123 subdomain; ingressClassName a DNS-1123 subdomain, on create equal to
 * the `kubernetes.io/ingress.class` annotation when both are set
 * @update same checks; an invalid TLS secretName already stored may stay
 */
import { isIP } from "node:net";
import type { FieldError, JsonObject } from "kubekit";
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  isDns1035Label,
  isDns1123Subdomain,
  isValidPortName,
  isWildcardDns1123Subdomain,
} from "kubekit/apimachinery";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
const INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class";
const INVALID_PATH_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_PATH_SUFFIXES = ["/..", "/."];
const MIN_PORT = 1;
const MAX_PORT = 65535;

function validateServiceBackend(service: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = service["name"];
  if (typeof name !== "string" || name === "") errors.push(fieldRequired(`${path}.service.name`));
  else
    for (const msg of isDns1035Label(name))
      errors.push(fieldInvalid(`${path}.service.name`, name, msg));
  const port = objectAt(service, "port");
  const portName = typeof port["name"] === "string" ? port["name"] : "";
  const portNumber = typeof port["number"] === "number" ? port["number"] : 0;
  if (portName !== "" && portNumber !== 0) {
    errors.push(fieldInvalid(path, "", "cannot set both port name & port number"));
  } else if (portName !== "") {
    for (const msg of isValidPortName(portName))
      errors.push(fieldInvalid(`${path}.service.port.name`, portName, msg));
  } else if (portNumber !== 0) {
    if (portNumber < MIN_PORT || portNumber > MAX_PORT)
      errors.push(
        fieldInvalid(
          `${path}.service.port.number`,
          portNumber,
          `must be between ${MIN_PORT} and ${MAX_PORT}, inclusive`,
        ),
      );
  } else {
    errors.push(fieldRequired(path, "port name or number is required"));
  }
  return errors;
}

/** validateIngressBackend: exactly one of a Service or a resource backend. */
function validateBackend(backend: JsonObject, path: string): FieldError[] {
  const service = backend["service"];
  const resource = backend["resource"];
  const hasService = isJsonObject(service);
  const hasResource = isJsonObject(resource);
  if (hasService && hasResource)
    return [fieldInvalid(path, "", "cannot set both resource and service backends")];
  if (hasService) return validateServiceBackend(service, path);
  if (hasResource) {
    const errors: FieldError[] = [];
    for (const key of ["kind", "name"]) {
      const value = resource[key];
      if (typeof value !== "string" || value === "")
        errors.push(fieldRequired(`${path}.resource.${key}`));
    }
    return errors;
  }
  return [fieldInvalid(path, "", "resource or service backend is required")];
}

function validateHttpPath(entry: JsonObject, at: string): FieldError[] {
  const pathType = entry["pathType"];
  if (typeof pathType !== "string" || pathType === "")
    return [fieldRequired(`${at}.pathType`, "pathType must be specified")];
  const errors: FieldError[] = [];
  const path = typeof entry["path"] === "string" ? entry["path"] : "";
  if (pathType === "Exact" || pathType === "Prefix") {
    if (!path.startsWith("/"))
      errors.push(fieldInvalid(`${at}.path`, path, "must be an absolute path"));
    for (const seq of INVALID_PATH_SEQUENCES)
      if (path.includes(seq))
        errors.push(fieldInvalid(`${at}.path`, path, `must not contain '${seq}'`));
    for (const suffix of INVALID_PATH_SUFFIXES)
      if (path.endsWith(suffix))
        errors.push(fieldInvalid(`${at}.path`, path, `cannot end with '${suffix}'`));
  } else if (pathType === "ImplementationSpecific") {
    if (path !== "" && !path.startsWith("/"))
      errors.push(fieldInvalid(`${at}.path`, path, "must be an absolute path"));
  } else {
    errors.push(fieldNotSupported(`${at}.pathType`, pathType, PATH_TYPES));
  }
  errors.push(...validateBackend(objectAt(entry, "backend"), `${at}.backend`));
  return errors;
}

function validateHost(host: string, at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (isIP(host) !== 0)
    errors.push(fieldInvalid(at, host, "must be a DNS name, not an IP address"));
  const messages = host.includes("*") ? isWildcardDns1123Subdomain(host) : isDns1123Subdomain(host);
  for (const msg of messages) errors.push(fieldInvalid(at, host, msg));
  return errors;
}

function validateRule(rule: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const host = rule["host"];
  if (typeof host === "string" && host !== "") errors.push(...validateHost(host, `${at}.host`));
  const http = rule["http"];
  if (isJsonObject(http)) {
    const paths = http["paths"];
    if (!Array.isArray(paths) || paths.length === 0) errors.push(fieldRequired(`${at}.http.paths`));
    else
      paths.forEach((p, i) => {
        if (isJsonObject(p)) errors.push(...validateHttpPath(p, `${at}.http.paths[${i}]`));
      });
  }
  return errors;
}

/** validateTLSSecretName: an empty name is fine, else a Secret name (DNS-1123 subdomain). */
function secretNameErrors(name: string): string[] {
  return name === "" ? [] : isDns1123Subdomain(name);
}

function tlsEntries(spec: JsonObject): JsonObject[] {
  const tls = spec["tls"];
  return Array.isArray(tls) ? tls.filter(isJsonObject) : [];
}

/** validateIngressTLS. */
function validateTls(spec: JsonObject, allowInvalidSecretName: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const tls = spec["tls"];
  if (!Array.isArray(tls)) return errors;
  tls.forEach((entry, i) => {
    if (!isJsonObject(entry)) return;
    const hosts = Array.isArray(entry["hosts"]) ? entry["hosts"] : [];
    hosts.forEach((host, j) => {
      if (typeof host !== "string") return;
      const messages = host.includes("*")
        ? isWildcardDns1123Subdomain(host)
        : isDns1123Subdomain(host);
      for (const msg of messages)
        errors.push(fieldInvalid(`spec.tls[${i}].hosts[${j}]`, host, msg));
    });
    const secretName = typeof entry["secretName"] === "string" ? entry["secretName"] : "";
    if (!allowInvalidSecretName)
      for (const msg of secretNameErrors(secretName))
        errors.push(fieldInvalid(`spec.tls[${i}].secretName`, secretName, msg));
  });
  return errors;
}

function validateIngress(obj: JsonObject, allowInvalidSecretName = false): FieldError[] {
  const spec = objectAt(obj, "spec");
  const rules = Array.isArray(spec["rules"]) ? spec["rules"] : [];
  const defaultBackend = spec["defaultBackend"];
  const errors: FieldError[] = [];
  if (rules.length === 0 && !isJsonObject(defaultBackend))
    errors.push(
      fieldInvalid(
        "spec",
        spec["rules"] ?? null,
        "either `defaultBackend` or `rules` must be specified",
      ),
    );
  if (isJsonObject(defaultBackend))
    errors.push(...validateBackend(defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    if (isJsonObject(rule)) errors.push(...validateRule(rule, `spec.rules[${i}]`));
  });
  errors.push(...validateTls(spec, allowInvalidSecretName));
  const className = spec["ingressClassName"];
  if (typeof className === "string")
    for (const msg of isDns1123Subdomain(className))
      errors.push(fieldInvalid("spec.ingressClassName", className, msg));
  return errors;
}

/**
 * ValidateIngressCreate's extra rule: the legacy class annotation and `ingressClassName` agree
 * (kube reports it at `annotations.kubernetes.io/ingress.class`).
 */
function validateIngressCreate(obj: JsonObject): FieldError[] {
  const errors = validateIngress(obj);
  const annotation = objectAt(objectAt(obj, "metadata"), "annotations")[INGRESS_CLASS_ANNOTATION];
  const className = objectAt(obj, "spec")["ingressClassName"];
  if (typeof annotation === "string" && typeof className === "string" && annotation !== className)
    errors.push(
      fieldInvalid(
        `annotations.${INGRESS_CLASS_ANNOTATION}`,
        annotation,
        "must match `ingressClassName` when both are specified",
      ),
    );
  return errors;
}

/** ValidateIngressUpdate: a stored invalid TLS secretName may stay (`allowInvalidSecretName`). */
function validateIngressUpdate(next: JsonObject, old: JsonObject): FieldError[] {
  const allowInvalidSecretName = tlsEntries(objectAt(old, "spec")).some(
    (entry) =>
      secretNameErrors(typeof entry["secretName"] === "string" ? entry["secretName"] : "").length >
      0,
  );
  return validateIngress(next, allowInvalidSecretName);
}

/** The Ingress strategy. */
export const ingressStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  validateCreate: validateIngressCreate,
  validateUpdate: validateIngressUpdate,
};
