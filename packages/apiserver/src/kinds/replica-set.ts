/**
 * apps/v1 ReplicaSets (`pkg/registry/apps/replicaset/strategy.go`): replicas default 1,
 * the workload selector and template rules with restartPolicy Always only, and an immutable
 * selector (`pkg/apis/apps/validation/validation.go` ValidateReplicaSet*; its empty-selector
 * message names "deployment" as kube's does).
 */
import { replicaSetPrinter } from "../builtin-table-printers.js";
import { selectableFields } from "../resource-policy.js";
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
