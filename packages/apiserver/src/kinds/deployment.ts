/**
 * apps/v1 Deployments (`pkg/registry/apps/deployment/strategy.go`): SetDefaults_Deployment
 * (`pkg/apis/apps/v1/defaults.go`: replicas 1, strategy RollingUpdate with maxUnavailable
 * and maxSurge 25%, revisionHistoryLimit 10, progressDeadlineSeconds 600), the workload
 * selector and template rules with restartPolicy Always only, and an immutable selector.
 */
import type { JsonObject } from "kubekit";
import { deploymentPrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";
import {
  defaultReplicas,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  withDefaultedSpec,
} from "./workload.js";

/** The storage id of apps/v1 Deployments. */
export const DEPLOYMENT_STORAGE_ID = "apps/deployments";

const DEFAULT_MAX_UNAVAILABLE = "25%";
const DEFAULT_MAX_SURGE = "25%";
const DEFAULT_REVISION_HISTORY_LIMIT = 10;
const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

function defaultDeploymentSpec(spec: JsonObject): JsonObject {
  const out = defaultReplicas(spec);
  const strategy: JsonObject = { ...objectAt(out, "strategy") };
  if ((strategy["type"] ?? "") === "") strategy["type"] = "RollingUpdate";
  if (strategy["type"] === "RollingUpdate") {
    const rolling: JsonObject = { ...objectAt(strategy, "rollingUpdate") };
    rolling["maxUnavailable"] ??= DEFAULT_MAX_UNAVAILABLE;
    rolling["maxSurge"] ??= DEFAULT_MAX_SURGE;
    strategy["rollingUpdate"] = rolling;
  }
  out["strategy"] = strategy;
  out["revisionHistoryLimit"] ??= DEFAULT_REVISION_HISTORY_LIMIT;
  out["progressDeadlineSeconds"] ??= DEFAULT_PROGRESS_DEADLINE_SECONDS;
  return out;
}

/** The Deployment strategy. */
export const deploymentStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: (obj) => withDefaultedSpec(obj, (spec) => defaultDeploymentSpec({ ...spec })),
  validateCreate: (obj) => validateWorkloadSpec(obj, "deployment", ["Always"]),
  validateUpdate: (next, old) => [
    ...validateWorkloadSpec(next, "deployment", ["Always"]),
    ...validateSelectorUnchanged(next, old),
  ],
  printer: deploymentPrinter,
};
