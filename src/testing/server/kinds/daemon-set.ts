/**
 * apps/v1 DaemonSets (`pkg/registry/apps/daemonset/strategy.go`): SetDefaults_DaemonSet
 * (`pkg/apis/apps/v1/defaults.go`: updateStrategy RollingUpdate with maxUnavailable 1 and
 * maxSurge 0, revisionHistoryLimit 10). Validation is not enforced yet (permissive).
 */
import type { JsonObject } from "../../../core/json.js";
import { daemonSetPrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";
import { withDefaultedSpec } from "./workload.js";

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

function defaultDaemonSetSpec(spec: JsonObject): JsonObject {
  const out = { ...spec };
  const update: JsonObject = { ...objectAt(out, "updateStrategy") };
  if ((update["type"] ?? "") === "") update["type"] = "RollingUpdate";
  if (update["type"] === "RollingUpdate") {
    update["rollingUpdate"] = {
      maxUnavailable: 1,
      maxSurge: 0,
      ...objectAt(update, "rollingUpdate"),
    };
  }
  out["updateStrategy"] = update;
  out["revisionHistoryLimit"] ??= DEFAULT_REVISION_HISTORY_LIMIT;
  return out;
}

/** The DaemonSet strategy. */
export const daemonSetStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: (obj) => withDefaultedSpec(obj, defaultDaemonSetSpec),
  printer: daemonSetPrinter,
};
