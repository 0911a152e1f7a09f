import { type JsonObject, type JsonValue, LabelSelector, newInvalid } from "kubekit";
import { isJsonObject, fieldInvalid, metadataOf } from "kubekit/apimachinery";
import type { ResourceEntry } from "../registry/registry.js";

function readPath(obj: JsonObject, path: string): JsonValue | undefined {
  let cur: JsonValue | undefined = obj;
  for (const part of path.replace(/^\./, "").split(".")) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function writePath(obj: JsonObject, path: string, value: JsonValue): JsonObject {
  const [head, ...rest] = path.replace(/^\./, "").split(".") as [string, ...string[]];
  if (rest.length === 0) return { ...obj, [head]: value };
  const child = isJsonObject(obj[head]) ? (obj[head] as JsonObject) : {};
  return { ...obj, [head]: writePath(child, rest.join("."), value) };
}

function selectorString(entry: ResourceEntry, obj: JsonObject): string {
  const custom = entry.info.custom?.scale;
  if (custom) {
    const v = custom.labelSelectorPath ? readPath(obj, custom.labelSelectorPath) : undefined;
    return typeof v === "string" ? v : "";
  }
  const selector = readPath(obj, ".spec.selector");
  if (!isJsonObject(selector)) return "";
  if (entry.info.kind === "ReplicationController") {
    return LabelSelector.fromSet(selector as Record<string, string>).toString();
  }
  try {
    return LabelSelector.fromLabelSelector(
      selector as Parameters<typeof LabelSelector.fromLabelSelector>[0],
    ).toString();
  } catch {
    return "";
  }
}

/** The autoscaling/v1 Scale view of an object (built-in or custom with a scale subresource). */
export function toScale(entry: ResourceEntry, obj: JsonObject): JsonObject {
  const meta = metadataOf(obj) ?? {};
  const custom = entry.info.custom?.scale;
  const specReplicas = readPath(obj, custom?.specReplicasPath ?? ".spec.replicas");
  const statusReplicas = readPath(obj, custom?.statusReplicasPath ?? ".status.replicas");
  const selector = selectorString(entry, obj);
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta["name"] ?? "",
      ...(meta["namespace"] ? { namespace: meta["namespace"] } : {}),
      uid: meta["uid"] ?? "",
      resourceVersion: meta["resourceVersion"] ?? "",
      creationTimestamp: meta["creationTimestamp"] ?? null,
    },
    spec: { ...(typeof specReplicas === "number" ? { replicas: specReplicas } : {}) },
    status: {
      replicas: typeof statusReplicas === "number" ? statusReplicas : 0,
      ...(selector ? { selector } : {}),
    },
  };
}

/**
 * The parent object with the Scale's spec.replicas written back, carrying the Scale's
 * resourceVersion as the update precondition (a Scale PUT with a stale RV is a 409).
 */
export function fromScale(entry: ResourceEntry, parent: JsonObject, scale: JsonObject): JsonObject {
  const spec = isJsonObject(scale["spec"]) ? scale["spec"] : {};
  const replicas = spec["replicas"];
  if (
    replicas !== undefined &&
    (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0)
  ) {
    throw newInvalid(
      { group: "autoscaling", kind: "Scale" },
      String(metadataOf(parent)?.["name"] ?? ""),
      [fieldInvalid("spec.replicas", replicas, "must be greater than or equal to 0")],
    );
  }
  const path = entry.info.custom?.scale?.specReplicasPath ?? ".spec.replicas";
  const updated = writePath(parent, path, replicas ?? 0);
  const scaleMeta = metadataOf(scale) ?? {};
  const rv = scaleMeta["resourceVersion"];
  return {
    ...updated,
    metadata: {
      ...metadataOf(parent),
      resourceVersion:
        typeof rv === "string" && rv !== ""
          ? rv
          : (metadataOf(parent)?.["resourceVersion"] as JsonValue),
    },
  };
}
