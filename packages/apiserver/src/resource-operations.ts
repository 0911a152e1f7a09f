import { randomBytes, randomUUID } from "node:crypto";
import {
  messageNameForKind,
  deepEqual,
  isJsonObject,
  fieldForbidden,
  fieldInvalid,
  formatTime,
} from "kubekit/apimachinery";
import {
  type JsonObject,
  type JsonValue,
  type StatusError,
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
import { storageConversionOf } from "./event-conversion.js";
import { enforceKnownFields, type FieldValidationMode } from "./field-validation.js";
import { recordUpdate, type ManagedFieldsEntry } from "./managed-fields.js";
import { objectBoundsProblem } from "./object-bounds.js";
import { validateObjectMeta } from "./object-validation.js";
import { normalizeTypedObject } from "./typed-normalization.js";
import { typedDecodingProblem } from "./typed-decoding.js";
import { NAMESPACE_STORAGE_ID } from "./kinds/namespace.js";
import { strategyFor } from "./kinds/strategies.js";
import type { ResourceEntry } from "./registry.js";
import type { ServerContext } from "./server-context.js";

/** Options shared by every write (create, update, patch). */
export interface WriteOptions {
  readonly dryRun: boolean;
  /** The manager recorded in managedFields for Update operations. */
  readonly fieldManager: string;
  readonly fieldValidation: FieldValidationMode;
  /** Collects `Warning` header texts. */
  readonly warnings: string[];
}

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

const GENERATE_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
const GENERATE_NAME_ATTEMPTS = 8;

/** The storage key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function storageKey(entry: ResourceEntry, namespace: string, name: string): string {
  return entry.info.namespaced ? `${namespace}/${name}` : name;
}

/** `metadata` of an object (an empty object when absent). */
export function metaOf(obj: JsonObject): JsonObject {
  const m = obj["metadata"];
  return isJsonObject(m) ? m : {};
}

/** `group`/`plural` of an entry as a GroupResource for Status messages. */
export function groupResource(entry: ResourceEntry): { group: string; resource: string } {
  return { group: entry.info.group, resource: entry.info.plural };
}

/** The apiVersion of an entry: `group/version`, or the version alone for the core group. */
export function apiVersionOf(entry: ResourceEntry): string {
  return entry.info.group === "" ? entry.info.version : `${entry.info.group}/${entry.info.version}`;
}

/** The field-table message of an entry's kind; undefined for custom resources. */
export function messageNameOf(entry: ResourceEntry): string | undefined {
  return entry.info.custom
    ? undefined
    : messageNameForKind(entry.info.group, entry.info.version, entry.info.kind);
}

function hasStatusSubresource(entry: ResourceEntry): boolean {
  return entry.info.subresources.some((s) => s.name === "status");
}

/** An object with apiVersion and kind first, the order kube-apiserver serializes. */
export function withTypeMeta(entry: ResourceEntry, obj: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: apiVersionOf(entry), kind: entry.info.kind, ...rest };
}

