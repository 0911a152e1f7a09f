/**
 * discovery.k8s.io/v1 EndpointSlices (`pkg/registry/discovery/endpointslice/strategy.go`) and their
 * `kubectl get` columns.
 *
 * @kind EndpointSlice
 * @update metadata.generation bumped on changes (kube: of addressType, endpoints or ports)
 */
import { endpointSlicePrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The EndpointSlice strategy. */
export const endpointSliceStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  printer: endpointSlicePrinter,
};
