/** policy/v1 PodDisruptionBudgets (`pkg/registry/policy/poddisruptionbudget/strategy.go`): generation tracked; names are path segments. */
import type { KindStrategy } from "./kind-strategy.js";

/** The PodDisruptionBudget strategy. */
export const podDisruptionBudgetStrategy: KindStrategy = {
  policy: { tracksGeneration: true, nameRule: "path-segment" },
};
