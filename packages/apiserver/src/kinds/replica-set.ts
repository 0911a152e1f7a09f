/**
 * apps/v1 ReplicaSets (`pkg/registry/apps/replicaset/strategy.go`;
 * `pkg/apis/apps/validation/validation.go` ValidateReplicaSet*, whose empty-selector message names
 * "deployment" as kube's does); `status.replicas` is a selectable field.
 *
 * @kind ReplicaSet
 * @defaults replicas 1, pod-template defaults
 * @validation as Deployment
 * @update same checks; selector immutable
 */
import { replicaSetPrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";
import {
  defaultReplicas,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  withDefaultedSpec,
} from "./workload.js";

/** The ReplicaSet strategy. */
export const replicaSetStrategy: KindStrategy = {
  policy: { tracksGeneration: true, selectableFields: selectableFields("status.replicas") },
  applyDefaults: (obj) => withDefaultedSpec(obj, defaultReplicas),
  validateCreate: (obj) => validateWorkloadSpec(obj, "deployment", ["Always"]),
  validateUpdate: (next, old) => [
    ...validateWorkloadSpec(next, "deployment", ["Always"]),
    ...validateSelectorUnchanged(next, old),
  ],
  printer: replicaSetPrinter,
};
