/**
 * core/v1 Endpoints (`pkg/registry/core/endpoint/strategy.go`) and their `kubectl get` columns.
 *
 * @kind Endpoints
 * @update a PUT on missing Endpoints creates them
 */
import { endpointsPrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The Endpoints strategy. */
export const endpointsStrategy: KindStrategy = {
  policy: { allowCreateOnUpdate: true },
  printer: endpointsPrinter,
};
