/**
 * apps/v1 StatefulSets (`pkg/registry/apps/statefulset/strategy.go`): SetDefaults_StatefulSet
 * (`pkg/apis/apps/v1/defaults.go`: replicas 1, podManagementPolicy OrderedReady,
 * updateStrategy RollingUpdate with partition 0, revisionHistoryLimit 10, PVC retention
 * Retain/Retain). Validation is not enforced yet (permissive).
 */
import type { JsonObject } from "../../../core/json.js";
import { statefulSetPrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";
import { defaultReplicas, withDefaultedSpec } from "./workload.js";

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

function defaultStatefulSetSpec(spec: JsonObject): JsonObject {
  const out = { ...defaultReplicas(spec) };
  if ((out["podManagementPolicy"] ?? "") === "") out["podManagementPolicy"] = "OrderedReady";
  const update: JsonObject = { ...objectAt(out, "updateStrategy") };
  if ((update["type"] ?? "") === "") update["type"] = "RollingUpdate";
  if (update["type"] === "RollingUpdate") {
    update["rollingUpdate"] = { partition: 0, ...objectAt(update, "rollingUpdate") };
  }
  out["updateStrategy"] = update;
  out["revisionHistoryLimit"] ??= DEFAULT_REVISION_HISTORY_LIMIT;
  out["persistentVolumeClaimRetentionPolicy"] = {
    whenDeleted: "Retain",
    whenScaled: "Retain",
    ...objectAt(out, "persistentVolumeClaimRetentionPolicy"),
  };
  return out;
}

/** The StatefulSet strategy. */
export const statefulSetStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: (obj) => withDefaultedSpec(obj, defaultStatefulSetSpec),
  printer: statefulSetPrinter,
};
