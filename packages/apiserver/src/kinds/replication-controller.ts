/**
 * core/v1 ReplicationControllers (`pkg/registry/core/replicationcontroller/strategy.go`):
 * `status.replicas` is a selectable field; the spec is not validated here.
 *
 * @kind ReplicationController
 * @update metadata.generation bumped on spec changes
 */
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The ReplicationController strategy. */
export const replicationControllerStrategy: KindStrategy = {
  policy: { tracksGeneration: true, selectableFields: selectableFields("status.replicas") },
};
