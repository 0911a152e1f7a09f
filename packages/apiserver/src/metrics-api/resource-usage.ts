import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import { parseQuantity } from "../apiextensions/cel/library/quantity.js";

/**
 * Pod annotations that set the usage the metrics API reports for a pod's containers, as
 * quantities (`"250m"`, `"128Mi"`); a `.<container>` suffix applies to that container only and
 * wins over the pod-wide one. Changing them changes the next metrics read.
 */
export const USAGE_ANNOTATIONS = {
  /** CPU usage per container, e.g. `"250m"`. */
  cpu: "simulation.kubekit.dev/usage-cpu",
  /** Memory usage per container, e.g. `"64Mi"`. */
  memory: "simulation.kubekit.dev/usage-memory",
} as const;

/** The CPU a container uses when it sets neither the annotation nor a request (1m). */
const DEFAULT_CPU_NANOCORES = 1_000_000n;
/** The memory a container uses when it sets neither the annotation nor a request (4Mi). */
const DEFAULT_MEMORY_BYTES = 4n * 1024n * 1024n;

/** One container's usage: CPU in nanocores and memory in bytes. */
export interface ContainerUsage {
  readonly name: string;
  readonly cpuNanocores: bigint;
  readonly memoryBytes: bigint;
}

function objectAt(obj: JsonObject, key: string): JsonObject {
  const value = obj[key];
  return isJsonObject(value) ? value : {};
}

/** A quantity scaled by `unit` and truncated to an integer; undefined when not a quantity. */
function scaled(value: unknown, unit: bigint): bigint | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const q = parseQuantity(String(value));
  return q === undefined ? undefined : (q.num * unit) / q.den;
}

/**
 * The usage of each container of a Running pod (its main containers; metrics-server reports
 * those), by rule: the usage annotation ({@link USAGE_ANNOTATIONS}, per container or pod-wide),
 * else the container's resource request, else 1m CPU and 4Mi memory.
 */
export function containerUsage(pod: JsonObject): ContainerUsage[] {
  const annotations = (metadataOf(pod)?.["annotations"] ?? {}) as Record<string, string>;
  const containers = objectAt(pod, "spec")["containers"];
  return (Array.isArray(containers) ? containers.filter(isJsonObject) : []).map((c) => {
    const name = String(c["name"] ?? "");
    const requests = objectAt(objectAt(c, "resources"), "requests");
    const pick = (key: "cpu" | "memory", unit: bigint, fallback: bigint): bigint =>
      scaled(annotations[`${USAGE_ANNOTATIONS[key]}.${name}`], unit) ??
      scaled(annotations[USAGE_ANNOTATIONS[key]], unit) ??
      scaled(requests[key], unit) ??
      fallback;
    return {
      name,
      cpuNanocores: pick("cpu", 1_000_000_000n, DEFAULT_CPU_NANOCORES),
      memoryBytes: pick("memory", 1n, DEFAULT_MEMORY_BYTES),
    };
  });
}

/** The usage as metrics-server writes it: CPU in nanocores (`"1500000n"`), memory in KiB (`"4096Ki"`). */
export function usageQuantities(cpuNanocores: bigint, memoryBytes: bigint): JsonObject {
  return { cpu: `${cpuNanocores}n`, memory: `${memoryBytes / 1024n}Ki` };
}
