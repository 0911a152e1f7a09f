import type { Container, Pod } from "kubernetes-types/core/v1.js";

/** Binary and decimal suffixes of a resource.Quantity (`apimachinery/pkg/api/resource/suffix.go`). */
const QUANTITY_SUFFIXES: Readonly<Record<string, number>> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * The value of a resource.Quantity (`"500m"`, `"1Gi"`, `"1e3"`, `2`), or NaN when it is not
 * one. Precise enough to compare requests with limits, which is all QoS needs.
 */
export function quantityValue(quantity: string | number): number {
  if (typeof quantity === "number") return quantity;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]{0,2}))$/.exec(
    quantity.trim(),
  );
  if (match === null) return Number.NaN;
  const [, number = "", exponent, suffix = ""] = match;
  const scale =
    exponent !== undefined ? 10 ** Number(exponent.slice(1)) : QUANTITY_SUFFIXES[suffix];
  return scale === undefined ? Number.NaN : Number(number) * scale;
}

/** The compute resources QoS looks at (`pkg/apis/core/v1/helper/qos/qos.go` supportedQoSComputeResources). */
const QOS_RESOURCES = ["cpu", "memory"] as const;

/**
 * The pod's QoS class (`pkg/apis/core/v1/helper/qos/qos.go` GetPodQOS), from the cpu and
 * memory requests and limits of its init and app containers: BestEffort with none at all;
 * Guaranteed when every container limits both and requests (where given) equal the limits;
 * Burstable otherwise.
 */
export function podQosClass(pod: Pod): "Guaranteed" | "Burstable" | "BestEffort" {
  const containers: Container[] = [
    ...(pod.spec?.initContainers ?? []),
    ...(pod.spec?.containers ?? []),
  ];
  let any = false;
  let guaranteed = true;
  for (const container of containers) {
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    for (const resource of QOS_RESOURCES) {
      const request = requests[resource];
      const limit = limits[resource];
      if ((request !== undefined && quantityValue(request) !== 0) || limit !== undefined)
        any = true;
      if (limit === undefined) guaranteed = false;
      else if (request !== undefined && quantityValue(request) !== quantityValue(limit)) {
        guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}
