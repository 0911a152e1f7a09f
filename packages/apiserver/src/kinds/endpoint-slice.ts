/**
 * discovery.k8s.io/v1 EndpointSlices (`pkg/registry/discovery/endpointslice/strategy.go`):
 * generation tracked (bumped when addressType, endpoints or ports change), and their
 * `kubectl get` columns.
 */
import { endpointSlicePrinter } from "../builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The EndpointSlice strategy. */
export const endpointSliceStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  printer: endpointSlicePrinter,
};
