/**
 * The events of a watch stream (metav1.WatchEvent).
 */
import type { Status } from "../core/status.js";

/** The event types of a watch stream. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * One watch event. ADDED / MODIFIED / DELETED carry the object (a DELETED object is its
 * last state, with the deletion's resourceVersion); BOOKMARK carries an object of the
 * watched kind with only `metadata.resourceVersion` (and annotations, e.g. the WatchList
 * end marker) meaningful; ERROR carries a `Status` (e.g. 410 Expired), after which the
 * server ends the stream.
 *
 * The object is the decoded wire JSON; `T` is asserted, not validated.
 */
export type WatchEvent<T> =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; readonly object: T }
  | { readonly type: "ERROR"; readonly object: Status };
