/** core/v1 ReplicationControllers (`pkg/registry/core/replicationcontroller/strategy.go`): generation tracked; `status.replicas` selectable. */
import { selectableFields } from "../resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The ReplicationController strategy. */
export const replicationControllerStrategy: KindStrategy = {
  policy: { tracksGeneration: true, selectableFields: selectableFields("status.replicas") },
};
