/**
 * apps/v1 Deployments (`pkg/registry/apps/deployment/strategy.go`): SetDefaults_Deployment
 * (`pkg/apis/apps/v1/defaults.go`) and ValidateDeployment / ValidateDeploymentUpdate
 * (`pkg/apis/apps/validation/validation.go`), with the selector and template rules every workload
 * shares (`workload.ts`).
 *
 * @kind Deployment
 * @defaults replicas 1, strategy RollingUpdate 25%/25% (maxUnavailable, maxSurge),
 * revisionHistoryLimit 10, progressDeadlineSeconds 600, pod-template defaults
 * @validation selector required, a valid label selector (matchLabels keys and values;
 * matchExpressions with In/NotIn values required, Exists/DoesNotExist values forbidden, no other
 * operator), `invalid label selector` when it cannot be converted, non-empty, matching the
 * template labels; replicas ≥ 0; template restartPolicy Always; containers as Pod
 * @update same checks; selector immutable
 */
import type { JsonObject } from "kubekit";
import { deploymentPrinter } from "../table/builtin-table-printers.js";
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
