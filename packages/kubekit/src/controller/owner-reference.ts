/**
 * Owner references of an object: its controller (apimachinery's `metav1.GetControllerOf`,
 * controller-runtime's `controllerutil.SetControllerReference`, `RemoveControllerReference`)
 * and its other owners (`SetOwnerReference`, `RemoveOwnerReference`, `HasOwnerReference`),
 * with controller-runtime's rules (`pkg/controller/controllerutil/controllerutil.go`).
 */
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import { parseApiVersion } from "../core/gvk.js";
import { nameOf, namespaceOf } from "../core/object-metadata.js";
import type { MetadataView } from "./handler/metadata-view.js";

export type { OwnerReference };

/**
 * Why an owner-reference helper refused:
 * - `OwnerTypeUnknown`: the owner has no `apiVersion`/`kind` and none was given (items of a
 *   built-in list carry neither: pass them in the options).
 * - `OwnerIncomplete`: the owner has no `metadata.name` or `metadata.uid` (it must have been
 *   read from the server).
 * - `ClusterScopedDependent`: a namespaced owner for a cluster-scoped object (or for an
 *   object whose `metadata.namespace` is not set yet: set it before calling).
 * - `CrossNamespace`: the owner and the object are in different namespaces.
 * - `AlreadyOwned`: another object is already the object's controller (see `existing`);
 *   controller-runtime's `AlreadyOwnedError`.
 * - `NotOwned`: the object has no reference to the owner to remove (or, for
 *   {@link removeControllerReference}, no controller reference at all).
 * - `NotController`: {@link removeControllerReference} found the owner's reference but it is
 *   not the controller one.
 */
export type OwnerReferenceErrorReason =
  | "OwnerTypeUnknown"
  | "OwnerIncomplete"
  | "ClusterScopedDependent"
  | "CrossNamespace"
  | "AlreadyOwned"
  | "NotOwned"
  | "NotController";

/** Thrown by the owner-reference helpers; `reason` says which rule was broken. */
export class OwnerReferenceError extends Error {
  readonly reason: OwnerReferenceErrorReason;
  /** With `AlreadyOwned`: the controller reference the object already has. */
  readonly existing: OwnerReference | undefined;

  constructor(reason: OwnerReferenceErrorReason, message: string, existing?: OwnerReference) {
    super(message);
    this.name = "OwnerReferenceError";
    this.reason = reason;
    this.existing = existing;
  }
}

/**
 * The owner reference of `obj` that is its controller (`controller: true`), or `undefined`.
 * At most one is valid; like apimachinery, the first one wins if the object has several.
 */
export function controllerOf(obj: MetadataView): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** The group of an owner reference's apiVersion, or `undefined` when it does not parse. */
export function ownerReferenceGroup(ref: OwnerReference): string | undefined {
  try {
    return parseApiVersion(ref.apiVersion).group;
  } catch {
    return undefined;
  }
}

/** Whether two references name the same object: same group (any version), kind and name. */
function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  const group = ownerReferenceGroup(a);
  return (
    group !== undefined &&
    group === ownerReferenceGroup(b) &&
    a.kind === b.kind &&
    a.name === b.name
  );
}

/** `namespace/name`, or `name` without a namespace, for messages (the name may be empty). */
function describe(obj: MetadataView): string {
  const namespace = namespaceOf(obj);
  return namespace !== "" ? `${namespace}/${nameOf(obj)}` : nameOf(obj);
}

/** How the owner's type is known when the owner object does not carry it. */
export interface OwnerTypeOptions {
  /** The owner's apiVersion (default: the owner's own `apiVersion`). */
  readonly apiVersion?: string;
  /** The owner's kind (default: the owner's own `kind`). */
  readonly kind?: string;
}

/** Options of {@link setControllerReference} and {@link setOwnerReference}. */
export interface OwnerReferenceOptions extends OwnerTypeOptions {
  /**
   * `blockOwnerDeletion` of the reference (default: true for {@link setControllerReference},
   * unset for {@link setOwnerReference}, as controller-runtime).
   */
  readonly blockOwnerDeletion?: boolean;
}

/** Options of {@link setControllerReference} (the same as {@link OwnerReferenceOptions}). */
export type ControllerReferenceOptions = OwnerReferenceOptions;

