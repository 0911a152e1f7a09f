/**
 * core/v1 Namespaces (`pkg/registry/core/namespace/strategy.go` and
 * `pkg/registry/core/namespace/storage/storage.go`), SetDefaults_Namespace kept on every write;
 * the namespace controller empties a Terminating namespace.
 *
 * @kind Namespace
 * @defaults `kubernetes.io/metadata.name` label, finalizer kubernetes, status Active
 * @validation name DNS-1123 label
 * @delete → Terminating (deletionTimestamp set, kept); default, kube-system, kube-public cannot
 * be deleted (403 Forbidden)
 */
import { type JsonObject, newForbidden } from "kubekit";
import { namespacePrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

/** The storage id of core/v1 Namespaces. */
export const NAMESPACE_STORAGE_ID = "/namespaces";

const PROTECTED_NAMESPACES = new Set(["default", "kube-system", "kube-public"]);

function withNameLabel(obj: JsonObject): JsonObject {
  const meta = objectAt(obj, "metadata");
  const name = meta["name"];
  if (typeof name !== "string" || name === "") return obj;
  return {
    ...obj,
    metadata: {
      ...meta,
      labels: { ...objectAt(meta, "labels"), "kubernetes.io/metadata.name": name },
    },
  };
}

/** The Namespace strategy. */
export const namespaceStrategy: KindStrategy = {
  policy: {
    deleteReturnsObject: true,
    nameRule: "label",
    selectableFields: selectableFields("status.phase"),
  },
  prepareForCreate: (obj) => ({
    ...obj,
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  }),
  applyDefaults: withNameLabel,
  printer: namespacePrinter,
  beforeDelete: (existing, { name, now }) => {
    if (PROTECTED_NAMESPACES.has(name)) {
      throw newForbidden(
        { group: "", resource: "namespaces" },
        name,
        "this namespace may not be deleted",
      );
    }
    const meta = objectAt(existing, "metadata");
    if (meta["deletionTimestamp"]) return { terminate: existing };
    return {
      terminate: {
        ...existing,
        metadata: { ...meta, deletionTimestamp: now, deletionGracePeriodSeconds: 0 },
        status: { ...objectAt(existing, "status"), phase: "Terminating" },
      },
    };
  },
};
