/**
 * storage.k8s.io/v1 StorageClasses.
 *
 * @kind StorageClass
 * @delete DELETE answers with the object
 */
import type { KindStrategy } from "./kind-strategy.js";

/** The StorageClass strategy. */
export const storageClassStrategy: KindStrategy = { policy: { deleteReturnsObject: true } };
