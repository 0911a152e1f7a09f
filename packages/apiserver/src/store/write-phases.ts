/**
 * The named phases of the generic store's write path around a kind's strategy, as
 * kube-apiserver's `rest.BeforeCreate` / `rest.BeforeUpdate`
 * (`staging/src/k8s.io/apiserver/pkg/registry/rest/create.go`, `update.go`) and the checks
 * of its create/update handlers before them: the body's type meta, namespace and JSON types;
 * the server-owned metadata a create sets and an update carries over; then the strategy
 * (prepare, defaults), normalization, generation and validation. No phase reads or writes
 * storage: the store (`resource-operations.ts`) does, around them.
 */
import { randomUUID } from "node:crypto";
import {
  formatApiVersion,
  newBadRequest,
  newInvalid,
  type FieldError,
  type JsonObject,
  type JsonValue,
} from "kubekit";
import { deepEqual, fieldForbidden, metadataOf } from "kubekit/apimachinery";
import { strategyFor } from "../kinds/strategies.js";
import type { ResourceEntry } from "../registry/registry.js";
import { hasStatusSubresource, messageNameOf } from "../registry/served-entry.js";
import { objectBoundsProblem } from "../schema/object-bounds.js";
import { typedDecodingProblem } from "../schema/typed-decoding.js";
import { normalizeTypedObject } from "../schema/typed-normalization.js";
import { validateObjectMeta } from "./object-validation.js";

