import { randomBytes } from "node:crypto";
import { deepEqual, fieldInvalid, formatTime, metadataOf } from "kubekit/apimachinery";
import {
  type JsonObject,
  type JsonValue,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenerateNameConflict,
  newInvalid,
  newNotFound,
  newStatusError,
  type FieldError,
} from "kubekit";
import { applyWithManagedFields, managedFieldsAfterUpdate } from "../apply/field-manager.js";
import type { ManagedFieldsEntry } from "../apply/managed-fields.js";
import { NAMESPACE_STORAGE_ID } from "../kinds/namespace.js";
import { strategyFor } from "../kinds/strategies.js";
import type { ResourceEntry } from "../registry/registry.js";
import {
  groupResource,
  messageNameOf,
  storageKey,
  withTypeMeta,
} from "../registry/served-entry.js";
import { enforceKnownFields, type FieldValidationMode } from "../schema/field-validation.js";
import type { ServerContext } from "../server/server-context.js";
import { storageConversionOf, type StorageConversion } from "../storage/event-conversion.js";
import {
  type AdmissionRequest,
  type AdmissionStep,
  type AdmissionStepAttributes,
  type AwaitStep,
  retryStaleWrites,
  runWithAdmission,
  runWithoutAdmission,
  StaleWriteError,
  type WriteSteps,
} from "./admission-steps.js";
import { checkAppliedFields, decodeCustomResource } from "./custom-resource-decoding.js";
import {
  convertsThroughWebhook,
  customResourceFromStorage,
  customResourcesFromStorageAsync,
  customResourceToStorage,
  customResourceToStorageAsync,
} from "./custom-resource-versions.js";
import {
  admissionInput,
  beforeCreate,
  beforeUpdate,
  checkNamespace,
  checkTypeMeta,
  checkTypes,
  systemMetaForCreate,
  systemMetaForUpdate,
} from "./write-phases.js";

/** Options shared by every write (create, update, patch). */
export interface WriteOptions {
  readonly dryRun: boolean;
  /** The manager recorded in managedFields for Update operations. */
  readonly fieldManager: string;
  readonly fieldValidation: FieldValidationMode;
  /** Collects `Warning` header texts. */
  readonly warnings: string[];
}

/** Options of a create: a server-side apply brings the managedFields it computed. */
export type CreateOptions = WriteOptions & {
  readonly managedFieldsOverride?: ManagedFieldsEntry[];
};

/** Options of an update (PUT, and every patch after it is applied). */
export type UpdateOptions = WriteOptions & {
  /** "status" keeps everything but status from storage; "" keeps status. */
  readonly subresource: string;
  /** Patches need no resourceVersion and never create. */
  readonly isPatch: boolean;
  /** The managedFields a server-side apply computed, in place of recording an Update. */
  readonly managedFieldsOverride?: ManagedFieldsEntry[];
  /** The subresource recorded in managedFields when it differs from `subresource` (scale writes the parent). */
  readonly managedSubresource?: string;
  /**
   * What admission sees of the write when it is not the object itself (a scale write admits
   * the autoscaling/v1 Scale): the view of an object, and the object a mutated view gives.
   */
  readonly admissionView?: AdmissionView;
};

/** The object admission sees of a write that changes another (a Scale of its parent). */
export interface AdmissionView {
  /** The subresource admitted (`scale`). */
  readonly subresource: string;
  toView(obj: JsonObject): JsonObject;
  /** `obj` with the (possibly mutated) `view` written back. */
  fromView(view: JsonObject, obj: JsonObject): JsonObject;
}

/** Options of a server-side apply (PATCH with `application/apply-patch+yaml`). */
export type ApplyOptions = WriteOptions & {
  /** `force`: take ownership of conflicting fields. */
  readonly force: boolean;
  /** The subresource applied to; "" for the main resource. */
  readonly subresource: string;
};

/** DeleteOptions as kube-apiserver reads them from the body or query. */
export interface DeleteRequestOptions {
  readonly dryRun: boolean;
  readonly propagationPolicy?: "Orphan" | "Background" | "Foreground";
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/** The outcome of a delete: the object returned and whether it is gone from storage. */
export interface DeleteResult {
  readonly object: JsonObject;
  readonly removed: boolean;
}

/** The outcome of an update or apply: the object returned and whether it was created. */
export interface UpdateResult {
  readonly object: JsonObject;
  readonly created: boolean;
}

const GENERATE_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
const GENERATE_NAME_ATTEMPTS = 8;

function invalidFor(entry: ResourceEntry, name: string, errors: FieldError[]): Error {
  return newInvalid({ group: entry.info.group, kind: entry.info.kind }, name, errors);
}

function stringField(meta: JsonObject, key: string): string {
  const value = meta[key];
  return typeof value === "string" ? value : "";
}

/**
 * The embedded server's generic store (kube's `registry/generic/registry/store.go`), shared
 * by the HTTP verbs and the in-server controllers (namespace lifecycle, CRD cleanup, garbage
 * collector): create, update (with subresource rules), server-side apply, delete with
 * finalizers and propagation. Each write runs the phases of `write-phases.ts` around the
 * kind's strategy, computes managedFields through `apply/field-manager.ts`, detects no-ops
 * and commits to storage; resources served from another resource's storage (events.k8s.io
 * Events) are converted to and from it here.
 *
 * `create`, `update`, `apply` and `delete` run without admission (in-process writers). The
 * `…Admitted` methods run the same writes through a request's admission chain
 * (`admission-steps.ts`): synchronously when no plugin handles the request, else as a promise.
 */
export class ResourceOperations {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  #now(): string {
    return formatTime(this.#ctx.clock.now());
  }

