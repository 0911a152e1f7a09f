/** core/v1 Endpoints (`pkg/registry/core/endpoint/strategy.go`): a PUT on a missing object creates it. */
import type { KindStrategy } from "./kind-strategy.js";

/** The Endpoints strategy. */
export const endpointsStrategy: KindStrategy = { policy: { allowCreateOnUpdate: true } };