/** Checks the body's apiVersion and kind against the endpoint (400 on mismatch). */
export function checkTypeMeta(entry: ResourceEntry, body: JsonObject): void {
  const expected = formatApiVersion(entry.info);
  const apiVersion = body["apiVersion"];
  const kind = body["kind"];
  if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== expected) {
    throw newBadRequest(
      `the API version in the data (${String(apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (kind !== undefined && kind !== "" && kind !== entry.info.kind) {
    throw newBadRequest(
      `the kind in the data (${String(kind)}) does not match the expected kind (${entry.info.kind})`,
    );
  }
}

/** A body's namespace must be empty or the request's (400 otherwise); namespaced resources only. */
export function checkNamespace(entry: ResourceEntry, namespace: string, body: JsonObject): void {
  if (!entry.info.namespaced) return;
  const bodyNs = metadataOf(body)?.["namespace"];
  if (typeof bodyNs === "string" && bodyNs !== "" && bodyNs !== namespace) {
    throw newBadRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
}

/**
 * Typed decoding: a value of the wrong JSON type for a built-in field is a 400 BadRequest
 * in kube-apiserver's words (`<Kind> in version "<v>" cannot be handled as a <Kind>: …`).
 */
export function checkTypes(entry: ResourceEntry, obj: JsonObject): void {
  const problem = typedDecodingProblem(obj, messageNameOf(entry));
  if (problem) {
    const kind = entry.info.kind;
    throw newBadRequest(
      `${kind} in version "${formatApiVersion(entry.info)}" cannot be handled as a ${kind}: ${problem}`,
    );
  }
}

/**
 * The last check before storage: the object's nesting bound (400), then metadata
 * (`ValidateObjectMeta`) with the kind's `extra` field errors (422 Invalid).
 */
export function validateForStorage(
  entry: ResourceEntry,
  obj: JsonObject,
  extra: readonly FieldError[] = [],
): void {
  // Bodies are bounded when decoded, but a patch can nest a value under a deep path
  // (JSON Patch paths are strings): the result is bounded again before it can be stored.
  // managedFields are left out: they mirror the object's own shape a few levels deeper
  // (which MAX_OBJECT_DEPTH leaves room for), and an accepted object must stay updatable.
  const { managedFields: _managed, ...meta } = metadataOf(obj) ?? {};
  const bounds = objectBoundsProblem({ ...obj, metadata: meta });
  if (bounds) {
    throw newBadRequest(
      bounds.kind === "tooDeep"
        ? `the object is nested deeper than ${bounds.limit} levels`
        : `the object contains ${bounds.what}`,
    );
  }
  const errors = [
    ...validateObjectMeta(metadataOf(obj) ?? {}, entry.policy, entry.info.namespaced),
    ...extra,
  ];
  if (errors.length > 0) {
    throw newInvalid(
      { group: entry.info.group, kind: entry.info.kind },
      String(metadataOf(obj)?.["name"] ?? ""),
      errors,
    );
  }
}

/**
 * The object mutating admission sees of a write (kube admits the decoded body, defaulted by
 * its decoding, with the request's namespace): the kind's defaults applied and, for a
 * namespaced resource, `metadata.namespace` set. Server-owned metadata is still the body's.
 */
export function admissionInput(
  entry: ResourceEntry,
  namespace: string,
  obj: JsonObject,
): JsonObject {
  const strategy = strategyFor(entry.info);
  let out = obj;
  if (entry.info.namespaced) out = { ...out, metadata: { ...metadataOf(out), namespace } };
  if (strategy.applyDefaults) out = strategy.applyDefaults(out);
  return out;
}

/** Metadata a client cannot set on create, cleared before the server sets its own. */
const CLEARED_ON_CREATE = [
  "uid",
  "resourceVersion",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "selfLink",
];

/**
 * The server-owned metadata of a new object (`rest.FillObjectMetaSystemFields`): a fresh uid,
 * `now` as creationTimestamp, the request's namespace (none when cluster-scoped), generation
 * 1 when the kind tracks it; status is dropped when it is a subresource. The name is the
 * caller's (it may still be generated).
 */
export function systemMetaForCreate(
  entry: ResourceEntry,
  namespace: string,
  obj: JsonObject,
  now: string,
): JsonObject {
  const meta: JsonObject = { ...metadataOf(obj) };
  for (const k of CLEARED_ON_CREATE) delete meta[k];
  if (entry.info.namespaced) meta["namespace"] = namespace;
  else delete meta["namespace"];
  meta["uid"] = randomUUID();
  meta["creationTimestamp"] = now;
  if (entry.policy.tracksGeneration) meta["generation"] = 1;
  else delete meta["generation"];
  const out: JsonObject = { ...obj, metadata: meta };
  if (hasStatusSubresource(entry)) delete out["status"];
  return out;
}

/**
 * `rest.BeforeCreate` after the system fields: the kind's `prepareForCreate`, its defaults,
 * the typed normalization, then validation (the kind's `validateCreate` with metadata).
 * `candidate` carries its final name (a Job's labels carry it). Returns the object to store.
 */
export function beforeCreate(entry: ResourceEntry, candidate: JsonObject): JsonObject {
  const strategy = strategyFor(entry.info);
  let obj = candidate;
  if (strategy.prepareForCreate) obj = strategy.prepareForCreate(obj);
  if (strategy.applyDefaults) obj = strategy.applyDefaults(obj);
  obj = normalizeTypedObject(obj, messageNameOf(entry));
  const custom = entry.info.custom?.compiled.validate(obj, undefined) ?? [];
  validateForStorage(entry, obj, [...(strategy.validateCreate?.(obj) ?? []), ...custom]);
  return obj;
}

/** Whether `subresource` is one of the kind's further status-writing subresources (CSR approval). */
function writesStatus(entry: ResourceEntry, subresource: string): boolean {
  return strategyFor(entry.info).statusSubresources?.[subresource] !== undefined;
}

/** Metadata the server owns on update: kept from the stored object, never from the body. */
const CARRIED_ON_UPDATE = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
];

/**
 * The new state of an update before the strategy: a status write keeps everything but
 * status from storage, a spec write keeps the stored status when status is a subresource;
 * the server-owned metadata, name, namespace and resourceVersion come from storage. Returns
 * it with the field errors of finalizers added to an object being deleted (forbidden).
 */
export function systemMetaForUpdate(
  entry: ResourceEntry,
  namespace: string,
  name: string,
  body: JsonObject,
  existing: JsonObject,
  subresource: string,
): { next: JsonObject; errors: FieldError[] } {
  let next = body;
  if (subresource === "status" || writesStatus(entry, subresource)) {
    next = { ...existing, status: body["status"] ?? null };
    if (next["status"] === null) delete next["status"];
  } else if (hasStatusSubresource(entry)) {
    next = { ...body };
    if (existing["status"] !== undefined) next["status"] = existing["status"];
    else delete next["status"];
  }
  const oldMeta = metadataOf(existing) ?? {};
  const meta: JsonObject = { ...metadataOf(next) };
  for (const k of CARRIED_ON_UPDATE) {
    if (oldMeta[k] !== undefined) meta[k] = oldMeta[k] as JsonValue;
    else delete meta[k];
  }
  meta["name"] = name;
  if (entry.info.namespaced) meta["namespace"] = namespace;
  else delete meta["namespace"];
  meta["resourceVersion"] = oldMeta["resourceVersion"] as JsonValue;
  delete meta["selfLink"];
  return { next: { ...next, metadata: meta }, errors: finalizersAddedWhileDeleting(oldMeta, meta) };
}

function finalizersAddedWhileDeleting(oldMeta: JsonObject, meta: JsonObject): FieldError[] {
  if (!oldMeta["deletionTimestamp"]) return [];
  const before = new Set((oldMeta["finalizers"] as string[] | undefined) ?? []);
  const added = ((meta["finalizers"] as string[] | undefined) ?? []).filter((f) => !before.has(f));
  if (added.length === 0) return [];
  return [
    fieldForbidden(
      "metadata.finalizers",
      `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
    ),
  ];
}