  /** NamespaceLifecycle admission: the namespace must exist and not be terminating. */
  #admitNamespace(entry: ResourceEntry, namespace: string, nameForMessage: string): void {
    if (!entry.info.namespaced) return;
    const ns = this.#ctx.storage.get(NAMESPACE_STORAGE_ID, namespace);
    if (!ns) throw newNotFound({ group: "", resource: "namespaces" }, namespace);
    if (metadataOf(ns)?.["deletionTimestamp"]) {
      const err = newForbidden(
        groupResource(entry),
        nameForMessage,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      err.status.details = {
        ...err.status.details,
        causes: [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${namespace} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      };
      throw err;
    }
  }

  /**
   * Creates an object (POST, or PUT/apply on a missing object). Returns the stored object;
   * under dryRun the would-be object with an empty resourceVersion.
   */
  create(
    entry: ResourceEntry,
    namespace: string,
    body: JsonObject,
    opts: CreateOptions,
  ): JsonObject {
    return runWithoutAdmission(this.#createSteps(entry, namespace, body, opts, false));
  }

  /** {@link create} through the request's admission chain (a promise once a plugin handles it). */
  createAdmitted(
    entry: ResourceEntry,
    namespace: string,
    body: JsonObject,
    opts: CreateOptions,
    request: AdmissionRequest,
  ): JsonObject | Promise<JsonObject> {
    return runWithAdmission(this.#createSteps(entry, namespace, body, opts, true), request);
  }

  /** The steps of a create; `admit`: stop for admission (mutating, then validating). */
  *#createSteps(
    entry: ResourceEntry,
    namespace: string,
    body: JsonObject,
    opts: CreateOptions,
    admit: boolean,
  ): WriteSteps<JsonObject> {
    const conversion = storageConversionOf(this.#ctx.registry, entry);
    checkTypeMeta(entry, body);
    if (conversion) {
      // Served from another resource's storage: written in its form, under its rules.
      const stored = conversion.toStorage(body);
      const errors = conversion.validateCreate({
        ...stored,
        metadata: { ...metadataOf(stored), namespace },
      });
      if (errors.length > 0)
        throw invalidFor(entry, String(metadataOf(body)?.["name"] ?? ""), errors);
      const created = yield* this.#createSteps(conversion.storage, namespace, stored, opts, admit);
      return conversion.fromStorage(created);
    }
    const inMeta = metadataOf(body) ?? {};
    checkNamespace(entry, namespace, body);
    if (entry.info.custom?.terminating) {
      throw newForbidden(
        groupResource(entry),
        String(inMeta["name"] ?? ""),
        "create not allowed while custom resource definition is terminating",
      );
    }
    if (stringField(inMeta, "resourceVersion") !== "") {
      throw newStatusError(500, "", "resourceVersion should not be set on objects to be created");
    }
    const generateName = stringField(inMeta, "generateName");
    const givenName = stringField(inMeta, "name");
    this.#admitNamespace(entry, namespace, givenName || generateName || "Unknown");
    let known = decodeBody(entry, body, opts);
    if (admit) {
      const attrs = { operation: "CREATE", subresource: "", name: givenName } as const;
      known = yield* mutateSteps(entry, namespace, known, undefined, attrs, opts);
    }
    const obj = systemMetaForCreate(entry, namespace, known, this.#now());
    checkTypes(entry, obj);
    return yield* this.#storeNewSteps(entry, namespace, obj, givenName, generateName, opts, admit);
  }

  /** Names (or generates the name of) a new object, runs `beforeCreate` and stores it. */
  *#storeNewSteps(
    entry: ResourceEntry,
    namespace: string,
    obj: JsonObject,
    givenName: string,
    generateName: string,
    opts: CreateOptions,
    admit: boolean,
  ): WriteSteps<JsonObject> {
    let attempts = givenName === "" && generateName !== "" ? GENERATE_NAME_ATTEMPTS : 1;
    let validated = !admit;
    for (;;) {
      const name =
        givenName !== "" ? givenName : generateName !== "" ? generateNameFrom(generateName) : "";
      const candidate = beforeCreate(entry, { ...obj, metadata: { ...metadataOf(obj), name } });
      const managed =
        opts.managedFieldsOverride ??
        managedFieldsAfterUpdate(entry, undefined, candidate, [], {
          manager: opts.fieldManager,
          subresource: "",
          time: this.#now(),
        });
      const final: JsonObject = {
        ...candidate,
        metadata: { ...metadataOf(candidate), managedFields: managed as unknown as JsonValue },
      };
      if (!validated) {
        // Validating admission sees the object as it will be stored (kube's createValidation).
        yield validateStep(entry, namespace, name, final, undefined, "CREATE", "", opts.dryRun);
        validated = true;
      }
      const key = storageKey(entry, namespace, name);
      const existing = this.#ctx.storage.get(entry.storageId, key);
      if (existing) {
        if (givenName === "" && --attempts > 0) continue;
        if (givenName === "") throw newGenerateNameConflict(groupResource(entry), name, 1);
        const err = newAlreadyExists(groupResource(entry), name);
        if (metadataOf(existing)?.["deletionTimestamp"]) {
          err.status.message = `object is being deleted: ${err.status.message ?? ""}`;
          err.message = err.status.message;
        }
        throw err;
      }
      if (opts.dryRun) return { ...final, metadata: { ...metadataOf(final), resourceVersion: "" } };
      const checkAbsent = (): void => {
        if (this.#ctx.storage.get(entry.storageId, key)) {
          throw newAlreadyExists(groupResource(entry), name);
        }
      };
      return yield* this.#commitSteps(entry, key, final, admit, checkAbsent);
    }
  }

  /** The stored object (in the entry's form), or undefined. */
  find(entry: ResourceEntry, namespace: string, name: string): JsonObject | undefined {
    const conversion = storageConversionOf(this.#ctx.registry, entry);
    if (conversion) {
      const stored = this.find(conversion.storage, namespace, name);
      return stored && conversion.fromStorage(stored);
    }
    return this.#read(entry, namespace, name);
  }

  /** The stored object of an entry served from its own storage, in the entry's form. */
  #read(entry: ResourceEntry, namespace: string, name: string): JsonObject | undefined {
    const stored = this.#ctx.storage.get(entry.storageId, storageKey(entry, namespace, name));
    const custom = entry.info.custom;
    return stored && custom ? customResourceFromStorage(entry, custom, stored) : stored;
  }

  /**
   * The stored object in the entry's form, read for an admitted write: through the CRD's
   * conversion webhook when its objects cross versions that way, else as {@link find} does.
   */
  *#readSteps(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    admit: boolean,
  ): WriteSteps<JsonObject | undefined> {
    if (!admit || !convertsThroughWebhook(entry)) return this.find(entry, namespace, name);
    const stored = this.#ctx.storage.get(entry.storageId, storageKey(entry, namespace, name));
    if (!stored) return undefined;
    return yield convertStep(this.#ctx, entry, stored);
  }

  /**
   * {@link #commit} for a write that may await: the object is converted to the storage
   * version through the CRD's conversion webhook when needed, then `check` runs (the write's
   * stale-read or already-exists check) right before the synchronous commit, and the stored
   * object is converted back to the entry's version.
   */
  *#commitSteps(
    entry: ResourceEntry,
    key: string,
    obj: JsonObject | null,
    admit: boolean,
    check: () => void,
  ): WriteSteps<JsonObject> {
    const custom = entry.info.custom;
    if (!admit || !custom || !convertsThroughWebhook(entry)) {
      check();
      return this.#commit(entry, key, obj);
    }
    const ctx = this.#ctx;
    const stored = obj
      ? yield { phase: "await", run: () => customResourceToStorageAsync(ctx, entry, obj) }
      : null;
    check();
    const committed = ctx.storage.commit(entry.storageId, key, stored ?? null).object;
    if (custom.versions.storageVersion === entry.info.version) return committed;
    return (yield convertStep(ctx, entry, committed)) ?? committed;
  }

  /**
   * Throws {@link StaleWriteError} when the stored object is no longer `read` (its
   * resourceVersion changed, or it is gone) — possible only after awaiting admission.
   */
  #checkNotStale(entry: ResourceEntry, key: string, name: string, read: JsonObject): void {
    const stored = this.#ctx.storage.get(entry.storageId, key);
    const rv = stored && metadataOf(stored)?.["resourceVersion"];
    if (rv !== metadataOf(read)?.["resourceVersion"]) throw new StaleWriteError(entry, name);
  }

  /**
   * Commits `obj` (null: removes the object) and returns the stored object in the entry's
   * form; custom resources are stored at their CRD's storage version.
   */
  #commit(entry: ResourceEntry, key: string, obj: JsonObject | null): JsonObject {
    const custom = entry.info.custom;
    const stored = custom && obj ? customResourceToStorage(entry, custom, obj) : obj;
    const committed = this.#ctx.storage.commit(entry.storageId, key, stored).object;
    // At the storage version the object is as the write path just pruned and defaulted it.
    if (!custom || custom.versions.storageVersion === entry.info.version) return committed;
    return customResourceFromStorage(entry, custom, committed);
  }

