/**
 * core/v1 PersistentVolumes.
 *
 * @kind PersistentVolume
 * @delete DELETE answers with the object
 */
import type { KindStrategy } from "./kind-strategy.js";

/** The PersistentVolume strategy. */
export const persistentVolumeStrategy: KindStrategy = { policy: { deleteReturnsObject: true } };
