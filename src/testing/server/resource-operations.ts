import { randomBytes, randomUUID } from "node:crypto";
import { messageNameForKind } from "../../core/field-table.js";
import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";
import type { StatusError } from "../../core/status.js";
import {
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenerateNameConflict,
  newInvalid,
  newNotFound,
  newStatusError,
} from "../../core/status-builders.js";
import { type FieldError, fieldForbidden, fieldInvalid } from "../../core/field-errors.js";
import { storageConversionOf } from "./event-conversion.js";
import { enforceKnownFields, type FieldValidationMode } from "./field-validation.js";
import { recordUpdate, type ManagedFieldsEntry } from "./managed-fields.js";
import { objectBoundsProblem } from "./object-bounds.js";
import { validateObjectMeta } from "./object-validation.js";
import { normalizeTypedObject } from "./typed-normalization.js";
import type { ResourceEntry } from "./registry.js";
import { formatTime } from "../../core/wire-time.js";
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
const PROTECTED_NAMESPACES = new Set(["default", "kube-system", "kube-public"]);

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

function apiVersionOf(entry: ResourceEntry): string {
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

  private checkNamespace(entry: ResourceEntry, namespace: string, meta: JsonObject): void {
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
    const ns = this.ctx.storage.get("/namespaces", namespace);
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
    const crdErrors =
      entry.storageId === "apiextensions.k8s.io/customresourcedefinitions" ? validateCrd(obj) : [];
    errors.push(...crdErrors);
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
    obj = normalizeTypedObject(
      applyDefaults(entry, applyCreateDefaults(entry, obj)),
      messageNameOf(entry),
    );

    let attempts = givenName === "" && generateName !== "" ? GENERATE_NAME_ATTEMPTS : 1;
    for (;;) {
      const name =
        givenName !== "" ? givenName : generateName !== "" ? generateNameFrom(generateName) : "";
      const candidate: JsonObject = { ...obj, metadata: { ...metaOf(obj), name } };
      this.validate(entry, candidate);
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
    if (entry.policy.tracksGeneration && !deepEqual(specLike(existing), specLike(next))) {
      nextMeta["generation"] = Number(oldMeta["generation"] ?? 0) + 1;
    }
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
    next = normalizeTypedObject(
      applyDefaults(entry, { ...next, metadata: nextMeta }),
      messageNameOf(entry),
    );
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
    if (finalMeta["deletionTimestamp"] && finalizers.length === 0) {
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
    if (entry.storageId === "/namespaces") {
      if (PROTECTED_NAMESPACES.has(name)) {
        throw newForbidden(groupResource(entry), name, "this namespace may not be deleted");
      }
      if (meta["deletionTimestamp"]) return { object: existing, removed: false };
      const terminating: JsonObject = {
        ...existing,
        metadata: { ...meta, deletionTimestamp: this.now(), deletionGracePeriodSeconds: 0 },
        status: { ...((existing["status"] as JsonObject | undefined) ?? {}), phase: "Terminating" },
      };
      if (opts.dryRun) return { object: terminating, removed: false };
      return {
        object: this.ctx.storage.commit(entry.storageId, key, terminating).object,
        removed: false,
      };
    }
    const finalizers = new Set((meta["finalizers"] as string[] | undefined) ?? []);
    let status = existing["status"];
    if (entry.storageId === "apiextensions.k8s.io/customresourcedefinitions") {
      finalizers.add("customresourcecleanup.apiextensions.k8s.io");
      status = withCondition(existing, {
        type: "Terminating",
        status: "True",
        lastTransitionTime: this.now(),
        reason: "InstanceDeletionPending",
        message:
          "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
      });
    }
    let policy = opts.propagationPolicy;
    if (!policy && finalizers.has("orphan")) policy = "Orphan";
    if (!policy && finalizers.has("foregroundDeletion")) policy = "Foreground";
    if (policy === "Orphan") finalizers.add("orphan");
    if (policy === "Foreground") finalizers.add("foregroundDeletion");
    if (finalizers.size > 0) {
      if (meta["deletionTimestamp"]) return { object: existing, removed: false };
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

/** The object's `status` with one condition added or replaced by type. */
export function withCondition(obj: JsonObject, condition: JsonObject): JsonObject {
  const status = isJsonObject(obj["status"]) ? obj["status"] : {};
  const conditions = (Array.isArray(status["conditions"]) ? status["conditions"] : []).filter(
    (c) => !isJsonObject(c) || c["type"] !== condition["type"],
  );
  return { ...status, conditions: [...conditions, condition] };
}

function generateNameFrom(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = "";
  for (const b of bytes) suffix += GENERATE_NAME_CHARS[b % GENERATE_NAME_CHARS.length];
  return prefix.slice(0, 58) + suffix;
}

let nextClusterIp = 1;

/** Defaulting applied on every write (kube runs SetDefaults on each decode). */
function applyDefaults(entry: ResourceEntry, obj: JsonObject): JsonObject {
  if (entry.storageId === "/secrets" && (obj["type"] === undefined || obj["type"] === "")) {
    return { ...obj, type: "Opaque" };
  }
  return obj;
}

/** Defaulting kube-apiserver applies on create for a few kinds kubectl and controllers read. */
function applyCreateDefaults(entry: ResourceEntry, obj: JsonObject): JsonObject {
  const meta = metaOf(obj);
  switch (entry.storageId) {
    case "/namespaces": {
      return {
        ...obj,
        metadata: {
          ...meta,
          labels: {
            ...((meta["labels"] as JsonObject | undefined) ?? {}),
            "kubernetes.io/metadata.name": String(meta["name"] ?? ""),
          },
        },
        spec: { finalizers: ["kubernetes"] },
        status: { phase: "Active" },
      };
    }
    case "/pods":
      return { ...obj, status: { phase: "Pending", qosClass: "BestEffort" } };
    case "/services": {
      const spec: JsonObject = { ...((obj["spec"] as JsonObject | undefined) ?? {}) };
      spec["type"] ??= "ClusterIP";
      spec["sessionAffinity"] ??= "None";
      if (spec["type"] !== "ExternalName" && spec["clusterIP"] === undefined) {
        const n = nextClusterIp++;
        spec["clusterIP"] = `10.96.${(n >> 8) & 255}.${n & 255}`;
        spec["clusterIPs"] = [spec["clusterIP"]];
      }
      if (Array.isArray(spec["ports"])) {
        spec["ports"] = spec["ports"].map((p) =>
          isJsonObject(p)
            ? { protocol: "TCP", ...p, targetPort: p["targetPort"] ?? p["port"] ?? null }
            : p,
        );
      }
      return { ...obj, spec, status: { loadBalancer: {} } };
    }
    case "apps/deployments":
    case "apps/replicasets":
    case "apps/statefulsets": {
      const spec: JsonObject = { ...((obj["spec"] as JsonObject | undefined) ?? {}) };
      spec["replicas"] ??= 1;
      return { ...obj, spec };
    }
    case "apiextensions.k8s.io/customresourcedefinitions": {
      const spec = (obj["spec"] as JsonObject | undefined) ?? {};
      const versions = (spec["versions"] as JsonObject[] | undefined) ?? [];
      const storage = versions
        .filter((v) => v["storage"] === true)
        .map((v) => v["name"] as JsonValue);
      return {
        ...obj,
        status: {
          conditions: [],
          acceptedNames: { plural: "", kind: "" },
          storedVersions: storage,
        },
      };
    }
    default:
      return obj;
  }
}

/**
 * The CRD rules of
 * `staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`:
 * name = plural.group, exactly one storage version, a valid scope.
 */
function validateCrd(crd: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd["spec"];
  if (!isJsonObject(spec)) return [fieldInvalid("spec", null, "must be an object")];
  const names = isJsonObject(spec["names"]) ? spec["names"] : {};
  const group = spec["group"];
  const plural = names["plural"];
  if (typeof group !== "string" || group === "")
    errors.push(fieldInvalid("spec.group", group ?? "", "must be a non-empty string"));
  if (typeof plural !== "string" || plural === "")
    errors.push(fieldInvalid("spec.names.plural", plural ?? "", "must be a non-empty string"));
  if (typeof names["kind"] !== "string" || names["kind"] === "")
    errors.push(fieldInvalid("spec.names.kind", names["kind"] ?? "", "must be a non-empty string"));
  const name = metaOf(crd)["name"];
  if (typeof group === "string" && typeof plural === "string" && name !== `${plural}.${group}`) {
    errors.push(
      fieldInvalid("metadata.name", name ?? "", `must be spec.names.plural+"."+spec.group`),
    );
  }
  if (spec["scope"] !== "Namespaced" && spec["scope"] !== "Cluster") {
    errors.push(
      fieldInvalid("spec.scope", spec["scope"] ?? "", 'must be "Namespaced" or "Cluster"'),
    );
  }
  const versions = Array.isArray(spec["versions"]) ? spec["versions"] : [];
  if (versions.length === 0)
    errors.push(
      fieldInvalid("spec.versions", [], "must have exactly one version marked as storage version"),
    );
  else if (versions.filter((v) => isJsonObject(v) && v["storage"] === true).length !== 1) {
    errors.push(
      fieldInvalid(
        "spec.versions",
        versions as JsonValue,
        "must have exactly one version marked as storage version",
      ),
    );
  }
  return errors;
}
