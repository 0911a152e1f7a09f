/**
 * What the read and write paths derive from a served resource's entry: the storage key of an
 * object, the GroupResource of Status messages, the field-table message of the kind, the
 * object with its type meta, and whether status is a subresource.
 */
import { formatApiVersion, type JsonObject } from "kubekit";
import { messageNameForKind } from "kubekit/apimachinery";
import type { ResourceEntry } from "./registry.js";

/** The storage key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function storageKey(entry: ResourceEntry, namespace: string, name: string): string {
  return entry.info.namespaced ? `${namespace}/${name}` : name;
}

/** `group`/`plural` of an entry as a GroupResource for Status messages. */
export function groupResource(entry: ResourceEntry): { group: string; resource: string } {
  return { group: entry.info.group, resource: entry.info.plural };
}

/** The field-table message of an entry's kind; undefined for custom resources. */
export function messageNameOf(entry: ResourceEntry): string | undefined {
  return entry.info.custom
    ? undefined
    : messageNameForKind(entry.info.group, entry.info.version, entry.info.kind);
}

/** Whether the entry serves a `status` subresource (status then changes only through it). */
export function hasStatusSubresource(entry: ResourceEntry): boolean {
  return entry.info.subresources.some((s) => s.name === "status");
}

/** An object with apiVersion and kind first, the order kube-apiserver serializes. */
export function withTypeMeta(entry: ResourceEntry, obj: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: formatApiVersion(entry.info), kind: entry.info.kind, ...rest };
}
