/**
 * networking.k8s.io/v1 ServiceCIDRs (`pkg/registry/networking/servicecidr/strategy.go`).
 *
 * @kind ServiceCIDR
 * @update metadata.generation bumped on spec changes
 */
import type { KindStrategy } from "./kind-strategy.js";

/** The ServiceCIDR strategy. */
export const serviceCidrStrategy: KindStrategy = { policy: { tracksGeneration: true } };