/**
 * A custom resource update's errors against its version's schema: the status part on a
 * `/status` write, the whole object otherwise (kube's status and main strategies).
 */
function customResourceErrors(
  entry: ResourceEntry,
  obj: JsonObject,
  existing: JsonObject,
  subresource: string,
): FieldError[] {
  const compiled = entry.info.custom?.compiled;
  if (!compiled) return [];
  return subresource === "status"
    ? compiled.validateStatus(obj, existing)
    : compiled.validate(obj, existing);
}

/** Everything outside metadata and status: what a generation bump watches. */
function specLike(obj: JsonObject): JsonObject {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * `rest.BeforeUpdate` after the system fields: the kind's `prepareForUpdate` (a spec write)
 * or its status strategy's (a status write; the binding subresource's writes skip both),
 * its defaults, the typed normalization, the generation bump when the defaulted spec
 * changed, then validation (`validateUpdate` of the write's strategy, `extra` and metadata).
 * Returns the object to store, managedFields still the caller's.
 */
export function beforeUpdate(
  entry: ResourceEntry,
  next: JsonObject,
  existing: JsonObject,
  subresource: string,
  extra: readonly FieldError[],
): JsonObject {
  const kind = strategyFor(entry.info);
  // Status writes skip the spec rules, as kube's status strategies do.
  const rules =
    subresource === ""
      ? kind
      : subresource === "status"
        ? kind.status
        : (kind.statusSubresources?.[subresource] ?? kind.specSubresources?.[subresource]);
  let obj = next;
  if (rules?.prepareForUpdate) obj = rules.prepareForUpdate(obj, existing);
  if (kind.applyDefaults) obj = kind.applyDefaults(obj);
  obj = normalizeTypedObject(obj, messageNameOf(entry));
  // Generation follows the defaulted spec: a write that only drops defaulted fields is no change.
  if (entry.policy.tracksGeneration && !deepEqual(specLike(existing), specLike(obj))) {
    const generation = Number(metadataOf(existing)?.["generation"] ?? 0) + 1;
    obj = { ...obj, metadata: { ...metadataOf(obj), generation } };
  }
  validateForStorage(entry, obj, [
    ...extra,
    ...(rules?.validateUpdate?.(obj, existing) ?? []),
    ...customResourceErrors(entry, obj, existing, subresource),
  ]);
  return obj;
}
