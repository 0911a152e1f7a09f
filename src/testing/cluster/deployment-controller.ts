// PLACEHOLDER (coordinator): replaced by the helper building this component.
import type { Runnable } from "../../index.js";
import type { ClusterContext } from "./cluster-context.js";

export function deploymentController(_ctx: ClusterContext): Runnable {
  return {
    run: (signal) =>
      new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true }),
      ),
  };
}
