import type { FieldError, JsonObject } from "kubekit";
import type { TablePrinter } from "../builtin-table-printers.js";
import type { ResourcePolicy } from "../resource-policy.js";
import type { ServerBehaviour, ServerContext } from "../server-context.js";
import type { Storage } from "../storage.js";
import type { VerbRequest } from "../verb-request.js";

/** The handlers of one subresource a kind serves beyond status and scale, by verb. */
export interface SubresourceHandlers {
  readonly get?: (request: VerbRequest) => void | Promise<void>;
  readonly create?: (request: VerbRequest) => void | Promise<void>;
}

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
  readonly storage: Pick<Storage, "get">;
}

/**
 * One kind's rules on the write path, as kube-apiserver's per-resource REST strategies
 * (`pkg/registry/<group>/<resource>/strategy.go`) and defaulting functions
 * (`pkg/apis/<group>/v1/defaults.go`) hold them. Every hook is optional: the generic path
 * (`resource-operations.ts`) runs the metadata rules, generation, managedFields and the
 * status/spec split of every kind, and calls these for what is special.
 *
 * Objects are wire JSON and never mutated: every hook returns a new object (or its input
 * unchanged).
 */
export interface KindStrategy {
  /**
   * The generic store's switches for this kind (generation tracking, create on update,
   * unconditional update, what DELETE answers, the name rule, selectable fields); the ones
   * left out take the generic store's defaults (`resource-policy.ts`).
   */
  readonly policy?: Partial<ResourcePolicy>;
  /**
   * Server-set fields on create (kube's `PrepareForCreate`): an initial status, allocated
   * values (a Service's clusterIP), write-only fields folded away (a Secret's stringData).
   * Runs before {@link applyDefaults}.
   */
  readonly prepareForCreate?: (obj: JsonObject) => JsonObject;
  /**
   * The update counterpart (kube's `PrepareForUpdate`): keeps what a client cannot change
   * (allocated values missing from the new object), folds write-only fields. Runs before
   * {@link applyDefaults}; not for status writes.
   */
  readonly prepareForUpdate?: (next: JsonObject, old: JsonObject) => JsonObject;
  /** Defaulting applied on every write, as kube's SetDefaults on each decode. */
  readonly applyDefaults?: (obj: JsonObject) => JsonObject;
  /** Field errors of a new object (kube's `Validate`); metadata is checked by the generic path. */
  readonly validateCreate?: (obj: JsonObject) => FieldError[];
  /**
   * Field errors of an update, immutable fields included (kube's `ValidateUpdate`); not for
   * status writes.
   */
  readonly validateUpdate?: (next: JsonObject, old: JsonObject) => FieldError[];
  /** `kubectl get` columns; the default Name / Created At table when absent. */
  readonly printer?: TablePrinter;
  /**
   * Answers POST on the collection of a create-only virtual resource (the access reviews,
   * SelfSubjectReview) in place of the storage path: nothing is stored, listed or watched, and
   * none of the generic write rules (names, generateName, namespace admission) apply unless
   * the handler applies them, as kube-apiserver's own `rest.Creater`s for those resources do.
   */
  readonly virtualCreate?: (request: VerbRequest) => Promise<void>;
  /** Subresources served by this kind's own handlers (pods/log, serviceaccounts/token, …). */
  readonly subresources?: Readonly<Record<string, SubresourceHandlers>>;
  /** Kind-specific delete behaviour; may throw (a protected Namespace is Forbidden). */
  readonly beforeDelete?: (existing: JsonObject, context: DeleteContext) => DeleteDecision;
  /** Called after an object of the kind is removed from storage (pods forget their logs). */
  readonly afterRemoved?: (obj: JsonObject, ctx: ServerContext) => void;
}
