/** autoscaling HorizontalPodAutoscalers (`pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`): generation tracked. */
import type { KindStrategy } from "./kind-strategy.js";

/** The HorizontalPodAutoscaler strategy. */
export const horizontalPodAutoscalerStrategy: KindStrategy = { policy: { tracksGeneration: true } };