/**
 * A reference naming `owner` (only `apiVersion`, `kind` and `name` are needed to find one;
 * `uid` is empty when the owner has none).
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`.
 */
function referenceTo(owner: MetadataView, options: OwnerTypeOptions): OwnerReference {
  const apiVersion = options.apiVersion ?? owner.apiVersion;
  const kind = options.kind ?? owner.kind;
  if (!apiVersion || !kind) {
    throw new OwnerReferenceError(
      "OwnerTypeUnknown",
      `owner ${describe(owner)} has no apiVersion and kind: pass them in the options`,
    );
  }
  return { apiVersion, kind, name: nameOf(owner), uid: owner.metadata?.uid ?? "" };
}

/**
 * A complete reference to `owner` for `obj`, after controller-runtime's `validateOwner`
 * (a namespaced owner needs a dependent in its namespace).
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`, `OwnerIncomplete`,
 *   `ClusterScopedDependent` or `CrossNamespace`.
 */
function validReferenceTo(
  owner: MetadataView,
  obj: ObjectWithMetadata,
  options: OwnerTypeOptions,
): OwnerReference {
  const ref = referenceTo(owner, options);
  if (!ref.name || !ref.uid) {
    throw new OwnerReferenceError(
      "OwnerIncomplete",
      `owner ${ref.kind} ${describe(owner)} has no metadata.name or metadata.uid: read it from the server first`,
    );
  }
  const ownerNamespace = namespaceOf(owner);
  const objNamespace = namespaceOf(obj);
  if (ownerNamespace !== "") {
    if (objNamespace === "") {
      throw new OwnerReferenceError(
        "ClusterScopedDependent",
        `cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNamespace} (an object without metadata.namespace counts as cluster-scoped: set it)`,
      );
    }
    if (ownerNamespace !== objNamespace) {
      throw new OwnerReferenceError(
        "CrossNamespace",
        `cross-namespace owner references are disallowed, owner's namespace ${ownerNamespace}, obj's namespace ${objNamespace}`,
      );
    }
  }
  return ref;
}

/** Replaces `obj.metadata` by a copy whose `ownerReferences` are `refs`. */
function setReferences<O extends ObjectWithMetadata>(obj: O, refs: OwnerReference[]): O {
  obj.metadata = { ...obj.metadata, ownerReferences: refs };
  return obj;
}

/** Replaces the reference to the same object as `ref`, or appends `ref`. */
function upsertReference<O extends ObjectWithMetadata>(obj: O, ref: OwnerReference): O {
  const refs = [...(obj.metadata?.ownerReferences ?? [])];
  const index = refs.findIndex((r) => referSameObject(r, ref));
  if (index === -1) refs.push(ref);
  else refs[index] = ref;
  return setReferences(obj, refs);
}

/**
 * Makes `owner` the controller of `obj` with controller-runtime's rules: the reference has
 * `controller: true` and `blockOwnerDeletion: true` (unless `options` says otherwise); a
 * reference to the same owner (same group, kind and name, any version) is replaced, any
 * other reference appended. The garbage collector then deletes `obj` with its owner, and
 * `Controller.watchOwned` maps `obj`'s changes to the owner's key.
 *
 * Mutates `obj` and returns it: `obj.metadata` is replaced by a copy with the new
 * `ownerReferences` array (the previous metadata object and array are left untouched). Call
 * it on an object you are about to create or on your own copy, never on an object from a
 * cache or lister. `owner` is only read.
 *
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`, `OwnerIncomplete`,
 *   `ClusterScopedDependent`, `CrossNamespace`, or `AlreadyOwned` when another object
 *   already controls `obj` (nothing is changed then).
 */
export function setControllerReference<O extends ObjectWithMetadata>(
  owner: MetadataView,
  obj: O,
  options: ControllerReferenceOptions = {},
): O {
  const ref: OwnerReference = {
    ...validReferenceTo(owner, obj, options),
    controller: true,
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
  };
  const existing = controllerOf(obj);
  if (existing !== undefined && !referSameObject(existing, ref)) {
    throw new OwnerReferenceError(
      "AlreadyOwned",
      `Object ${describe(obj)} is already owned by another ${existing.kind} controller ${existing.name}`,
      existing,
    );
  }
  return upsertReference(obj, ref);
}

