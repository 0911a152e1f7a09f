import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  type LabelSelector,
  type ObjectWithMetadata,
  type PatchFormat,
  type SharedIndexInformer,
  PatchTypes,
  controllerOf,
  isNotFound,
} from "kubekit";
import { controlledBy, orphansIn } from "./controller-ref-index.js";
import type { OwnWrites } from "./own-writes.js";

/** What {@link claimObjects} writes through: a typed client's `patch` (e.g. `coreV1.pods(ns)`). */
export interface ClaimClient<T> {
  patch(
    name: string,
    patchType: PatchFormat,
    patch: object,
    options: { signal?: AbortSignal },
  ): Promise<T>;
}

/** What {@link claimObjects} claims for. */
export interface ClaimRequest<T extends ObjectWithMetadata> {
  /** The owner (e.g. a ReplicaSet from a lister). */
  readonly owner: ObjectWithMetadata;
  /** The owner's `apiVersion` and `kind` (lister objects carry neither). */
  readonly ownerType: { readonly apiVersion: string; readonly kind: string };
  /** The owner's selector: which objects it wants. */
  readonly selector: LabelSelector;
  /**
   * The objects to consider: at least every object the owner controls and every orphan of
   * its namespace that may match (objects of other controllers are skipped).
   */
  readonly candidates: readonly T[];
  readonly client: ClaimClient<T>;
  /**
   * Called once before the first adoption; throws when the owner may not adopt (kube's
   * `RecheckDeletionTimestamp`: a fresh read shows it gone, replaced or being deleted).
   */
  readonly canAdopt: () => Promise<void>;
  /** Called with each object written (adopted or released), e.g. to wait for the cache. */
  readonly onWrite?: (obj: T) => void;
  readonly signal: AbortSignal;
}

/**
 * The objects an owner controls after claiming, with kube's rules
 * (`pkg/controller/controller_ref_manager.go` ClaimObject):
 *
 * - an object controlled by the owner (same uid) that its selector matches is kept;
 * - one it controls that the selector no longer matches is released (its owner reference
 *   removed), unless the owner is being deleted;
 * - an orphan the selector matches is adopted (a controller reference added), unless the
 *   owner or the orphan is being deleted or `canAdopt` refuses;
 * - objects controlled by anything else are left alone.
 *
 * Adoption and release are merge patches carrying the object's resourceVersion (a 409
 * Conflict when it changed meanwhile: the caller retries with a fresh cache). An object gone
 * meanwhile (404) is skipped. The returned objects are the cache's or the patch results:
 * never mutate them.
 *
 * @throws what `canAdopt` throws, or a failed patch's error other than NotFound.
 */
export async function claimObjects<T extends ObjectWithMetadata>(
  request: ClaimRequest<T>,
): Promise<T[]> {
  const { owner, selector } = request;
  const ownerUid = owner.metadata?.uid ?? "";
  const ownerDeleting = owner.metadata?.deletionTimestamp !== undefined;
  const claimed: T[] = [];
  let adoptionChecked = false;
  for (const obj of request.candidates) {
    const ref = controllerOf(obj);
    const matches = selector.matches(obj.metadata?.labels);
    if (ref !== undefined) {
      if (ref.uid !== ownerUid) continue;
      if (matches) {
        claimed.push(obj);
      } else if (!ownerDeleting) {
        await patchOwnerReferences(request, obj, ownerReferencesWithout(obj, ownerUid));
      }
      continue;
    }
    if (ownerDeleting || !matches || obj.metadata?.deletionTimestamp !== undefined) continue;
    if (owner.metadata?.namespace !== obj.metadata?.namespace) continue;
    if (!adoptionChecked) {
      await request.canAdopt();
      adoptionChecked = true;
    }
    const adopted = await patchOwnerReferences(request, obj, [
      ...(obj.metadata?.ownerReferences ?? []),
      controllerReference(request),
    ]);
    if (adopted !== undefined) claimed.push(adopted);
  }
  return claimed;
}

/** The controller reference `request.owner` puts on what it adopts (`metav1.NewControllerRef`). */
function controllerReference<T extends ObjectWithMetadata>(
  request: ClaimRequest<T>,
): OwnerReference {
  return {
    apiVersion: request.ownerType.apiVersion,
    kind: request.ownerType.kind,
    name: nameOf(request.owner),
    uid: request.owner.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

function ownerReferencesWithout(obj: ObjectWithMetadata, uid: string): OwnerReference[] {
  return (obj.metadata?.ownerReferences ?? []).filter((ref) => ref.uid !== uid);
}

/** Sets the object's owner references (conditional on its resourceVersion); undefined when it is gone. */
async function patchOwnerReferences<T extends ObjectWithMetadata>(
  request: ClaimRequest<T>,
  obj: T,
  refs: OwnerReference[],
): Promise<T | undefined> {
  try {
    const patched = await request.client.patch(
      nameOf(obj),
      PatchTypes.merge,
      {
        metadata: {
          ownerReferences: refs.length > 0 ? refs : null,
          resourceVersion: obj.metadata?.resourceVersion,
        },
      },
      { signal: request.signal },
    );
    request.onWrite?.(patched);
    return patched;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * A `canAdopt` check for {@link claimObjects} (kube's `RecheckDeletionTimestamp`): reads the
 * owner afresh from the API server (not the cache) and throws when it was replaced (another
 * uid) or is being deleted, so a stale cache never makes a dying owner adopt.
 *
 * @throws {Error} `original <ns>/<name> is gone: got uid <x>, wanted <y>` or
 *   `<ns>/<name> has just been deleted at <time>`; or what `get` throws.
 */
export function recheckDeletionTimestamp(
  owner: ObjectWithMetadata,
  get: () => Promise<ObjectWithMetadata>,
): () => Promise<void> {
  return async () => {
    const fresh = await get();
    const { namespace, name, uid } = owner.metadata ?? {};
    if (fresh.metadata?.uid !== uid) {
      throw new Error(
        `original ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${uid}`,
      );
    }
    if (fresh.metadata?.deletionTimestamp !== undefined) {
      throw new Error(
        `${namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`,
      );
    }
  };
}

/** What {@link claimCached} claims for: a {@link ClaimRequest} whose candidates come from a cache. */
export interface CachedClaimRequest<T extends ObjectWithMetadata> extends Omit<
  ClaimRequest<T>,
  "candidates" | "onWrite"
> {
  /**
   * The informer of the claimed kind, indexed by controller uid and by orphans' namespace
   * (`controller-ref-index.ts`).
   */
  readonly informer: SharedIndexInformer<T>;
  /** Where each adoption or release is recorded, so the reconcile waits for the cache to see it. */
  readonly writes: OwnWrites;
  /** Narrows the candidates (e.g. active pods only, a StatefulSet's members). */
  readonly filter?: (obj: T) => boolean;
}

/**
 * {@link claimObjects} over the cached candidates of an owner: the objects it controls and
 * the orphans of its namespace, as the informer's indexes have them, with every write
 * recorded in `writes` (the claim every workload controller makes before its sync).
 */
export function claimCached<T extends ObjectWithMetadata>(
  request: CachedClaimRequest<T>,
): Promise<T[]> {
  const { informer, writes, filter, ...claim } = request;
  const uid = claim.owner.metadata?.uid ?? "";
  const namespace = namespaceOf(claim.owner);
  const candidates = [...controlledBy(informer, uid), ...orphansIn(informer, namespace)];
  return claimObjects({
    ...claim,
    candidates: filter === undefined ? candidates : candidates.filter(filter),
    onWrite: (obj) => writes.record(informer, obj),
  });
}
