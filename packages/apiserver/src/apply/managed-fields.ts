import { deepClone, deepEqual, isJsonObject } from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { mergeApplied, removeFields } from "./apply-merge.js";
import { diffFields, fieldSetOfValue } from "./field-diff.js";
import { FieldSet, fieldElement, formatPath } from "./field-set.js";
import type { FieldPath } from "./field-set.js";
import { rootShape, type StructShape } from "./field-shape.js";

/**
 * `metadata.managedFields` bookkeeping and server-side apply, as kube-apiserver does them
 * (k8s.io/apiserver fieldmanager over sigs.k8s.io/structured-merge-diff):
 *
 * - Every write records who owns which fields. An Update (create, PUT, non-apply PATCH)
 *   makes its manager own the fields it changed, taking them from everyone else; an Apply
 *   makes its manager own exactly the fields of its configuration.
 * - Entries are identified by manager, operation, subresource and, for Update only, the
 *   apiVersion (an applier keeps one entry across versions; an updater gets one per version).
 * - An apply that changes a field another manager owns fails with {@link ApplyConflictError}
 *   unless forced; a field two managers set to the same value is owned by both.
 * - apiVersion, kind and metadata name/namespace/uid/resourceVersion/generation/
 *   creationTimestamp/selfLink/managedFields are never owned.
 *
 * Simplifications: no version conversion (sets recorded at another apiVersion are compared
 * as they are); no reset of fields a subresource may not change (the caller discards e.g.
 * status on the main resource, but an applier's entry still lists what it sent); no cap
 * on the number of Update entries; the "before-first-apply" entry for objects without
 * managedFields is not synthesized; `null` values in an applied configuration are ignored.
 */

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

/** One field an apply would take from another manager. */
export interface ApplyConflict {
  /** The other manager's name. */
  readonly manager: string;
  /** The field, as the API server prints paths: `.spec.replicas`, `.spec.containers[name="x"].image`. */
  readonly field: string;
  /**
   * The Status cause message: `conflict with "kubectl"` for an applier, plus
   * ` with subresource "status"` for a subresource entry and ` using apps/v1` for an updater.
   */
  readonly message: string;
}

const CONFLICT_PREFIX = "conflict with ";

/**
 * Thrown by {@link serverSideApply} when the configuration changes fields other managers
 * own and `force` is false. The message is kube-apiserver's:
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`, or
 * for several, `Apply failed with 2 conflicts: conflicts with "a":\n- .x\nconflicts with "b":\n- .y`
 * (managers in order of their entry identity, which sorts by manager name first).
 */
export class ApplyConflictError extends Error {
  /** Every conflicting field, grouped by manager, each group in path order. */
  readonly conflicts: readonly ApplyConflict[];

  constructor(conflicts: readonly ApplyConflict[]) {
    super(conflictMessage(conflicts));
    this.name = "ApplyConflictError";
    this.conflicts = conflicts;
  }
}

