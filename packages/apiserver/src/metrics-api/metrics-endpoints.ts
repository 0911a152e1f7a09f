/**
 * `metrics.k8s.io/v1beta1` as metrics-server serves it behind the aggregator
 * (`sigs.k8s.io/metrics-server/pkg/api`): PodMetrics of the Running pods and NodeMetrics of
 * the Nodes, computed at each read from what the simulated kubelets report (pods Running on
 * their Nodes) and the usage rules of `resource-usage.ts`.
 */
import { type JsonObject, newNotFound } from "kubekit";
import { formatTime, isJsonObject, metadataOf } from "kubekit/apimachinery";
import { NODE_STORAGE_ID } from "../kinds/node.js";
import { POD_STORAGE_ID } from "../kinds/pod.js";
import type { ServerContext } from "../server/server-context.js";
import { checkFieldSelector, objectFilter, parseListOptions } from "../endpoints/list-options.js";
import { sendJson } from "../endpoints/responses.js";
import type { VerbRequest } from "../endpoints/verb-request.js";
import { METRICS_GROUP_VERSION } from "./metrics-resources.js";
import { containerUsage, usageQuantities } from "./resource-usage.js";

const API_VERSION = `${METRICS_GROUP_VERSION.group}/${METRICS_GROUP_VERSION.version}`;
/** metrics-server's default `--metric-resolution`: the window of every sample. */
const WINDOW = "15s";

/** The sample time: now, to the second (metav1.Time precision). */
function sampleTime(ctx: ServerContext): string {
  return formatTime(Math.floor(ctx.clock.now() / 1000) * 1000);
}

function isRunning(pod: JsonObject): boolean {
  const status = pod["status"];
  return isJsonObject(status) && status["phase"] === "Running";
}

function metricsMeta(obj: JsonObject, time: string): JsonObject {
  const meta = metadataOf(obj) ?? {};
  return {
    name: meta["name"] ?? "",
    ...(meta["namespace"] !== undefined ? { namespace: meta["namespace"] } : {}),
    creationTimestamp: time,
    ...(meta["labels"] !== undefined ? { labels: meta["labels"] } : {}),
  };
}

/** The PodMetrics of a Running pod; undefined for any other pod (metrics-server has none). */
function podMetrics(pod: JsonObject, time: string): JsonObject | undefined {
  if (!isRunning(pod)) return undefined;
  return {
    kind: "PodMetrics",
    apiVersion: API_VERSION,
    metadata: metricsMeta(pod, time),
    timestamp: time,
    window: WINDOW,
    containers: containerUsage(pod).map((c) => ({
      name: c.name,
      usage: usageQuantities(c.cpuNanocores, c.memoryBytes),
    })),
  };
}

/** The NodeMetrics of a Node: the sum of the usage of the Running pods bound to it. */
function nodeMetrics(ctx: ServerContext, node: JsonObject, time: string): JsonObject {
  const name = metadataOf(node)?.["name"];
  let cpu = 0n;
  let memory = 0n;
  for (const [, pod] of ctx.storage.current(POD_STORAGE_ID)) {
    const spec = pod["spec"];
    if (!isRunning(pod) || !isJsonObject(spec) || spec["nodeName"] !== name) continue;
    for (const c of containerUsage(pod)) {
      cpu += c.cpuNanocores;
      memory += c.memoryBytes;
    }
  }
  return {
    kind: "NodeMetrics",
    apiVersion: API_VERSION,
    metadata: metricsMeta(node, time),
    timestamp: time,
    window: WINDOW,
    usage: usageQuantities(cpu, memory),
  };
}

function isPods(request: VerbRequest): boolean {
  return request.entry.info.plural === "pods";
}

/** `GET .../pods/NAME` or `.../nodes/NAME`; 404 as metrics-server words it. */
export function handleMetricsGet(request: VerbRequest): void {
  const { ctx, namespace, name, res } = request;
  const time = sampleTime(ctx);
  if (isPods(request)) {
    const pod = ctx.storage.get(POD_STORAGE_ID, `${namespace}/${name}`);
    const metrics = pod && podMetrics(pod, time);
    if (!metrics) {
      throw newNotFound(
        { group: METRICS_GROUP_VERSION.group, resource: "podmetrics" },
        `${namespace}/${name}`,
      );
    }
    return sendJson(res, 200, metrics);
  }
  const node = ctx.storage.get(NODE_STORAGE_ID, name);
  if (!node)
    throw newNotFound({ group: METRICS_GROUP_VERSION.group, resource: "nodemetrics" }, name);
  sendJson(res, 200, nodeMetrics(ctx, node, time));
}

/** `GET .../pods` (one namespace or all) or `.../nodes`, with label and field selectors. */
export function handleMetricsList(request: VerbRequest): void {
  const { ctx, entry, namespace, res, query } = request;
  const options = parseListOptions(query, false, true);
  checkFieldSelector(entry, options.fieldSelector);
  const matches = objectFilter(entry, namespace, options);
  const time = sampleTime(ctx);
  const items: JsonObject[] = [];
  if (isPods(request)) {
    const source =
      namespace === ""
        ? ctx.storage.current(POD_STORAGE_ID)
        : ctx.storage.withPrefix(POD_STORAGE_ID, `${namespace}/`);
    for (const [, pod] of source) {
      const metrics = matches(pod) ? podMetrics(pod, time) : undefined;
      if (metrics) items.push(metrics);
    }
  } else {
    for (const [, node] of ctx.storage.current(NODE_STORAGE_ID)) {
      if (matches(node)) items.push(nodeMetrics(ctx, node, time));
    }
  }
  sendJson(res, 200, {
    kind: `${entry.info.kind}List`,
    apiVersion: API_VERSION,
    metadata: {},
    items,
  });
}