  /** The stored object (in the entry's form), or a 404 NotFound. */
  getExisting(entry: ResourceEntry, namespace: string, name: string): JsonObject {
    const obj = this.find(entry, namespace, name);
    if (!obj) throw newNotFound(groupResource(entry), name);
    return obj;
  }

  /**
   * Updates an object with the full new state (PUT, and every patch after it is applied).
   * `requireResourceVersion` is false for patches (kube retries patches internally unless
   * they carry a resourceVersion). Returns the result and whether it was created.
   */
  update(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    body: JsonObject,
    opts: UpdateOptions,
  ): UpdateResult {
    return runWithoutAdmission(this.#updateSteps(entry, namespace, name, body, opts, false));
  }

  /**
   * {@link update} through the request's admission chain. `body` is the new state, or (a
   * patch) a function of the stored object giving it; the write runs again from its read when
   * the object changed while it was admitted (a PUT's stale resourceVersion is then a 409).
   */
  updateAdmitted(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    body: JsonObject | ((current: JsonObject) => JsonObject),
    opts: UpdateOptions,
    request: AdmissionRequest,
  ): UpdateResult | Promise<UpdateResult> {
    const run = (next: JsonObject): UpdateResult | Promise<UpdateResult> =>
      runWithAdmission(this.#updateSteps(entry, namespace, name, next, opts, true), request);
    return retryStaleWrites(() => {
      if (typeof body !== "function") return run(body);
      if (!convertsThroughWebhook(entry))
        return run(body(this.getExisting(entry, namespace, name)));
      // The object a patch applies to, read at the request's version through the webhook.
      const current = runWithAdmission(this.#readSteps(entry, namespace, name, true), request);
      return Promise.resolve(current).then((obj) => {
        if (!obj) throw newNotFound(groupResource(entry), name);
        return run(body(obj));
      });
    });
  }

  /** The steps of an update; `admit`: stop for admission (mutating, then validating). */
  *#updateSteps(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    body: JsonObject,
    opts: UpdateOptions,
    admit: boolean,
  ): WriteSteps<UpdateResult> {
    checkTypeMeta(entry, body);
    const conversion = storageConversionOf(this.#ctx.registry, entry);
    if (conversion) {
      const steps = this.#updateConvertedSteps(
        conversion,
        entry,
        namespace,
        name,
        body,
        opts,
        admit,
      );
      return yield* steps;
    }
    const inMeta = metadataOf(body) ?? {};
    checkNamespace(entry, namespace, body);
    const bodyName = stringField(inMeta, "name");
    if (bodyName !== "" && bodyName !== name) {
      throw newBadRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    const existing = yield* this.#readSteps(entry, namespace, name, admit);
    if (!existing) {
      if (entry.policy.allowCreateOnUpdate && opts.subresource === "" && !opts.isPatch) {
        if (stringField(inMeta, "resourceVersion") !== "")
          throw newNotFound(groupResource(entry), name);
        const withName = { ...body, metadata: { ...inMeta, name } };
        const created = yield* this.#createSteps(entry, namespace, withName, opts, admit);
        return { object: created, created: true };
      }
      throw newNotFound(groupResource(entry), name);
    }
    checkUpdatePreconditions(entry, name, inMeta, existing, opts.isPatch);
    let known = decodeBody(entry, body, opts);
    if (admit) known = yield* mutateUpdateSteps(entry, namespace, name, known, existing, opts);
    const system = systemMetaForUpdate(entry, namespace, name, known, existing, opts.subresource);
    checkTypes(entry, system.next);
    const next = beforeUpdate(entry, system.next, existing, opts.subresource, system.errors);
    const givenManaged = Array.isArray(inMeta["managedFields"])
      ? (inMeta["managedFields"] as unknown as ManagedFieldsEntry[])
      : undefined;
    const steps = this.#storeUpdateSteps(
      entry,
      namespace,
      name,
      next,
      existing,
      givenManaged,
      opts,
      admit,
    );
    return yield* steps;
  }

  /** An update of a resource served from another's storage: checked in its form, stored in the other's. */
  *#updateConvertedSteps(
    conversion: StorageConversion,
    entry: ResourceEntry,
    namespace: string,
    name: string,
    body: JsonObject,
    opts: UpdateOptions,
    admit: boolean,
  ): WriteSteps<UpdateResult> {
    const stored = conversion.toStorage(body);
    const previous = this.#ctx.storage.get(
      conversion.storage.storageId,
      storageKey(conversion.storage, namespace, name),
    );
    const scoped = { ...stored, metadata: { ...metadataOf(stored), namespace } };
    const errors = previous
      ? conversion.validateUpdate(scoped, previous)
      : conversion.validateCreate(scoped);
    if (errors.length > 0) throw invalidFor(entry, name, errors);
    const steps = this.#updateSteps(conversion.storage, namespace, name, stored, opts, admit);
    const result = yield* steps;
    return { ...result, object: conversion.fromStorage(result.object) };
  }

