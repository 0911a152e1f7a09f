/**
 * The controller owner reference of an object (apimachinery's `metav1.GetControllerOf`,
 * controller-runtime's `controllerutil.SetControllerReference`,
 * `pkg/controller/controllerutil/controllerutil.go`).
 */
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import { parseApiVersion } from "../core/gvk.js";
import { nameOf, namespaceOf } from "../core/object-metadata.js";

export type { OwnerReference };

/**
 * Why {@link setControllerReference} refused:
 * - `OwnerTypeUnknown`: the owner has no `apiVersion`/`kind` and none was given (items of a
 *   built-in list carry neither: pass them in the options).
 * - `OwnerIncomplete`: the owner has no `metadata.name` or `metadata.uid` (it must have been
 *   read from the server).
 * - `ClusterScopedDependent`: a namespaced owner for a cluster-scoped object (or for an
 *   object whose `metadata.namespace` is not set yet: set it before calling).
 * - `CrossNamespace`: the owner and the object are in different namespaces.
 * - `AlreadyOwned`: another object is already the object's controller (see `existing`).
 */
export type OwnerReferenceErrorReason =
  | "OwnerTypeUnknown"
  | "OwnerIncomplete"
  | "ClusterScopedDependent"
  | "CrossNamespace"
  | "AlreadyOwned";

/** Thrown by {@link setControllerReference}; `reason` says which rule was broken. */
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
export function controllerOf(obj: ObjectWithMetadata): OwnerReference | undefined {
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
function describe(obj: ObjectWithMetadata): string {
  const namespace = namespaceOf(obj);
  return namespace !== "" ? `${namespace}/${nameOf(obj)}` : nameOf(obj);
}

/** Options of {@link setControllerReference}. */
export interface ControllerReferenceOptions {
  /** The owner's apiVersion (default: the owner's own `apiVersion`). */
  readonly apiVersion?: string;
  /** The owner's kind (default: the owner's own `kind`). */
  readonly kind?: string;
  /** `blockOwnerDeletion` of the reference (default true). */
  readonly blockOwnerDeletion?: boolean;
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
  owner: ObjectWithMetadata,
  obj: O,
  options: ControllerReferenceOptions = {},
): O {
  const apiVersion = options.apiVersion ?? owner.apiVersion;
  const kind = options.kind ?? owner.kind;
  if (!apiVersion || !kind) {
    throw new OwnerReferenceError(
      "OwnerTypeUnknown",
      `owner ${describe(owner)} has no apiVersion and kind: pass them in the options`,
    );
  }
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid) {
    throw new OwnerReferenceError(
      "OwnerIncomplete",
      `owner ${kind} ${describe(owner)} has no metadata.name or metadata.uid: read it from the server first`,
    );
  }
  const ownerNamespace = owner.metadata?.namespace ?? "";
  const objNamespace = obj.metadata?.namespace ?? "";
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
  const ref: OwnerReference = {
    apiVersion,
    kind,
    name,
    uid,
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
  const refs = [...(obj.metadata?.ownerReferences ?? [])];
  const index = refs.findIndex((r) => referSameObject(r, ref));
  if (index === -1) refs.push(ref);
  else refs[index] = ref;
  obj.metadata = { ...obj.metadata, ownerReferences: refs };
  return obj;
}
