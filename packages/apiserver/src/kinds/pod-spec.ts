/**
 * The PodSpec rules shared by Pods and every pod template (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, Job, CronJob): kube's defaulting
 * (`pkg/apis/core/v1/defaults.go` SetDefaults_PodSpec, SetDefaults_Container, and the
 * declarative `+default="TCP"` of ContainerPort.protocol) and the part of
 * `pkg/apis/core/validation/validation.go` (ValidatePodSpec, validateContainers,
 * validateContainerPorts) the embedded server enforces.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { validateEphemeralContainers } from "./pod-ephemeral-containers.js";
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  isDns1123Label,
  isValidPortName,
} from "kubekit/apimachinery";

/** kube's `DefaultTerminationGracePeriodSeconds`. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** kube's `DefaultSchedulerName`. */
export const DEFAULT_SCHEDULER_NAME = "default-scheduler";
/** kube's `TerminationMessagePathDefault`. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const MIN_PORT = 1;
const MAX_PORT = 65535;

/** The object at `obj[key]`, or an empty object. */
export function objectAt(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  return isJsonObject(v) ? v : {};
}

/** The objects of the list at `obj[key]` (non-objects are left to typed decoding). */
function objectsAt(obj: JsonObject, key: string): JsonObject[] {
  const v = obj[key];
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/**
 * `imagePullPolicy` by tag, as SetDefaults_Container reads the image with
 * `pkg/util/parsers.ParseImageName`: `Always` for the tag `latest` and for an image with
 * neither tag nor digest (which means `latest`), `IfNotPresent` otherwise (an empty image,
 * which ParseImageName cannot parse, included).
 */
export function defaultImagePullPolicy(image: string): "Always" | "IfNotPresent" {
  if (image === "") return "IfNotPresent";
  const at = image.indexOf("@");
  const named = at >= 0 ? image.slice(0, at) : image;
  const lastPart = named.slice(named.lastIndexOf("/") + 1);
  const colon = lastPart.lastIndexOf(":");
  const tag = colon >= 0 ? lastPart.slice(colon + 1) : at >= 0 ? "" : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: JsonValue): JsonValue {
  if (!isJsonObject(c)) return c;
  const out: JsonObject = { ...c };
  if ((out["imagePullPolicy"] ?? "") === "")
    out["imagePullPolicy"] = defaultImagePullPolicy(
      typeof out["image"] === "string" ? out["image"] : "",
    );
  if ((out["terminationMessagePath"] ?? "") === "")
    out["terminationMessagePath"] = DEFAULT_TERMINATION_MESSAGE_PATH;
  if ((out["terminationMessagePolicy"] ?? "") === "") out["terminationMessagePolicy"] = "File";
  if (Array.isArray(out["ports"])) {
    out["ports"] = out["ports"].map((p) =>
      isJsonObject(p) && (p["protocol"] ?? "") === "" ? { ...p, protocol: "TCP" } : p,
    );
  }
  return out;
}

/**
 * SetDefaults_PodSpec with its containers' defaults: dnsPolicy ClusterFirst, restartPolicy
 * Always (`restartPolicy` lets a Job template default to something else), securityContext
 * {}, terminationGracePeriodSeconds 30, schedulerName default-scheduler; per container
 * imagePullPolicy by tag, terminationMessagePath /dev/termination-log,
 * terminationMessagePolicy File, port protocol TCP.
 */
export function defaultPodSpec(spec: JsonObject): JsonObject {
  const out: JsonObject = { ...spec };
  if ((out["dnsPolicy"] ?? "") === "") out["dnsPolicy"] = "ClusterFirst";
  if ((out["restartPolicy"] ?? "") === "") out["restartPolicy"] = "Always";
  if (out["securityContext"] === undefined || out["securityContext"] === null)
    out["securityContext"] = {};
  if (
    out["terminationGracePeriodSeconds"] === undefined ||
    out["terminationGracePeriodSeconds"] === null
  )
    out["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if ((out["schedulerName"] ?? "") === "") out["schedulerName"] = DEFAULT_SCHEDULER_NAME;
  for (const key of ["containers", "initContainers", "ephemeralContainers"]) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map(defaultContainer);
  }
  return out;
}

/** The pod template of a workload spec with SetDefaults_PodSpec applied to its spec. */
export function defaultTemplateOf(spec: JsonObject): JsonObject {
  const template = spec["template"];
  if (!isJsonObject(template)) return spec;
  return { ...spec, template: { ...template, spec: defaultPodSpec(objectAt(template, "spec")) } };
}

function validatePorts(container: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  objectsAt(container, "ports").forEach((port, i) => {
    const at = `${path}.ports[${i}]`;
    const name = port["name"];
    if (typeof name === "string" && name !== "") {
      for (const msg of isValidPortName(name)) errors.push(fieldInvalid(`${at}.name`, name, msg));
      if (names.has(name)) errors.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    const containerPort = port["containerPort"];
    if (containerPort === undefined || containerPort === 0) {
      errors.push(fieldRequired(`${at}.containerPort`));
    } else if (
      typeof containerPort === "number" &&
      (containerPort < MIN_PORT || containerPort > MAX_PORT)
    ) {
      errors.push(
        fieldInvalid(
          `${at}.containerPort`,
          containerPort,
          `must be between ${MIN_PORT} and ${MAX_PORT}, inclusive`,
        ),
      );
    }
    const hostPort = port["hostPort"];
    if (
      typeof hostPort === "number" &&
      hostPort !== 0 &&
      (hostPort < MIN_PORT || hostPort > MAX_PORT)
    ) {
      errors.push(
        fieldInvalid(
          `${at}.hostPort`,
          hostPort,
          `must be between ${MIN_PORT} and ${MAX_PORT}, inclusive`,
        ),
      );
    }
    const protocol = port["protocol"];
    if (protocol === undefined || protocol === "") errors.push(fieldRequired(`${at}.protocol`));
    else if (!PROTOCOLS.includes(String(protocol)))
      errors.push(fieldNotSupported(`${at}.protocol`, protocol, PROTOCOLS));
  });
  return errors;
}

function validateContainerList(
  spec: JsonObject,
  key: "containers" | "initContainers" | "ephemeralContainers",
  path: string,
  seen: Set<string>,
): FieldError[] {
  const errors: FieldError[] = [];
  objectsAt(spec, key).forEach((c, i) => {
    const at = `${path}.${key}[${i}]`;
    const name = c["name"];
    if (typeof name !== "string" || name === "") {
      errors.push(fieldRequired(`${at}.name`));
    } else {
      for (const msg of isDns1123Label(name)) errors.push(fieldInvalid(`${at}.name`, name, msg));
      if (seen.has(name)) errors.push(fieldDuplicate(`${at}.name`, name));
      seen.add(name);
    }
    const image = c["image"];
    if (typeof image !== "string" || image === "") errors.push(fieldRequired(`${at}.image`));
    else if (image.trim() !== image)
      errors.push(
        fieldInvalid(`${at}.image`, image, "must not have leading or trailing whitespace"),
      );
    const pull = c["imagePullPolicy"];
    if (pull === undefined || pull === "") errors.push(fieldRequired(`${at}.imagePullPolicy`));
    else if (!PULL_POLICIES.includes(String(pull)))
      errors.push(fieldNotSupported(`${at}.imagePullPolicy`, pull, PULL_POLICIES));
    errors.push(...validatePorts(c, at));
  });
  return errors;
}

/**
 * ValidatePodSpec's rules the embedded server checks, on a defaulted spec at `path`:
 * containers required; container names required, DNS-1123 labels, unique across init and
 * regular containers; image required; imagePullPolicy supported; container ports (name an
 * IANA service name unique in the container, containerPort 1-65535 and required, hostPort
 * range, protocol SCTP/TCP/UDP); restartPolicy and dnsPolicy supported values.
 * `allowedRestartPolicies` narrows restartPolicy (a Deployment's template allows only Always).
 */
export function validatePodSpec(
  spec: JsonObject,
  path: string,
  allowedRestartPolicies: readonly string[] = RESTART_POLICIES,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const containers = spec["containers"];
  if (!Array.isArray(containers) || containers.length === 0) {
    errors.push(fieldRequired(`${path}.containers`));
  } else {
    errors.push(...validateContainerList(spec, "containers", path, seen));
  }
  errors.push(...validateContainerList(spec, "initContainers", path, seen));
  errors.push(...validateContainerList(spec, "ephemeralContainers", path, new Set()));
  errors.push(...validateEphemeralContainers(spec, path));
  const restartPolicy = spec["restartPolicy"];
  if (restartPolicy === undefined || restartPolicy === "") {
    errors.push(fieldRequired(`${path}.restartPolicy`));
  } else if (!allowedRestartPolicies.includes(String(restartPolicy))) {
    errors.push(fieldNotSupported(`${path}.restartPolicy`, restartPolicy, allowedRestartPolicies));
  }
  const dnsPolicy = spec["dnsPolicy"];
  if (dnsPolicy !== undefined && !DNS_POLICIES.includes(String(dnsPolicy)))
    errors.push(fieldNotSupported(`${path}.dnsPolicy`, dnsPolicy, DNS_POLICIES));
  return errors;
}
