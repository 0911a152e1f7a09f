/** networking.k8s.io/v1 Ingresses (`pkg/registry/networking/ingress/strategy.go`): generation tracked. */
import type { KindStrategy } from "./kind-strategy.js";

/** The Ingress strategy. */
export const ingressStrategy: KindStrategy = { policy: { tracksGeneration: true } };
