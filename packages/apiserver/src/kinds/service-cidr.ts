/** networking.k8s.io/v1 ServiceCIDRs (`pkg/registry/networking/servicecidr/strategy.go`): generation tracked. */
import type { KindStrategy } from "./kind-strategy.js";

/** The ServiceCIDR strategy. */
export const serviceCidrStrategy: KindStrategy = { policy: { tracksGeneration: true } };