  /**
   * Records managedFields (the apply's, the body's own, or the stored ones with this write
   * recorded), stops for validating admission, then stores the update (see {@link #commitUpdateSteps}).
   */
  *#storeUpdateSteps(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    next: JsonObject,
    existing: JsonObject,
    givenManaged: ManagedFieldsEntry[] | undefined,
    opts: UpdateOptions,
    admit: boolean,
  ): WriteSteps<UpdateResult> {
    const final = this.#withManagedFields(entry, next, existing, givenManaged, opts);
    const key = storageKey(entry, namespace, name);
    if (admit) yield updateValidateStep(entry, namespace, name, final, existing, opts);
    const check = admit ? () => this.#checkNotStale(entry, key, name, existing) : () => {};
    return yield* this.#commitUpdateSteps(entry, key, final, existing, opts, { admit, check });
  }

  /** `next` with its managedFields: the apply's, the body's own, or the stored ones with this write recorded. */
  #withManagedFields(
    entry: ResourceEntry,
    next: JsonObject,
    existing: JsonObject,
    givenManaged: ManagedFieldsEntry[] | undefined,
    opts: UpdateOptions,
  ): JsonObject {
    const oldMeta = metadataOf(existing) ?? {};
    const base =
      givenManaged ??
      (oldMeta["managedFields"] as unknown as ManagedFieldsEntry[] | undefined) ??
      [];
    const managed =
      opts.managedFieldsOverride ??
      managedFieldsAfterUpdate(entry, existing, next, base, {
        manager: opts.fieldManager,
        subresource: opts.managedSubresource ?? opts.subresource,
        time: this.#now(),
      });
    const finalMeta: JsonObject = { ...metadataOf(next) };
    if (managed.length > 0) finalMeta["managedFields"] = managed as unknown as JsonValue;
    else delete finalMeta["managedFields"];
    return { ...next, metadata: finalMeta };
  }

  /**
   * Stores an update: nothing when it changes nothing, the removal when it leaves an object
   * being deleted without finalizers (and no graceful deletion pending).
   */
  *#commitUpdateSteps(
    entry: ResourceEntry,
    key: string,
    final: JsonObject,
    existing: JsonObject,
    opts: UpdateOptions,
    commit: CommitGuard,
  ): WriteSteps<UpdateResult> {
    const { admit, check } = commit;
    if (deepEqual(final, existing)) return { object: existing, created: false };
    const finalMeta = metadataOf(final) ?? {};
    const finalizers = (finalMeta["finalizers"] as string[] | undefined) ?? [];
    // An update that leaves an object being deleted without finalizers completes its
    // deletion, unless a graceful deletion is pending (`staging/src/k8s.io/apiserver/pkg/
    // registry/generic/registry/store.go` shouldDeleteDuringUpdate: only when the grace
    // period is 0), e.g. the kubelet writing the status of a pod it is stopping.
    const pendingGrace = metadataOf(existing)?.["deletionGracePeriodSeconds"];
    const gracefulPending = typeof pendingGrace === "number" && pendingGrace > 0;
    if (finalMeta["deletionTimestamp"] && finalizers.length === 0 && !gracefulPending) {
      if (opts.dryRun) return { object: final, created: false };
      const removed = yield* this.#commitSteps(entry, key, null, admit, check);
      const resourceVersion = metadataOf(removed)?.["resourceVersion"] as JsonValue;
      return { object: { ...final, metadata: { ...finalMeta, resourceVersion } }, created: false };
    }
    if (opts.dryRun) return { object: final, created: false };
    return { object: yield* this.#commitSteps(entry, key, final, admit, check), created: false };
  }

  /**
   * Server-side apply of `applied` to the object `name`: the field manager merges it into
   * the live object (conflicts are a 409 unless forced), which is then created when missing
   * or updated as a patch, with the managedFields the apply computed.
   */
  apply(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    applied: JsonObject,
    opts: ApplyOptions,
  ): UpdateResult {
    return runWithoutAdmission(this.#applySteps(entry, namespace, name, applied, opts, false));
  }

  /** {@link apply} through the request's admission chain, run again when the object changed meanwhile. */
  applyAdmitted(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    applied: JsonObject,
    opts: ApplyOptions,
    request: AdmissionRequest,
  ): UpdateResult | Promise<UpdateResult> {
    return retryStaleWrites(() =>
      runWithAdmission(this.#applySteps(entry, namespace, name, applied, opts, true), request),
    );
  }

  *#applySteps(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    applied: JsonObject,
    opts: ApplyOptions,
    admit: boolean,
  ): WriteSteps<UpdateResult> {
    checkTypeMeta(entry, applied);
    const appliedName = stringField(metadataOf(applied) ?? {}, "name");
    if (appliedName !== "" && appliedName !== name) {
      throw newBadRequest(
        `the name of the object (${appliedName}) does not match the name on the URL (${name})`,
      );
    }
    if (entry.info.custom) checkAppliedFields(entry, entry.info.custom, applied);
    const live = yield* this.#readSteps(entry, namespace, name, admit);
    const result = applyWithManagedFields(
      entry,
      live,
      { ...applied, metadata: { ...metadataOf(applied), name } },
      {
        manager: opts.fieldManager,
        subresource: opts.subresource,
        time: this.#now(),
        force: opts.force,
      },
    );
    const managed = metadataOf(result)?.["managedFields"] as unknown as
      ManagedFieldsEntry[] | undefined;
    if (!live) {
      const createOpts = { ...opts, ...(managed ? { managedFieldsOverride: managed } : {}) };
      const created = yield* this.#createSteps(entry, namespace, result, createOpts, admit);
      return { object: created, created: true };
    }
    const updateOpts = { ...opts, isPatch: true, managedFieldsOverride: managed ?? [] };
    return yield* this.#updateSteps(entry, namespace, name, result, updateOpts, admit);
  }

  /**
   * Deletes an object: immediately, or, when finalizers remain (including the orphan /
   * foregroundDeletion finalizer a propagation policy adds), by setting deletionTimestamp.
   * Namespaces enter Terminating and are emptied by the namespace controller.
   */
  delete(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    opts: DeleteRequestOptions,
  ): DeleteResult {
    return runWithoutAdmission(this.#deleteSteps(entry, namespace, name, opts, undefined));
  }

  /** {@link delete} through the request's admission chain (`options`: the request's DeleteOptions). */
  deleteAdmitted(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    opts: DeleteRequestOptions,
    request: AdmissionRequest,
  ): DeleteResult | Promise<DeleteResult> {
    return retryStaleWrites(() =>
      runWithAdmission(this.#deleteSteps(entry, namespace, name, opts, true), request),
    );
  }

  *#deleteSteps(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    opts: DeleteRequestOptions,
    admit: true | undefined,
  ): WriteSteps<DeleteResult> {
    const conversion = storageConversionOf(this.#ctx.registry, entry);
    if (conversion) {
      const result = yield* this.#deleteSteps(conversion.storage, namespace, name, opts, admit);
      return { ...result, object: conversion.fromStorage(result.object) };
    }
    const key = storageKey(entry, namespace, name);
    const existing = yield* this.#readSteps(entry, namespace, name, admit === true);
    if (!existing) throw newNotFound(groupResource(entry), name);
    const meta = metadataOf(existing) ?? {};
    checkDeletePreconditions(entry, name, meta, opts.preconditions);
    if (admit) {
      // kube's deleteValidation: mutating then validating admission of the stored object.
      const attrs = deleteAttributes(entry, namespace, name, existing, opts.dryRun);
      yield { phase: "mutate", attrs };
      yield { phase: "validate", attrs };
    }
    const check = admit ? () => this.#checkNotStale(entry, key, name, existing) : () => {};
    const guard = { admit: admit === true, check };
    return yield* this.#deleteExistingSteps(entry, key, name, existing, opts, guard);
  }

  /** The delete of `existing` once admitted (see {@link delete}). */
  *#deleteExistingSteps(
    entry: ResourceEntry,
    key: string,
    name: string,
    existing: JsonObject,
    opts: DeleteRequestOptions,
    guard: CommitGuard,
  ): WriteSteps<DeleteResult> {
    const { admit, check } = guard;
    const meta = metadataOf(existing) ?? {};
    const decision = strategyFor(entry.info).beforeDelete?.(existing, {
      name,
      now: this.#now(),
      nowMs: this.#ctx.clock.now(),
      ...(opts.gracePeriodSeconds !== undefined
        ? { gracePeriodSeconds: opts.gracePeriodSeconds }
        : {}),
      behaviour: this.#ctx.behaviour,
      storage: this.#ctx.storage,
    });
    const terminating = decision?.terminate;
    if (terminating) {
      if (terminating === existing || opts.dryRun) return { object: terminating, removed: false };
      const committed = yield* this.#commitSteps(entry, key, terminating, admit, check);
      return { object: committed, removed: false };
    }
    const finalizers = new Set([
      ...((meta["finalizers"] as string[] | undefined) ?? []),
      ...(decision?.addFinalizers ?? []),
    ]);
    const status = decision?.status ?? existing["status"];
    addPropagationFinalizer(finalizers, opts.propagationPolicy);
    if (finalizers.size > 0) {
      const marking = { finalizers, status };
      return yield* this.#markDeletedSteps(entry, key, existing, marking, opts, guard);
    }
    if (opts.dryRun) return { object: existing, removed: true };
    return { object: yield* this.#commitSteps(entry, key, null, admit, check), removed: true };
  }

  /** A delete that finalizers hold: deletionTimestamp set (or a pending graceful deletion ended). */
  *#markDeletedSteps(
    entry: ResourceEntry,
    key: string,
    existing: JsonObject,
    marking: { readonly finalizers: ReadonlySet<string>; readonly status: JsonValue | undefined },
    opts: DeleteRequestOptions,
    guard: CommitGuard,
  ): WriteSteps<DeleteResult> {
    const { finalizers, status } = marking;
    const { admit, check } = guard;
    const meta = metadataOf(existing) ?? {};
    if (meta["deletionTimestamp"]) {
      // A delete with no grace left ends a pending graceful deletion (`staging/src/k8s.io/
      // apiserver/pkg/registry/rest/delete.go` BeforeDelete lowers the period to 0), so
      // removing the last finalizer then completes it.
      const pending = meta["deletionGracePeriodSeconds"];
      if (typeof pending !== "number" || pending <= 0) return { object: existing, removed: false };
      const lowered: JsonObject = {
        ...existing,
        metadata: { ...meta, deletionTimestamp: this.#now(), deletionGracePeriodSeconds: 0 },
      };
      if (opts.dryRun) return { object: lowered, removed: false };
      return {
        object: yield* this.#commitSteps(entry, key, lowered, admit, check),
        removed: false,
      };
    }
    const generation =
      typeof meta["generation"] === "number" && meta["generation"] > 0
        ? meta["generation"] + 1
        : meta["generation"];
    const marked: JsonObject = {
      ...existing,
      ...(status !== undefined ? { status } : {}),
      metadata: {
        ...meta,
        ...(generation !== undefined ? { generation } : {}),
        deletionTimestamp: this.#now(),
        deletionGracePeriodSeconds: 0,
        finalizers: [...finalizers],
      },
    };
    if (opts.dryRun) return { object: marked, removed: false };
    return { object: yield* this.#commitSteps(entry, key, marked, admit, check), removed: false };
  }

  /** Removes one finalizer from an object (controllers), completing its deletion when none remain. */
  removeFinalizer(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    finalizer: string,
    manager: string,
  ): void {
    const obj = this.find(entry, namespace, name);
    if (!obj) return;
    const meta = metadataOf(obj) ?? {};
    const finalizers = ((meta["finalizers"] as string[] | undefined) ?? []).filter(
      (f) => f !== finalizer,
    );
    this.update(
      entry,
      namespace,
      name,
      { ...obj, metadata: { ...meta, finalizers } },
      {
        dryRun: false,
        fieldManager: manager,
        fieldValidation: "Ignore",
        warnings: [],
        subresource: "",
        isPatch: true,
      },
    );
  }
}

/** The resourceVersion and uid preconditions of an update (409 Conflict; 422 when one is required). */
function checkUpdatePreconditions(
  entry: ResourceEntry,
  name: string,
  inMeta: JsonObject,
  existing: JsonObject,
  isPatch: boolean,
): void {
  const oldMeta = metadataOf(existing) ?? {};
  const rv = stringField(inMeta, "resourceVersion");
  if (rv === "") {
    if (!entry.policy.allowUnconditionalUpdate && !isPatch) {
      // The generic store names the resource, not the kind, in this error.
      throw newInvalid({ group: entry.info.group, kind: entry.info.plural }, name, [
        fieldInvalid("metadata.resourceVersion", 0, "must be specified for an update"),
      ]);
    }
  } else if (rv !== oldMeta["resourceVersion"]) {
    throw newConflict(
      groupResource(entry),
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  }
  const uid = stringField(inMeta, "uid");
  if (uid !== "" && uid !== oldMeta["uid"]) {
    throw newConflict(
      groupResource(entry),
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(oldMeta["uid"])}`,
    );
  }
}

/** DeleteOptions' preconditions (`rest.BeforeDelete`, which names the kind in its 409s). */
function checkDeletePreconditions(
  entry: ResourceEntry,
  name: string,
  meta: JsonObject,
  pre: DeleteRequestOptions["preconditions"],
): void {
  const byKind = { group: entry.info.group, resource: entry.info.kind };
  if (pre?.uid && pre.uid !== meta["uid"]) {
    throw newConflict(
      byKind,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(meta["uid"])}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta["resourceVersion"]) {
    throw newConflict(
      byKind,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta["resourceVersion"])}). The object might have been modified`,
    );
  }
}

/**
 * The finalizer of the propagation policy (given, or implied by a finalizer already there):
 * Orphan adds `orphan`, Foreground adds `foregroundDeletion`, Background neither.
 */
function addPropagationFinalizer(
  finalizers: Set<string>,
  given: DeleteRequestOptions["propagationPolicy"],
): void {
  let policy = given;
  if (!policy && finalizers.has("orphan")) policy = "Orphan";
  if (!policy && finalizers.has("foregroundDeletion")) policy = "Foreground";
  if (policy === "Orphan") finalizers.add("orphan");
  if (policy === "Foreground") finalizers.add("foregroundDeletion");
}

/**
 * A write's body with its type meta, as the request decoding leaves it: built-in kinds
 * without the fields their type does not define, custom resources pruned and defaulted by
 * their version's schema (both reporting unknown fields, and the keys the request's JSON
 * repeats, as `fieldValidation` asks).
 */
function decodeBody(entry: ResourceEntry, body: JsonObject, opts: WriteOptions): JsonObject {
  const typed = withTypeMeta(entry, body);
  const custom = entry.info.custom;
  if (custom) return decodeCustomResource(entry, custom, typed, body, opts);
  return enforceKnownFields(typed, messageNameOf(entry), opts.fieldValidation, opts.warnings, body);
}

function generateNameFrom(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = "";
  for (const b of bytes) suffix += GENERATE_NAME_CHARS[b % GENERATE_NAME_CHARS.length];
  return prefix.slice(0, 58) + suffix;
}

/**
 * How a write commits: `admit` (an admitted write, which may await a conversion) and the
 * check run right before the synchronous commit (the stored object unchanged since read).
 */
interface CommitGuard {
  readonly admit: boolean;
  readonly check: () => void;
}

/** The admission-relevant parts of a write the store's steps name. */
interface StepIdentity {
  readonly operation: "CREATE" | "UPDATE";
  readonly subresource: string;
  readonly name: string;
}

/**
 * The mutating admission stop of a write: admission sees the decoded object with its
 * namespace and defaults; a changed object comes back decoded as kube decodes a webhook's
 * output (fields the type does not define dropped, custom resources pruned and defaulted).
 */
function* mutateSteps(
  entry: ResourceEntry,
  namespace: string,
  known: JsonObject,
  oldObject: JsonObject | undefined,
  identity: StepIdentity,
  opts: WriteOptions,
): WriteSteps<JsonObject> {
  let input: JsonObject | undefined;
  const prepare = (): JsonObject => (input ??= admissionInput(entry, namespace, known));
  const attrs: AdmissionStepAttributes = {
    ...identity,
    entry,
    namespace,
    object: known,
    oldObject,
    dryRun: opts.dryRun,
  };
  const out = yield { phase: "mutate", attrs, prepare };
  if (out === undefined || out === known || out === input) return known;
  return decodeBody(entry, out, { ...opts, fieldValidation: "Ignore", warnings: [] });
}

/** The mutating admission stop of an update, through its admission view (a Scale) when it has one. */
function* mutateUpdateSteps(
  entry: ResourceEntry,
  namespace: string,
  name: string,
  known: JsonObject,
  existing: JsonObject,
  opts: UpdateOptions,
): WriteSteps<JsonObject> {
  const view = opts.admissionView;
  if (!view) {
    const identity = { operation: "UPDATE", subresource: opts.subresource, name } as const;
    return yield* mutateSteps(entry, namespace, known, existing, identity, opts);
  }
  const input = view.toView(known);
  const out = yield {
    phase: "mutate",
    attrs: {
      operation: "UPDATE",
      entry,
      subresource: view.subresource,
      namespace,
      name,
      object: input,
      oldObject: view.toView(existing),
      dryRun: opts.dryRun,
    },
  };
  return out === undefined || out === input ? known : view.fromView(out, known);
}

/** The validating admission stop of a write: the object as it will be stored. */
function validateStep(
  entry: ResourceEntry,
  namespace: string,
  name: string,
  object: JsonObject,
  oldObject: JsonObject | undefined,
  operation: "CREATE" | "UPDATE",
  subresource: string,
  dryRun: boolean,
): AdmissionStep {
  const attrs = { operation, entry, subresource, namespace, name, object, oldObject, dryRun };
  return { phase: "validate", attrs };
}

/** The validating admission stop of an update, through its admission view when it has one. */
function updateValidateStep(
  entry: ResourceEntry,
  namespace: string,
  name: string,
  final: JsonObject,
  existing: JsonObject,
  opts: UpdateOptions,
): AdmissionStep {
  const view = opts.admissionView;
  if (!view) {
    return validateStep(
      entry,
      namespace,
      name,
      final,
      existing,
      "UPDATE",
      opts.subresource,
      opts.dryRun,
    );
  }
  const object = view.toView(final);
  const old = view.toView(existing);
  return validateStep(entry, namespace, name, object, old, "UPDATE", view.subresource, opts.dryRun);
}

/** A delete's admission attributes: the stored object as oldObject, no object. */
function deleteAttributes(
  entry: ResourceEntry,
  namespace: string,
  name: string,
  existing: JsonObject,
  dryRun: boolean,
): AdmissionStepAttributes {
  return {
    operation: "DELETE",
    entry,
    subresource: "",
    namespace,
    name,
    object: undefined,
    oldObject: existing,
    dryRun,
  };
}

/** An await stop converting a stored custom resource to `entry`'s version through its webhook. */
function convertStep(ctx: ServerContext, entry: ResourceEntry, stored: JsonObject): AwaitStep {
  return {
    phase: "await",
    run: async () => {
      const [converted] = await customResourcesFromStorageAsync(ctx, entry, [stored]);
      return converted ?? stored;
    },
  };
}