/** Everything outside metadata and status: what a generation bump watches. */
function specLike(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

function unknownError(code: number, message: string): StatusError {
  return newStatusError(code, "", message);
}

/**
 * The embedded server's write path, shared by the HTTP verbs and the in-server controllers
 * (namespace lifecycle, CRD cleanup, garbage collector): create, update (with subresource
 * rules), delete with finalizers and propagation, each with kube-apiserver's validation,
 * server-set fields, generation rules, managedFields and no-op detection.
 */
export class ResourceOperations {
  constructor(private readonly ctx: ServerContext) {}

  private now(): string {
    return formatTime(this.ctx.clock.now());
  }

  /** Checks the body's apiVersion and kind against the endpoint (400 on mismatch). */
  checkTypeMeta(entry: ResourceEntry, body: JsonObject): void {
    const apiVersion = body["apiVersion"];
    const kind = body["kind"];
    if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== apiVersionOf(entry)) {
      throw newBadRequest(
        `the API version in the data (${String(apiVersion)}) does not match the expected API version (${apiVersionOf(entry)})`,
      );
    }
    if (kind !== undefined && kind !== "" && kind !== entry.info.kind) {
      throw newBadRequest(
        `the kind in the data (${String(kind)}) does not match the expected kind (${entry.info.kind})`,
      );
    }
  }

  /** A body's namespace must be empty or the request's (400 otherwise); namespaced resources only. */
  checkNamespace(entry: ResourceEntry, namespace: string, meta: JsonObject): void {
    if (!entry.info.namespaced) return;
    const bodyNs = meta["namespace"];
    if (typeof bodyNs === "string" && bodyNs !== "" && bodyNs !== namespace) {
      throw newBadRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
  }

  /** NamespaceLifecycle admission: the namespace must exist and not be terminating. */
  private admitNamespace(entry: ResourceEntry, namespace: string, nameForMessage: string): void {
    if (!entry.info.namespaced) return;
    const ns = this.ctx.storage.get(NAMESPACE_STORAGE_ID, namespace);
    if (!ns) throw newNotFound({ group: "", resource: "namespaces" }, namespace);
    if (metaOf(ns)["deletionTimestamp"]) {
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
   * Typed decoding: a value of the wrong JSON type for a built-in field is a 400 BadRequest
   * in kube-apiserver's words (`<Kind> in version "<v>" cannot be handled as a <Kind>: …`).
   */
  checkTypes(entry: ResourceEntry, obj: JsonObject): void {
    const problem = typedDecodingProblem(obj, messageNameOf(entry));
    if (problem) {
      const kind = entry.info.kind;
      throw newBadRequest(
        `${kind} in version "${apiVersionOf(entry)}" cannot be handled as a ${kind}: ${problem}`,
      );
    }
  }

  private validate(entry: ResourceEntry, obj: JsonObject, extra: FieldError[] = []): void {
    // Bodies are bounded when decoded, but a patch can nest a value under a deep path
    // (JSON Patch paths are strings): the result is bounded again before it can be stored.
    // managedFields are left out: they mirror the object's own shape a few levels deeper
    // (which MAX_OBJECT_DEPTH leaves room for), and an accepted object must stay updatable.
    const { managedFields: _managed, ...meta } = metaOf(obj);
    const bounds = objectBoundsProblem({ ...obj, metadata: meta });
    if (bounds) {
      throw newBadRequest(
        bounds.kind === "tooDeep"
          ? `the object is nested deeper than ${bounds.limit} levels`
          : `the object contains ${bounds.what}`,
      );
    }
    const errors = [
      ...validateObjectMeta(metaOf(obj), entry.policy, entry.info.namespaced),
      ...extra,
    ];
    if (errors.length > 0) {
      throw newInvalid(
        { group: entry.info.group, kind: entry.info.kind },
        String(metaOf(obj)["name"] ?? ""),
        errors,
      );
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
    opts: WriteOptions & { readonly managedFieldsOverride?: ManagedFieldsEntry[] },
  ): JsonObject {
    const conversion = storageConversionOf(this.ctx.registry, entry);
    if (conversion) {
      // Served from another resource's storage: written in its form, under its rules.
      this.checkTypeMeta(entry, body);
      const stored = conversion.toStorage(body);
      const errors = conversion.validateCreate({
        ...stored,
        metadata: { ...metaOf(stored), namespace },
      });
      if (errors.length > 0) {
        throw newInvalid(
          { group: entry.info.group, kind: entry.info.kind },
          String(metaOf(body)["name"] ?? ""),
          errors,
        );
      }
      return conversion.fromStorage(this.create(conversion.storage, namespace, stored, opts));
    }
    this.checkTypeMeta(entry, body);
    const inMeta = metaOf(body);
    this.checkNamespace(entry, namespace, inMeta);
    if (entry.info.custom?.terminating) {
      throw newForbidden(
        groupResource(entry),
        String(inMeta["name"] ?? ""),
        "create not allowed while custom resource definition is terminating",
      );
    }
    const rv = inMeta["resourceVersion"];
    if (typeof rv === "string" && rv !== "") {
      throw unknownError(500, "resourceVersion should not be set on objects to be created");
    }
    const generateName =
      typeof inMeta["generateName"] === "string" ? (inMeta["generateName"] as string) : "";
    const givenName = typeof inMeta["name"] === "string" ? (inMeta["name"] as string) : "";
    this.admitNamespace(entry, namespace, givenName || generateName || "Unknown");

    let obj = enforceKnownFields(
      withTypeMeta(entry, body),
      messageNameOf(entry),
      opts.fieldValidation,
      opts.warnings,
    );
    const meta: JsonObject = { ...metaOf(obj) };
    for (const k of [
      "uid",
      "resourceVersion",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "selfLink",
    ])
      delete meta[k];
    if (entry.info.namespaced) meta["namespace"] = namespace;
    else delete meta["namespace"];
    meta["uid"] = randomUUID();
    meta["creationTimestamp"] = this.now();
    if (entry.policy.tracksGeneration) meta["generation"] = 1;
    else delete meta["generation"];
    obj = { ...obj, metadata: meta };
    if (hasStatusSubresource(entry)) delete obj["status"];
    this.checkTypes(entry, obj);
    const strategy = strategyFor(entry.info);

    let attempts = givenName === "" && generateName !== "" ? GENERATE_NAME_ATTEMPTS : 1;
    for (;;) {
      const name =
        givenName !== "" ? givenName : generateName !== "" ? generateNameFrom(generateName) : "";
      let candidate: JsonObject = { ...obj, metadata: { ...metaOf(obj), name } };
      // The kind's rules see the final name (a Job's labels carry it).
      if (strategy.prepareForCreate) candidate = strategy.prepareForCreate(candidate);
      if (strategy.applyDefaults) candidate = strategy.applyDefaults(candidate);
      candidate = normalizeTypedObject(candidate, messageNameOf(entry));
      this.validate(entry, candidate, strategy.validateCreate?.(candidate) ?? []);
      const key = storageKey(entry, namespace, name);
      const existing = this.ctx.storage.get(entry.storageId, key);
      if (existing) {
        if (givenName === "" && --attempts > 0) continue;
        if (givenName === "") throw newGenerateNameConflict(groupResource(entry), name, 1);
        const err = newAlreadyExists(groupResource(entry), name);
        if (metaOf(existing)["deletionTimestamp"]) {
          err.status.message = `object is being deleted: ${err.status.message ?? ""}`;
          err.message = err.status.message;
        }
        throw err;
      }
      const managed =
        opts.managedFieldsOverride ??
        recordUpdate(undefined, candidate, [], {
          manager: opts.fieldManager,
          apiVersion: apiVersionOf(entry),
          time: this.now(),
          messageName: messageNameOf(entry),
        });
      const final: JsonObject = {
        ...candidate,
        metadata: { ...metaOf(candidate), managedFields: managed as unknown as JsonValue },
      };
      if (opts.dryRun) return { ...final, metadata: { ...metaOf(final), resourceVersion: "" } };
      return this.ctx.storage.commit(entry.storageId, key, final).object;
    }
  }

  /** The stored object, or a 404 NotFound. */
  getExisting(entry: ResourceEntry, namespace: string, name: string): JsonObject {
    const conversion = storageConversionOf(this.ctx.registry, entry);
    if (conversion) {
      return conversion.fromStorage(this.getExisting(conversion.storage, namespace, name));
    }
    const obj = this.ctx.storage.get(entry.storageId, storageKey(entry, namespace, name));
    if (!obj) throw newNotFound(groupResource(entry), name);
    return obj;
  }

  /**
   * Updates an object with the full new state (PUT, and every patch after it is applied).
   * `subresource` "status" keeps everything but status from storage; "" keeps status.
   * `requireResourceVersion` is false for patches (kube retries patches internally unless
   * they carry a resourceVersion). Returns the result and whether it was created.
   */
  update(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    body: JsonObject,
    opts: WriteOptions & {
      readonly subresource: string;
      readonly isPatch: boolean;
      readonly managedFieldsOverride?: ManagedFieldsEntry[];
      /** The subresource recorded in managedFields when it differs from `subresource` (scale writes the parent). */
      readonly managedSubresource?: string;
    },
  ): { object: JsonObject; created: boolean } {
    const conversion = storageConversionOf(this.ctx.registry, entry);
    if (conversion) {
      this.checkTypeMeta(entry, body);
      const stored = conversion.toStorage(body);
      const previous = this.ctx.storage.get(
        conversion.storage.storageId,
        storageKey(conversion.storage, namespace, name),
      );
      const scoped = { ...stored, metadata: { ...metaOf(stored), namespace } };
      const errors = previous
        ? conversion.validateUpdate(scoped, previous)
        : conversion.validateCreate(scoped);
      if (errors.length > 0) {
        throw newInvalid({ group: entry.info.group, kind: entry.info.kind }, name, errors);
      }
      const result = this.update(conversion.storage, namespace, name, stored, opts);
      return { ...result, object: conversion.fromStorage(result.object) };
    }
    this.checkTypeMeta(entry, body);
    const inMeta = metaOf(body);
    this.checkNamespace(entry, namespace, inMeta);
    const bodyName = inMeta["name"];
    if (typeof bodyName === "string" && bodyName !== "" && bodyName !== name) {
      throw newBadRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    const key = storageKey(entry, namespace, name);
    const existing = this.ctx.storage.get(entry.storageId, key);
    if (!existing) {
      if (entry.policy.allowCreateOnUpdate && opts.subresource === "" && !opts.isPatch) {
        const rv = inMeta["resourceVersion"];
        if (typeof rv === "string" && rv !== "") throw newNotFound(groupResource(entry), name);
        return {
          object: this.create(entry, namespace, { ...body, metadata: { ...inMeta, name } }, opts),
          created: true,
        };
      }
      throw newNotFound(groupResource(entry), name);
    }
    const oldMeta = metaOf(existing);
    const rv = inMeta["resourceVersion"];
    if (typeof rv !== "string" || rv === "") {
      if (!entry.policy.allowUnconditionalUpdate && !opts.isPatch) {
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
    const uid = inMeta["uid"];
    if (typeof uid === "string" && uid !== "" && uid !== oldMeta["uid"]) {
      throw newConflict(
        groupResource(entry),
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(oldMeta["uid"])}`,
      );
    }

    let next = enforceKnownFields(
      withTypeMeta(entry, body),
      messageNameOf(entry),
      opts.fieldValidation,
      opts.warnings,
    );
    if (opts.subresource === "status") {
      next = { ...existing, status: next["status"] ?? null };
      if (next["status"] === null) delete next["status"];
    } else if (hasStatusSubresource(entry)) {
      next = { ...next };
      if (existing["status"] !== undefined) next["status"] = existing["status"];
      else delete next["status"];
    }
    const nextMeta: JsonObject = { ...metaOf(next) };
    for (const k of [
      "uid",
      "creationTimestamp",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "generation",
    ]) {
      if (oldMeta[k] !== undefined) nextMeta[k] = oldMeta[k] as JsonValue;
      else delete nextMeta[k];
    }
    nextMeta["name"] = name;
    if (entry.info.namespaced) nextMeta["namespace"] = namespace;
    else delete nextMeta["namespace"];
    nextMeta["resourceVersion"] = oldMeta["resourceVersion"] as JsonValue;
    delete nextMeta["selfLink"];
    const extraErrors: FieldError[] = [];
    if (oldMeta["deletionTimestamp"]) {
      const before = new Set((oldMeta["finalizers"] as string[] | undefined) ?? []);
      const added = ((nextMeta["finalizers"] as string[] | undefined) ?? []).filter(
        (f) => !before.has(f),
      );
      if (added.length > 0) {
        extraErrors.push(
          fieldForbidden(
            "metadata.finalizers",
            `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
          ),
        );
      }
    }
    const givenManaged =
      opts.managedFieldsOverride ??
      (Array.isArray(inMeta["managedFields"])
        ? (inMeta["managedFields"] as unknown as ManagedFieldsEntry[])
        : undefined);
    const baseManaged =
      givenManaged ??
      (oldMeta["managedFields"] as unknown as ManagedFieldsEntry[] | undefined) ??
      [];
    next = { ...next, metadata: nextMeta };
    this.checkTypes(entry, next);
    const strategy = strategyFor(entry.info);
    // Status writes (and the binding subresource) skip the spec rules, as kube's status
    // strategies do.
    const specWrite = opts.subresource === "";
    if (specWrite && strategy.prepareForUpdate) next = strategy.prepareForUpdate(next, existing);
    if (strategy.applyDefaults) next = strategy.applyDefaults(next);
    next = normalizeTypedObject(next, messageNameOf(entry));
    // Generation follows the defaulted spec: a write that only drops defaulted fields is no change.
    if (entry.policy.tracksGeneration && !deepEqual(specLike(existing), specLike(next))) {
      next = {
        ...next,
        metadata: { ...metaOf(next), generation: Number(oldMeta["generation"] ?? 0) + 1 },
      };
    }
    if (specWrite) extraErrors.push(...(strategy.validateUpdate?.(next, existing) ?? []));
    this.validate(entry, next, extraErrors);
    const managed = opts.managedFieldsOverride
      ? opts.managedFieldsOverride
      : recordUpdate(existing, next, baseManaged, {
          manager: opts.fieldManager,
          apiVersion: apiVersionOf(entry),
          ...((opts.managedSubresource ?? opts.subresource) !== ""
            ? { subresource: opts.managedSubresource ?? opts.subresource }
            : {}),
          time: this.now(),
          messageName: messageNameOf(entry),
        });
    const finalMeta: JsonObject = { ...metaOf(next) };
    if (managed.length > 0) finalMeta["managedFields"] = managed as unknown as JsonValue;
    else delete finalMeta["managedFields"];
    next = { ...next, metadata: finalMeta };
    if (deepEqual(next, existing)) return { object: existing, created: false };
    const finalizers = (finalMeta["finalizers"] as string[] | undefined) ?? [];
    // An update that leaves an object being deleted without finalizers completes its
    // deletion, unless a graceful deletion is pending (`staging/src/k8s.io/apiserver/pkg/
    // registry/generic/registry/store.go` shouldDeleteDuringUpdate: only when the grace
    // period is 0), e.g. the kubelet writing the status of a pod it is stopping.
    const pendingGrace = oldMeta["deletionGracePeriodSeconds"];
    const gracefulPending = typeof pendingGrace === "number" && pendingGrace > 0;
    if (finalMeta["deletionTimestamp"] && finalizers.length === 0 && !gracefulPending) {
      if (opts.dryRun) return { object: next, created: false };
      const event = this.ctx.storage.commit(entry.storageId, key, null);
      return {
        object: {
          ...next,
          metadata: {
            ...finalMeta,
            resourceVersion: metaOf(event.object)["resourceVersion"] as JsonValue,
          },
        },
        created: false,
      };
    }
    if (opts.dryRun) return { object: next, created: false };
    return { object: this.ctx.storage.commit(entry.storageId, key, next).object, created: false };
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
    const conversion = storageConversionOf(this.ctx.registry, entry);
    if (conversion) {
      const result = this.delete(conversion.storage, namespace, name, opts);
      return { ...result, object: conversion.fromStorage(result.object) };
    }
    const key = storageKey(entry, namespace, name);
    const existing = this.getExisting(entry, namespace, name);
    const meta = metaOf(existing);
    const pre = opts.preconditions;
    // BeforeDelete names the kind (not the resource) in precondition conflicts.
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
    const decision = strategyFor(entry.info).beforeDelete?.(existing, {
      name,
      now: this.now(),
      nowMs: this.ctx.clock.now(),
      ...(opts.gracePeriodSeconds !== undefined
        ? { gracePeriodSeconds: opts.gracePeriodSeconds }
        : {}),
      behaviour: this.ctx.behaviour,
      storage: this.ctx.storage,
    });
    const terminating = decision?.terminate;
    if (terminating) {
      if (terminating === existing || opts.dryRun) return { object: terminating, removed: false };
      return {
        object: this.ctx.storage.commit(entry.storageId, key, terminating).object,
        removed: false,
      };
    }
    const finalizers = new Set([
      ...((meta["finalizers"] as string[] | undefined) ?? []),
      ...(decision?.addFinalizers ?? []),
    ]);
    const status = decision?.status ?? existing["status"];
    let policy = opts.propagationPolicy;
    if (!policy && finalizers.has("orphan")) policy = "Orphan";
    if (!policy && finalizers.has("foregroundDeletion")) policy = "Foreground";
    if (policy === "Orphan") finalizers.add("orphan");
    if (policy === "Foreground") finalizers.add("foregroundDeletion");
    if (finalizers.size > 0) {
      if (meta["deletionTimestamp"]) {
        // A delete with no grace left ends a pending graceful deletion (`staging/src/k8s.io/
        // apiserver/pkg/registry/rest/delete.go` BeforeDelete lowers the period to 0), so
        // removing the last finalizer then completes it.
        const pending = meta["deletionGracePeriodSeconds"];
        if (typeof pending !== "number" || pending <= 0)
          return { object: existing, removed: false };
        const lowered: JsonObject = {
          ...existing,
          metadata: { ...meta, deletionTimestamp: this.now(), deletionGracePeriodSeconds: 0 },
        };
        if (opts.dryRun) return { object: lowered, removed: false };
        return {
          object: this.ctx.storage.commit(entry.storageId, key, lowered).object,
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
          deletionTimestamp: this.now(),
          deletionGracePeriodSeconds: 0,
          finalizers: [...finalizers],
        },
      };
      if (opts.dryRun) return { object: marked, removed: false };
      return {
        object: this.ctx.storage.commit(entry.storageId, key, marked).object,
        removed: false,
      };
    }
    if (opts.dryRun) return { object: existing, removed: true };
    return { object: this.ctx.storage.commit(entry.storageId, key, null).object, removed: true };
  }

  /** Removes one finalizer from an object (controllers), completing its deletion when none remain. */
  removeFinalizer(
    entry: ResourceEntry,
    namespace: string,
    name: string,
    finalizer: string,
    manager: string,
  ): void {
    const obj = this.ctx.storage.get(entry.storageId, storageKey(entry, namespace, name));
    if (!obj) return;
    const meta = metaOf(obj);
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

function generateNameFrom(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = "";
  for (const b of bytes) suffix += GENERATE_NAME_CHARS[b % GENERATE_NAME_CHARS.length];
  return prefix.slice(0, 58) + suffix;
}
