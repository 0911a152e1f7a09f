/** coordination.k8s.io/v1 Leases: their printer. */
import { leasePrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The Lease strategy. */
export const leaseStrategy: KindStrategy = {
  policy: { allowCreateOnUpdate: true, allowUnconditionalUpdate: false },
  printer: leasePrinter,
};
