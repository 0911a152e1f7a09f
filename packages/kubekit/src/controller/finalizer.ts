/**
 * A finalizer around a reconcile: add it before doing work, run cleanup once the object is
 * being deleted, then remove it (the pattern of controller-runtime's
 * `controllerutil.AddFinalizer`/`RemoveFinalizer` users and kube-rs's
 * `kube-runtime/src/finalizer.rs`), with writes that never clobber a concurrent change.
 */
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { MetadataView } from "./handler/metadata-view.js";
import type { CallOptions, PatchFormat } from "../client/call-options.js";
import type { Clock } from "../core/clock.js";
import { nameOf } from "../core/object-metadata.js";
import { isNotFound } from "../core/status.js";
import { PatchTypes } from "../rest/patch-type.js";
import type { ReconcileResult } from "./reconciler.js";
import type { RetryBackoff } from "./retry.js";
import { DEFAULT_RETRY, retryOnConflict } from "./retry.js";

/**
 * The verbs the finalizer helpers use, on the object's resource and namespace: a
 * `ResourceClient` (`cs.coreV1.configMaps("ns")`, `dynamic.resource(gvr).namespace("ns")`)
 * fits.
 */
export interface FinalizerClient<T> {
  get(name: string, options?: CallOptions): Promise<T>;
  patch(name: string, patchType: PatchFormat, patch: object, options?: CallOptions): Promise<T>;
}

/** Options of the finalizer helpers. */
export interface FinalizerOptions {
  /** Aborts the requests and the retry delays (rejecting with `signal.reason`). */
  readonly signal?: AbortSignal;
  /** How 409 Conflicts are retried (default client-go's `DEFAULT_RETRY`). */
  readonly backoff?: RetryBackoff;
  /** Time source of the retry delays (default: the real clock). */
  readonly clock?: Clock;
}

/**
 * Whether `obj` (an object, or a lazy informer's `LazyObject`) lists `finalizer` in
 * `metadata.finalizers`.
 */
