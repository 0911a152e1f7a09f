/** networking.k8s.io/v1 NetworkPolicies (`pkg/registry/networking/networkpolicy/strategy.go`): generation tracked. */
import type { KindStrategy } from "./kind-strategy.js";

/** The NetworkPolicy strategy. */
export const networkPolicyStrategy: KindStrategy = { policy: { tracksGeneration: true } };
