/**
 * The environment of a simulated container's processes, as the kubelet builds it
 * (`pkg/kubelet/kubelet_pods.go` makeEnvironmentVariables): the container's `envFrom` and `env`
 * (literal values with `$(VAR)` references expanded, `fieldRef`, `configMapKeyRef`,
 * `secretKeyRef`), then the Service variables (`pkg/kubelet/envvars/envvars.go` FromServices)
 * for names not set already, plus the image's `PATH`, `HOSTNAME` and `HOME`.
 */
import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { ServerContext } from "../server/server-context.js";

/** The default `PATH` of container images (the one Docker and containerd set). */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** `my-svc` → `MY_SVC` (envvars.go makeEnvVariableName). */
function envName(name: string): string {
  return name.toUpperCase().replace(/-/g, "_");
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

/**
 * The variables of one Service (envvars.go FromServices and makeLinkVariables): `X_SERVICE_HOST`,
 * `X_SERVICE_PORT`, `X_SERVICE_PORT_<NAME>` per named port, and Docker's link variables
 * (`X_PORT`, `X_PORT_<port>_<PROTO>`, `…_PROTO`, `…_PORT`, `…_ADDR`).
 */
function serviceVariables(service: JsonObject): [string, string][] {
  const spec = isJsonObject(service["spec"]) ? service["spec"] : {};
  const host = typeof spec["clusterIP"] === "string" ? spec["clusterIP"] : "";
  const ports = objects(spec["ports"]);
  const prefix = envName(String(metadataOf(service)?.["name"] ?? ""));
  const out: [string, string][] = [[`${prefix}_SERVICE_HOST`, host]];
  if (ports.length > 0) out.push([`${prefix}_SERVICE_PORT`, String(ports[0]!["port"])]);
  for (const port of ports) {
    if (typeof port["name"] === "string" && port["name"] !== "")
      out.push([`${prefix}_SERVICE_PORT_${envName(port["name"])}`, String(port["port"])]);
  }
  ports.forEach((port, i) => {
    const protocol = typeof port["protocol"] === "string" ? port["protocol"] : "TCP";
    const hostPort = host.includes(":") ? `[${host}]:${port["port"]}` : `${host}:${port["port"]}`;
    const url = `${protocol.toLowerCase()}://${hostPort}`;
    if (i === 0) out.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port["port"]}_${protocol.toUpperCase()}`;
    out.push(
      [portPrefix, url],
      [`${portPrefix}_PROTO`, protocol.toLowerCase()],
      [`${portPrefix}_PORT`, String(port["port"])],
      [`${portPrefix}_ADDR`, host],
    );
  });
  return out;
}

/**
 * The Services whose variables a pod sees (`kubelet_pods.go` getServiceEnvVarMap): those with a
 * cluster IP in the pod's namespace unless `enableServiceLinks` is false, and always the
 * `kubernetes` Service of `default` (unless the pod's namespace has its own of that name).
 */
function visibleServices(ctx: ServerContext, pod: JsonObject): JsonObject[] {
  const resource = ctx.registry.lookup("", "v1", "services")?.storageId;
  if (resource === undefined) return [];
  const namespace = String(metadataOf(pod)?.["namespace"] ?? "");
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const links = spec["enableServiceLinks"] !== false;
  const byName = new Map<string, JsonObject>();
  const hasIp = (svc: JsonObject): boolean => {
    const ip = isJsonObject(svc["spec"]) ? svc["spec"]["clusterIP"] : undefined;
    return typeof ip === "string" && ip !== "" && ip !== "None";
  };
  const master = ctx.storage.get(resource, "default/kubernetes");
  if (master !== undefined && hasIp(master)) byName.set("kubernetes", master);
  if (links) {
    for (const [, svc] of ctx.storage.range(
      resource,
      ctx.storage.currentRevision,
      `${namespace}/`,
      undefined,
    ).entries) {
      if (hasIp(svc)) byName.set(String(metadataOf(svc)?.["name"] ?? ""), svc);
    }
  }
  return [...byName.values()];
}

/** `$(NAME)` references to variables defined so far, `$$(NAME)` escaped (`third_party/forked/golang/expansion`). */
function expand(value: string, env: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name?: string) => {
    if (name === undefined) return "$";
    return Object.prototype.hasOwnProperty.call(env, name) ? env[name]! : match;
  });
}

/** A `metadata.labels['key']`-style path's value. */
function fieldValue(pod: JsonObject, path: string): string {
  const meta = metadataOf(pod) ?? {};
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const status = isJsonObject(pod["status"]) ? pod["status"] : {};
  const keyed = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (keyed) {
    const map = meta[keyed[1]!];
    return isJsonObject(map) && typeof map[keyed[2]!] === "string" ? String(map[keyed[2]!]) : "";
  }
  const simple: Record<string, unknown> = {
    "metadata.name": meta["name"],
    "metadata.namespace": meta["namespace"],
    "metadata.uid": meta["uid"],
    "spec.nodeName": spec["nodeName"],
    "spec.serviceAccountName": spec["serviceAccountName"],
    "status.hostIP": status["hostIP"],
    "status.podIP": status["podIP"],
    "status.podIPs": objects(status["podIPs"])
      .map((p) => p["ip"])
      .join(","),
  };
  const value = simple[path];
  return typeof value === "string" ? value : "";
}

/** A key of a ConfigMap (`data`) or Secret (`data`, base64) of the pod's namespace, if present. */
function keyValue(
  ctx: ServerContext,
  plural: "configmaps" | "secrets",
  namespace: string,
  name: string,
  key: string | undefined,
): string | Record<string, string> | undefined {
  const resource = ctx.registry.lookup("", "v1", plural)?.storageId;
  const obj =
    resource === undefined ? undefined : ctx.storage.get(resource, `${namespace}/${name}`);
  if (obj === undefined) return undefined;
  const decoded: Record<string, string> = {};
  const data = isJsonObject(obj["data"]) ? obj["data"] : {};
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== "string") continue;
    decoded[k] = plural === "secrets" ? Buffer.from(v, "base64").toString("utf8") : v;
  }
  if (plural === "configmaps" && isJsonObject(obj["binaryData"])) {
    for (const [k, v] of Object.entries(obj["binaryData"]))
      if (typeof v === "string") decoded[k] = Buffer.from(v, "base64").toString("utf8");
  }
  return key === undefined ? decoded : decoded[key];
}

/** The value of one `env` entry's `valueFrom` (undefined: the source is missing; the variable is left out). */
function valueFrom(ctx: ServerContext, pod: JsonObject, from: JsonObject): string | undefined {
  const namespace = String(metadataOf(pod)?.["namespace"] ?? "");
  if (isJsonObject(from["fieldRef"]))
    return fieldValue(pod, String(from["fieldRef"]["fieldPath"] ?? ""));
  for (const [field, plural] of [
    ["configMapKeyRef", "configmaps"],
    ["secretKeyRef", "secrets"],
  ] as const) {
    const ref = from[field];
    if (!isJsonObject(ref)) continue;
    const value = keyValue(
      ctx,
      plural,
      namespace,
      String(ref["name"] ?? ""),
      String(ref["key"] ?? ""),
    );
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}

/**
 * The environment of `container` of `pod` as its processes see it (see the module comment);
 * `TERM=xterm` is added with a TTY. Missing ConfigMaps, Secrets and keys leave their variables
 * out (the kubelet would refuse to start the container; the simulation starts it anyway).
 */
export function containerEnvironment(
  ctx: ServerContext,
  pod: JsonObject,
  container: JsonObject,
  tty: boolean,
): Record<string, string> {
  const meta = metadataOf(pod) ?? {};
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const hostname =
    typeof spec["hostname"] === "string" && spec["hostname"] !== ""
      ? spec["hostname"]
      : meta["name"];
  const env: Record<string, string> = { PATH: DEFAULT_PATH, HOSTNAME: String(hostname ?? "") };
  const namespace = String(meta["namespace"] ?? "");
  for (const source of objects(container["envFrom"])) {
    const prefix = typeof source["prefix"] === "string" ? source["prefix"] : "";
    const ref = isJsonObject(source["configMapRef"]) ? source["configMapRef"] : source["secretRef"];
    if (!isJsonObject(ref)) continue;
    const plural = isJsonObject(source["configMapRef"]) ? "configmaps" : "secrets";
    const values = keyValue(ctx, plural, namespace, String(ref["name"] ?? ""), undefined);
    if (typeof values === "object")
      for (const [k, v] of Object.entries(values)) env[prefix + k] = v;
  }
  for (const entry of objects(container["env"])) {
    if (typeof entry["name"] !== "string") continue;
    const value = isJsonObject(entry["valueFrom"])
      ? valueFrom(ctx, pod, entry["valueFrom"])
      : expand(typeof entry["value"] === "string" ? entry["value"] : "", env);
    if (value !== undefined) env[entry["name"]] = value;
  }
  for (const service of visibleServices(ctx, pod)) {
    for (const [name, value] of serviceVariables(service)) if (!(name in env)) env[name] = value;
  }
  env["HOME"] ??= "/root";
  if (tty) env["TERM"] ??= "xterm";
  return env;
}