export function hasFinalizer(obj: MetadataView, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * Whether the object (or a lazy informer's `LazyObject`) is being deleted
 * (`metadata.deletionTimestamp` is set).
 */
export function isBeingDeleted(obj: MetadataView): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

/** The object's `metadata.name`. @throws {TypeError} when it has none. */
function requiredNameOf(obj: ObjectWithMetadata): string {
  const name = nameOf(obj);
  if (name === "") throw new TypeError("the object has no metadata.name");
  return name;
}

/**
 * Writes the object's new finalizer list with a JSON merge patch carrying the
 * resourceVersion it was computed from: the API server applies it only to that version and
 * answers 409 Conflict otherwise, which {@link retryOnConflict} retries on a fresh read.
 * Returns `undefined` when the object no longer exists.
 */
async function updateFinalizers<T extends ObjectWithMetadata>(
  client: FinalizerClient<T>,
  given: T,
  options: FinalizerOptions,
  change: (current: T) => string[] | undefined,
): Promise<T | undefined> {
  const name = requiredNameOf(given);
  const { signal } = options;
  const callOptions: CallOptions = signal !== undefined ? { signal } : {};
  return retryOnConflict(
    async (attempt) => {
      let current: T = given;
      if (attempt > 0 || !given.metadata?.resourceVersion) {
        try {
          current = await client.get(name, callOptions);
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }
      const finalizers = change(current);
      if (finalizers === undefined) return current;
      const patch = {
        metadata: {
          resourceVersion: current.metadata?.resourceVersion,
          finalizers: finalizers.length > 0 ? finalizers : null,
        },
      };
      try {
        return await client.patch(name, PatchTypes.merge, patch, callOptions);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    options.backoff ?? DEFAULT_RETRY,
    {
      ...(signal !== undefined ? { signal } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    },
  );
}

/**
 * Adds `finalizer` to the object unless it has it. Resolves with the object as stored (the
 * given one when nothing had to change), or `undefined` when it no longer exists. An object
 * found being deleted is returned unchanged: the API server refuses new finalizers then.
 *
 * Conflict-safe: the patch is conditional on the resourceVersion it was computed from; on a
 * 409 Conflict the object is read again from the API server and the change recomputed, as
 * {@link retryOnConflict} allows.
 *
 * @throws {TypeError} (as a rejection) when the object has no name; the client's errors
 *   otherwise (a Conflict once the retries are exhausted).
 */
export function ensureFinalizer<T extends ObjectWithMetadata>(
  client: FinalizerClient<T>,
  obj: T,
  finalizer: string,
  options: FinalizerOptions = {},
): Promise<T | undefined> {
  if (hasFinalizer(obj, finalizer)) return Promise.resolve(obj);
  return updateFinalizers(client, obj, options, (current) =>
    hasFinalizer(current, finalizer) || isBeingDeleted(current)
      ? undefined
      : [...(current.metadata?.finalizers ?? []), finalizer],
  );
}

/**
 * Removes `finalizer` from the object if it has it. Resolves with the object as stored
 * (when the last finalizer of an object being deleted is removed, the API server deletes
 * it and this is its final state), or `undefined` when it no longer exists. Conflict-safe as
 * {@link ensureFinalizer}.
 *
 * @throws {TypeError} (as a rejection) when the object has no name; the client's errors
 *   otherwise.
 */
export function removeFinalizer<T extends ObjectWithMetadata>(
  client: FinalizerClient<T>,
  obj: T,
  finalizer: string,
  options: FinalizerOptions = {},
): Promise<T | undefined> {
  return updateFinalizers(client, obj, options, (current) =>
    hasFinalizer(current, finalizer)
      ? (current.metadata?.finalizers ?? []).filter((f) => f !== finalizer)
      : undefined,
  );
}

/** What {@link reconcileWithFinalizer} needs. */
export interface ReconcileWithFinalizerOptions<
  T extends ObjectWithMetadata,
> extends FinalizerOptions {
  /** A client of the object's resource, in its namespace. */
  readonly client: FinalizerClient<T>;
  /** The finalizer name, e.g. `example.com/cleanup` (a qualified name). */
  readonly finalizer: string;
  /** The object to reconcile, typically from a lister (it is never mutated). */
  readonly object: T;
  /** The normal reconcile, run once the finalizer is in place; receives the latest object. */
  readonly apply: (
    obj: T,
    signal: AbortSignal | undefined,
  ) => ReconcileResult | void | Promise<ReconcileResult | void>;
  /**
   * Releases what the object holds (external resources, ...), run once the object is being
   * deleted and still carries the finalizer. Must be idempotent: it runs again if anything
   * fails before the finalizer is removed. Return nothing when done; return a requeue
   * (`{ requeueAfterMs }` or `{ requeue: true }`) when cleanup is not finished yet, which
   * keeps the finalizer; throw to retry with backoff.
   */
  readonly cleanup: (
    obj: T,
    signal: AbortSignal | undefined,
  ) => ReconcileResult | void | Promise<ReconcileResult | void>;
}

function asksForRequeue(result: ReconcileResult | void): boolean {
  if (result === undefined || result === null) return false;
  return result.requeue === true || (result.requeueAfterMs ?? 0) > 0;
}

/**
 * Runs a reconcile behind a finalizer, so that deleting the object waits for its cleanup:
 *
 * 1. Object being deleted, finalizer present: `cleanup`; when it is done (returns no
 *    requeue), remove the finalizer (the API server then completes the deletion).
 * 2. Object being deleted, finalizer absent: nothing to do (cleanup already ran, or the
 *    object never got the finalizer).
 * 3. Otherwise: add the finalizer if missing (the object as stored is then used), then
 *    `apply`.
 *
 * Resolves with what `apply` or `cleanup` returned (a reconciler can return it as is), or
 * `undefined` when the object vanished. Every finalizer write is conflict-safe (see
 * {@link ensureFinalizer}). Errors of `apply`, `cleanup` and the writes propagate; the
 * finalizer is never removed when `cleanup` failed.
 */
export async function reconcileWithFinalizer<T extends ObjectWithMetadata>(
  options: ReconcileWithFinalizerOptions<T>,
): Promise<ReconcileResult | void> {
  const { client, finalizer, object, signal } = options;
  let current: T | undefined = object;
  if (!isBeingDeleted(current) && !hasFinalizer(current, finalizer)) {
    current = await ensureFinalizer(client, current, finalizer, options);
    if (current === undefined) return undefined;
  }
  if (!isBeingDeleted(current)) return options.apply(current, signal);
  if (!hasFinalizer(current, finalizer)) return undefined;
  const result = await options.cleanup(current, signal);
  if (asksForRequeue(result)) return result;
  await removeFinalizer(client, current, finalizer, options);
  return result;
}
