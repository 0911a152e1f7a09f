/** core/v1 Nodes: their printer. */
import { nodePrinter } from "../builtin-table-printers.js";
import { selectableFields } from "../resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The Node strategy. */
export const nodeStrategy: KindStrategy = {
  policy: { deleteReturnsObject: true, selectableFields: selectableFields("spec.unschedulable") },
  printer: nodePrinter,
};