/**
 * Adds `owner` to `obj`'s owners without making it the controller (controller-runtime's
 * `SetOwnerReference`): the garbage collector deletes `obj` only once all its owners are
 * gone, and no controller claims it. A reference to the same owner (same group, kind and
 * name, any version) is replaced by the new one, which has no `controller` field, so calling
 * it for the object's controller demotes that reference, as upstream. `blockOwnerDeletion`
 * is set only when `options` gives it.
 *
 * Mutates `obj` and returns it, as {@link setControllerReference} does (a new metadata object
 * and array; `owner` is only read). Call it on your own copy, never on a cached object.
 *
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`, `OwnerIncomplete`,
 *   `ClusterScopedDependent` or `CrossNamespace` (nothing is changed then).
 */
export function setOwnerReference<O extends ObjectWithMetadata>(
  owner: MetadataView,
  obj: O,
  options: OwnerReferenceOptions = {},
): O {
  const ref = validReferenceTo(owner, obj, options);
  if (options.blockOwnerDeletion !== undefined) {
    ref.blockOwnerDeletion = options.blockOwnerDeletion;
  }
  return upsertReference(obj, ref);
}

/**
 * Whether `obj` has a reference to `owner`, controller or not: same group (any version), kind
 * and name, the uid not compared (controller-runtime's `HasOwnerReference`).
 *
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`.
 */
export function hasOwnerReference(
  owner: MetadataView,
  obj: MetadataView,
  options: OwnerTypeOptions = {},
): boolean {
  const ref = referenceTo(owner, options);
  return (obj.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, ref));
}

/**
 * Removes `obj`'s reference to `owner` (same group, any version, kind and name), controller
 * or not (controller-runtime's `RemoveOwnerReference`), e.g. to hand the object to another
 * owner in a later call. Mutates `obj` and returns it, as {@link setControllerReference}.
 *
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`, or `NotOwned` when `obj` has no such
 *   reference (nothing is changed then).
 */
export function removeOwnerReference<O extends ObjectWithMetadata>(
  owner: MetadataView,
  obj: O,
  options: OwnerTypeOptions = {},
): O {
  const ref = referenceTo(owner, options);
  const refs = obj.metadata?.ownerReferences ?? [];
  const index = refs.findIndex((r) => referSameObject(r, ref));
  if (index === -1) {
    throw new OwnerReferenceError(
      "NotOwned",
      `Object ${describe(obj)} has no owner reference to ${ref.kind} ${describe(owner)}`,
    );
  }
  return setReferences(obj, refs.toSpliced(index, 1));
}

/**
 * Removes `owner`'s controller reference from `obj` (controller-runtime's
 * `RemoveControllerReference`), e.g. to release an object so that another controller can
 * adopt it. Mutates `obj` and returns it, as {@link setControllerReference}.
 *
 * @throws {OwnerReferenceError} `OwnerTypeUnknown`; `NotOwned` when `obj` has no controller
 *   or no reference to `owner`; `NotController` when its reference to `owner` is not the
 *   controller one (nothing is changed then).
 */
export function removeControllerReference<O extends ObjectWithMetadata>(
  owner: MetadataView,
  obj: O,
  options: OwnerTypeOptions = {},
): O {
  const ref = referenceTo(owner, options);
  if (controllerOf(obj) === undefined) {
    throw new OwnerReferenceError(
      "NotOwned",
      `Object ${describe(obj)} has no controller reference`,
    );
  }
  const refs = obj.metadata?.ownerReferences ?? [];
  const index = refs.findIndex((r) => referSameObject(r, ref));
  if (index === -1) {
    throw new OwnerReferenceError(
      "NotOwned",
      `Object ${describe(obj)} has no controller reference to ${ref.kind} ${describe(owner)}`,
    );
  }
  if (refs[index]?.controller !== true) {
    throw new OwnerReferenceError(
      "NotController",
      `${ref.kind} ${describe(owner)} is not the controller of ${describe(obj)}`,
    );
  }
  return setReferences(obj, refs.toSpliced(index, 1));
}
