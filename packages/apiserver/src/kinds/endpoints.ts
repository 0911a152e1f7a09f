/**
 * core/v1 Endpoints (`pkg/registry/core/endpoint/strategy.go`): a PUT on a missing object
 * creates it; `kubectl get` columns.
 */
import { endpointsPrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The Endpoints strategy. */
export const endpointsStrategy: KindStrategy = {
  policy: { allowCreateOnUpdate: true },
  printer: endpointsPrinter,
};