function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only) {
    return `Apply failed with 1 conflict: ${only.message}: ${only.field}`;
  }
  const groups = new Map<string, string[]>();
  for (const c of conflicts) {
    const who = c.message.startsWith(CONFLICT_PREFIX)
      ? c.message.slice(CONFLICT_PREFIX.length)
      : c.message;
    const fields = groups.get(who) ?? [];
    fields.push(c.field);
    groups.set(who, fields);
  }
  const lines: string[] = [];
  for (const [who, fields] of groups) {
    lines.push(`conflicts with ${who}:`, ...fields.map((f) => `- ${f}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

/** Paths no manager ever owns. */
const NEVER_OWNED: FieldSet = (() => {
  const set = new FieldSet();
  set.insert([fieldElement("apiVersion")]);
  set.insert([fieldElement("kind")]);
  set.insert([fieldElement("metadata")]);
  for (const f of [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "selfLink",
    "clusterName",
    "managedFields",
  ]) {
    set.insert([fieldElement("metadata"), fieldElement(f)]);
  }
  return set;
})();

/** `obj` without `metadata.managedFields` (a shallow copy of the two levels it changes; inputs are never mutated). */
function withoutManagedFields(obj: JsonObject): JsonObject {
  const meta = obj["metadata"];
  if (!isJsonObject(meta) || !("managedFields" in meta)) return obj;
  const { managedFields: _managedFields, ...rest } = meta;
  return { ...obj, metadata: rest };
}

/** A copy of `value` without object properties whose value is `null`. */
function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}

/**
 * The FieldsV1 set of an object: what a manager owns when it applies exactly this object
 * (`{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}}}` for a small ConfigMap).
 * List items get `"."` besides their fields (`"k:{\"name\":\"x\"}":{".":{},"f:name":{}}`);
 * set items are `v:<json>`; atomic values are leaves. The never-owned fields (apiVersion,
 * kind, metadata name/namespace/uid/...) are left out, as are `null` values.
 */
export function fieldSetOf(obj: JsonObject, messageName: string | undefined): JsonObject {
  return appliedFieldSet(obj, rootShape(messageName)).toFieldsV1();
}

function appliedFieldSet(obj: JsonObject, shape: StructShape): FieldSet {
  const config = withoutNulls(withoutManagedFields(obj));
  return fieldSetOfValue(config, shape).difference(NEVER_OWNED);
}

/** A managedFields entry while it is being updated. */
interface WorkingEntry {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly subresource: string | undefined;
  readonly identity: string;
  apiVersion: string;
  time: string;
  set: FieldSet;
  /** The input entry and its decoded set; `undefined` for an entry this write creates. */
  readonly original: { readonly entry: ManagedFieldsEntry; readonly set: FieldSet } | undefined;
}

/**
 * The identity of an entry, as kube-apiserver builds it: the JSON of manager, operation,
 * apiVersion (Update only) and subresource. Sorting identities sorts by manager name first.
 */
function identityOf(
  manager: string,
  operation: string,
  apiVersion: string,
  subresource: string | undefined,
): string {
  return JSON.stringify({
    manager,
    operation,
    ...(operation === "Apply" ? {} : { apiVersion }),
    ...(subresource ? { subresource } : {}),
  });
}

interface DecodedEntries {
  readonly entries: WorkingEntry[];
  /** Whether entries with the same identity were merged (so the list changes). */
  readonly mergedDuplicates: boolean;
}

function decodeEntries(managedFields: readonly ManagedFieldsEntry[]): DecodedEntries {
  const entries: WorkingEntry[] = [];
  let mergedDuplicates = false;
  for (const entry of managedFields) {
    const subresource = entry.subresource ? entry.subresource : undefined;
    const identity = identityOf(entry.manager, entry.operation, entry.apiVersion, subresource);
    const set = FieldSet.fromFieldsV1(entry.fieldsV1);
    const same = entries.find((e) => e.identity === identity);
    if (same) {
      same.set = same.set.union(set);
      mergedDuplicates = true;
      continue;
    }
    entries.push({
      manager: entry.manager,
      operation: entry.operation,
      subresource,
      identity,
      apiVersion: entry.apiVersion,
      time: entry.time,
      set,
      original: { entry, set },
    });
  }
  return { entries, mergedDuplicates };
}

function isUnchanged(e: WorkingEntry): boolean {
  const o = e.original;
  return (
    o !== undefined &&
    o.entry.apiVersion === e.apiVersion &&
    o.entry.time === e.time &&
    o.set.equals(e.set)
  );
}

function seconds(time: string): number {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** kube-apiserver's order: operation, then time (seconds), manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    compareText(p.operation, q.operation) ||
    seconds(p.time) - seconds(q.time) ||
    compareText(p.manager, q.manager) ||
    compareText(p.apiVersion, q.apiVersion) ||
    compareText(p.subresource ?? "", q.subresource ?? "")
  );
}

/**
 * The new managedFields list. When no entry changed (same sets, apiVersions, times; none
 * added or dropped) it is a copy of the input, order included; otherwise entries with empty
 * sets are dropped, untouched entries are copied verbatim and the list is sorted.
 */
function encodeEntries(
  input: readonly ManagedFieldsEntry[],
  decoded: DecodedEntries,
): ManagedFieldsEntry[] {
  const kept = decoded.entries.filter((e) => !e.set.isEmpty());
  const changed =
    decoded.mergedDuplicates ||
    kept.length !== decoded.entries.length ||
    decoded.entries.some((e) => !isUnchanged(e));
  if (!changed)
    return input.map((e) => deepClone(e as unknown as JsonObject) as unknown as ManagedFieldsEntry);
  return kept
    .map((e): ManagedFieldsEntry => {
      if (e.original && isUnchanged(e)) {
        return deepClone(
          e.original.entry as unknown as JsonObject,
        ) as unknown as ManagedFieldsEntry;
      }
      return {
        manager: e.manager,
        operation: e.operation,
        apiVersion: e.apiVersion,
        time: e.time,
        fieldsType: "FieldsV1",
        fieldsV1: e.set.toFieldsV1(),
        ...(e.subresource ? { subresource: e.subresource } : {}),
      };
    })
    .sort(compareEntries);
}

function managedFieldsOf(obj: JsonObject | undefined): readonly ManagedFieldsEntry[] {
  const meta = obj?.["metadata"];
  const list = isJsonObject(meta) ? meta["managedFields"] : undefined;
  return Array.isArray(list) ? (list as unknown as ManagedFieldsEntry[]) : [];
}

/** Options of {@link recordUpdate}. */
export interface RecordUpdateOptions {
  /** The field manager (the `fieldManager` parameter, or the User-Agent prefix). */
  readonly manager: string;
  /** The apiVersion the request used (`apps/v1`, `v1`). */
  readonly apiVersion: string;
  /** The subresource written (`status`, ...); absent for the main resource. */
  readonly subresource?: string;
  /** The time to stamp on the writer's entry (RFC 3339). */
  readonly time: string;
  /** The fully qualified message of the kind (field-table.ts), `undefined` for custom resources. */
  readonly messageName: string | undefined;
  /** The object's shape when it comes from a schema (custom resources); else from `messageName`. */
  readonly shape?: StructShape;
}

/**
 * Records an Update-operation write: the fields changed between `before` (undefined on
 * create) and `after` (added or modified leaves, and containers and list items that
 * appeared) become owned by `manager` and are removed from every other entry; fields the
 * write removed are removed from every entry. The writer's entry (identified by manager,
 * Update, apiVersion and subresource) is merged with its previous one and stamped with
 * `time`; a write that changed nothing leaves it alone. Entries whose set becomes empty are
 * dropped.
 *
 * Guarantees: when the write changes nothing (`after` equals `before` apart from the
 * never-owned metadata), the result deep-equals `managedFields`, times included; untouched
 * entries are copied verbatim. `managedFields` on the objects themselves are ignored.
 */
export function recordUpdate(
  before: JsonObject | undefined,
  after: JsonObject,
  managedFields: readonly ManagedFieldsEntry[],
  options: RecordUpdateOptions,
): ManagedFieldsEntry[] {
  const shape = options.shape ?? rootShape(options.messageName);
  const diff = diffFields(
    before && withoutManagedFields(before),
    withoutManagedFields(after),
    shape,
  );
  const changed = diff.added.union(diff.modified).difference(NEVER_OWNED);
  const removed = diff.removed.difference(NEVER_OWNED);
  const decoded = decodeEntries(managedFields);
  for (const e of decoded.entries) {
    const rest = e.set.difference(changed).difference(removed);
    if (!rest.equals(e.set)) e.set = rest;
  }
  if (!changed.isEmpty()) {
    const subresource = options.subresource ? options.subresource : undefined;
    const identity = identityOf(options.manager, "Update", options.apiVersion, subresource);
    let own = decoded.entries.find((e) => e.identity === identity);
    if (!own) {
      own = {
        manager: options.manager,
        operation: "Update",
        subresource,
        identity,
        apiVersion: options.apiVersion,
        time: options.time,
        set: new FieldSet(),
        original: undefined,
      };
      decoded.entries.push(own);
    }
    own.set = own.set.union(changed);
    own.time = options.time;
  }
  return encodeEntries(managedFields, decoded);
}

/** Options of {@link serverSideApply}. */
export interface ServerSideApplyOptions {
  /** The field manager (required for apply; the caller validates it). */
  readonly manager: string;
  /** Take ownership of conflicting fields instead of failing. */
  readonly force: boolean;
  /** The apiVersion the request used; recorded on the applier's entry. */
  readonly apiVersion: string;
  /** The subresource applied to (`status`, ...); absent for the main resource. */
  readonly subresource?: string;
  /** The time to stamp on the applier's entry when something changes (RFC 3339). */
  readonly time: string;
  /** The fully qualified message of the kind (field-table.ts), `undefined` for custom resources. */
  readonly messageName: string | undefined;
  /** The object's shape when it comes from a schema (custom resources); else from `messageName`. */
  readonly shape?: StructShape;
}

/**
 * Server-side apply of `applied` (the request's partial object) onto `live` (undefined: the
 * object is created). Steps, as kube-apiserver:
 *
 * 1. Merge: the configuration is merged into the live object (maps and structs recursively,
 *    associative lists by key, sets by value; leaves and atomic lists replaced).
 * 2. Prune: fields the manager owned through its previous Apply entry (same manager and
 *    subresource) but left out of this configuration are removed from the object, unless
 *    another manager owns them or something below them; containers left empty go too.
 * 3. Conflicts: fields the result adds or changes that other entries own (Update entries of
 *    the same manager name included) throw {@link ApplyConflictError}, unless `force`, which
 *    moves them to the applier. Fields set to the value they already have are not changes,
 *    so two appliers of the same value share ownership.
 * 4. The applier's Apply entry becomes exactly the configuration's field set
 *    ({@link fieldSetOf}); fields the apply removed leave every entry; empty entries are
 *    dropped. The entry's time is `options.time` when the object or the entry changed.
 *
 * Returns a new object (inputs are not modified) with `metadata.managedFields` set; the
 * caller fills in server-managed metadata. When nothing changes the result deep-equals
 * `live`, managedFields included. `null` values in `applied` and any
 * `metadata.managedFields` in it are ignored; apiVersion/kind/name are not validated here.
 */
export function serverSideApply(
  live: JsonObject | undefined,
  applied: JsonObject,
  options: ServerSideApplyOptions,
): JsonObject {
  const shape = options.shape ?? rootShape(options.messageName);
  const config = withoutNulls(withoutManagedFields(applied));
  const liveObject = live && withoutManagedFields(live);
  const inputEntries = managedFieldsOf(live);
  const decoded = decodeEntries(inputEntries);
  const subresource = options.subresource ? options.subresource : undefined;
  const identity = identityOf(options.manager, "Apply", options.apiVersion, subresource);
  const previous = decoded.entries.find((e) => e.identity === identity);
  const others = decoded.entries.filter((e) => e !== previous);
  const appliedSet = appliedFieldSet(applied, shape);

  let merged = mergeApplied(liveObject, config, shape) as JsonObject;
  if (previous) {
    const keeps = (set: FieldSet, path: FieldPath): boolean =>
      set.hasAtOrBelow(path) || set.covers(path);
    const stale = new FieldSet();
    for (const path of previous.set.paths()) {
      if (!keeps(appliedSet, path) && !others.some((e) => keeps(e.set, path))) stale.insert(path);
    }
    if (!stale.isEmpty()) merged = removeFields(merged, stale, shape);
  }

  const diff = diffFields(liveObject, merged, shape);
  const changed = diff.added.union(diff.modified).difference(NEVER_OWNED);
  const removed = diff.removed.difference(NEVER_OWNED);
  const conflicts: { entry: WorkingEntry; fields: FieldSet }[] = [];
  for (const e of others) {
    const taken = e.set.intersection(changed);
    if (!taken.isEmpty()) conflicts.push({ entry: e, fields: taken });
  }
  if (conflicts.length > 0 && !options.force) throw conflictError(conflicts);
  for (const e of others) {
    const rest = e.set.difference(changed).difference(removed);
    if (!rest.equals(e.set)) e.set = rest;
  }

  const objectChanged = liveObject === undefined || !deepEqual(liveObject, merged);
  if (previous) {
    const entryChanged =
      !previous.set.equals(appliedSet) || previous.apiVersion !== options.apiVersion;
    if (entryChanged) previous.set = appliedSet;
    previous.apiVersion = options.apiVersion;
    if (objectChanged || entryChanged) previous.time = options.time;
  } else if (!appliedSet.isEmpty()) {
    decoded.entries.push({
      manager: options.manager,
      operation: "Apply",
      subresource,
      identity,
      apiVersion: options.apiVersion,
      time: options.time,
      set: appliedSet,
      original: undefined,
    });
  }

  const managedFields = encodeEntries(inputEntries, decoded);
  const meta: JsonObject = isJsonObject(merged["metadata"]) ? merged["metadata"] : {};
  const liveMeta = live?.["metadata"];
  const keepEmptyList =
    inputEntries.length === 0 && isJsonObject(liveMeta) && Array.isArray(liveMeta["managedFields"]);
  if (managedFields.length > 0 || keepEmptyList)
    meta["managedFields"] = managedFields as unknown as JsonValue;
  return { ...merged, metadata: meta };
}

function conflictError(conflicts: { entry: WorkingEntry; fields: FieldSet }[]): ApplyConflictError {
  const sorted = [...conflicts].sort((a, b) => compareText(a.entry.identity, b.entry.identity));
  const out: ApplyConflict[] = [];
  for (const { entry, fields } of sorted) {
    const message = `${CONFLICT_PREFIX}${printManager(entry)}`;
    for (const path of fields.paths()) {
      out.push({ manager: entry.manager, field: formatPath(path), message });
    }
  }
  return new ApplyConflictError(out);
}

/** A manager as kube-apiserver prints it in conflicts: quoted name, subresource, apiVersion for updaters. */
function printManager(e: WorkingEntry): string {
  let out = JSON.stringify(e.manager);
  if (e.subresource) out += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === "Update") out += ` using ${e.apiVersion}`;
  return out;
}
