import type { FieldError, JsonObject } from "kubekit";
import type { TablePrinter } from "../table/builtin-table-printers.js";
import type { ResourcePolicy } from "../registry/resource-policy.js";
import type { ServerBehaviour } from "../server/server-behaviour.js";

/**
 * What a kind does on delete instead of (or before) the generic finalizer path: `terminate`
 * is stored in place of removing the object (a Namespace enters Terminating; returning the
 * stored object itself means nothing changes); `addFinalizers` and `status` are added to the
 * object marked for deletion (a CustomResourceDefinition's cleanup finalizer).
 */
export interface DeleteDecision {
  readonly terminate?: JsonObject;
  readonly addFinalizers?: readonly string[];
  readonly status?: JsonObject;
}

/** Read access to the stored objects: `get(storageId, key)`, as the server's storage answers it. */
export interface StoredObjectReader {
  get(storageId: string, key: string): JsonObject | undefined;
}

/** The facts about a delete a strategy may need. */
export interface DeleteContext {
  readonly name: string;
  /** The server time, RFC 3339. */
  readonly now: string;
  /** The server time in milliseconds since the epoch. */
  readonly nowMs: number;
  /** DeleteOptions' `gracePeriodSeconds`, when given. */
  readonly gracePeriodSeconds?: number;
  /** The server's behaviour switches. */
  readonly behaviour: ServerBehaviour;
  /** The stored objects, to read (e.g. whether a pod's node exists). */
  readonly storage: StoredObjectReader;
}

/**
 * The rules of a write to the `status` subresource (kube's `<kind>StatusStrategy`). The
 * generic path already keeps everything but `status` from the stored object; a kind adds
 * these only for status rules of its own.
 */
export interface StatusStrategy {
  /**
   * Keeps or resets status fields a status write must not set (kube's status
   * `PrepareForUpdate`). Must not mutate `next` or `old`: returns a new object (or `next`
   * unchanged). Runs before {@link KindStrategy.applyDefaults}.
   */
  readonly prepareForUpdate?: (next: JsonObject, old: JsonObject) => JsonObject;
  /**
   * Field errors of a status write (kube's status `ValidateUpdate`). Must not mutate; runs
   * after defaulting and normalization, on the object that would be stored.
   */
  readonly validateUpdate?: (next: JsonObject, old: JsonObject) => FieldError[];
}

/**
 * One kind's pure rules on the write path, as kube-apiserver's per-resource REST strategies
 * (`pkg/registry/<group>/<resource>/strategy.go`) and defaulting functions
 * (`pkg/apis/<group>/v1/defaults.go`) hold them. Every hook is optional: the generic store
 * (`store/`) runs the metadata rules, generation, managedFields and the status/spec split of
 * every kind, and calls these for what is special. What is not a rule on objects (the
 * subresources a kind serves, create-only virtual resources, clean-up after a removal) is
 * wired per resource at the endpoint layer (`endpoints/resource-endpoints.ts`).
 *
 * Objects are wire JSON and never mutated: every hook returns a new object (or its input
 * unchanged), and reads nothing but its arguments.
 */
export interface KindStrategy {
  /**
   * The generic store's switches for this kind (generation tracking, create on update,
   * unconditional update, what DELETE answers, the name rule, selectable fields); the ones
   * left out take the generic store's defaults (`registry/resource-policy.ts`).
   */
  readonly policy?: Partial<ResourcePolicy>;
  /**
   * Server-set fields on create (kube's `PrepareForCreate`): an initial status, allocated
   * values (a Service's clusterIP), write-only fields folded away (a Secret's stringData).
   * Must not mutate `obj`. Runs after the generic metadata rules (the final name is set) and
   * before {@link applyDefaults}.
   */
  readonly prepareForCreate?: (obj: JsonObject) => JsonObject;
  /**
   * The update counterpart (kube's `PrepareForUpdate`): keeps what a client cannot change
   * (allocated values missing from the new object), folds write-only fields. Must not mutate
   * `next` or `old`. Runs before {@link applyDefaults}; not for status writes (see
   * {@link status}).
   */
  readonly prepareForUpdate?: (next: JsonObject, old: JsonObject) => JsonObject;
  /**
   * Defaulting applied on every write, as kube's SetDefaults on each decode. Must not mutate
   * `obj`; runs after the prepare hook of the write and before validation.
   */
  readonly applyDefaults?: (obj: JsonObject) => JsonObject;
  /**
   * Field errors of a new object (kube's `Validate`); metadata is checked by the generic path.
   * Must not mutate; runs after defaulting, on the object that would be stored.
   */
  readonly validateCreate?: (obj: JsonObject) => FieldError[];
  /**
   * Field errors of an update, immutable fields included (kube's `ValidateUpdate`); not for
   * status writes. Must not mutate; runs after defaulting, on the object that would be
   * stored, with the stored object as `old`.
   */
  readonly validateUpdate?: (next: JsonObject, old: JsonObject) => FieldError[];
  /** The rules of writes to the `status` subresource, for a kind that has its own. */
  readonly status?: StatusStrategy;
  /**
   * Further subresources that write the object's status with rules of their own (a
   * CertificateSigningRequest's `approval`, kube's `csrApprovalStrategy`): a write to one takes
   * `status` from the body as a status write does, then runs these rules instead of
   * {@link status}'s.
   */
  readonly statusSubresources?: Readonly<Record<string, StatusStrategy>>;
  /**
   * Subresources that write the object's spec with rules of their own in place of
   * {@link validateUpdate} (a Pod's `ephemeralcontainers`, kube's
   * podEphemeralContainersStrategy): the write takes the body as a spec write does (status
   * kept from storage), then runs these rules' `prepareForUpdate` and `validateUpdate`.
   */
  readonly specSubresources?: Readonly<Record<string, StatusStrategy>>;
  /** `kubectl get` columns; the default Name / Created At table when absent. */
  readonly printer?: TablePrinter;
  /**
   * Kind-specific delete behaviour, after the delete preconditions passed; may throw (a
   * protected Namespace is Forbidden). Must not mutate `existing`; reads storage only
   * through `context.storage`.
   */
  readonly beforeDelete?: (existing: JsonObject, context: DeleteContext) => DeleteDecision;
}
