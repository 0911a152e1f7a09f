import { metadataOf } from "kubekit/apimachinery";
import type { JsonObject } from "kubekit";
import { NAMESPACE_STORAGE_ID } from "../kinds/namespace.js";
import { SERVICE_ACCOUNT_STORAGE_ID } from "../kinds/service-account.js";
import type { DeferredWork } from "./controller-runner.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";

/**
 * The namespace lifecycle controller: when a namespace is Terminating it deletes every
 * object in it (ordinary deletes, so finalizers still block), and once the namespace is
 * empty it clears `spec.finalizers` and removes the namespace.
 */
export class NamespaceController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;

  constructor(ctx: ServerContext, work: DeferredWork) {
    this.#ctx = ctx;
    this.#work = work;
  }

  /** Storage listener. */
  onEvent(event: StorageEvent): void {
    if (event.resource === NAMESPACE_STORAGE_ID) {
      if (event.type !== "DELETED" && metadataOf(event.object)?.["deletionTimestamp"])
        this.#enqueue(event.key);
      else if (event.type === "ADDED") {
        this.#work.schedule(`serviceaccount:${event.key}`, () =>
          this.#createDefaultServiceAccount(event.key),
        );
      }
      return;
    }
    const ns = metadataOf(event.object)?.["namespace"];
    if (event.type === "DELETED" && typeof ns === "string" && ns !== "") {
      const nsObj = this.#ctx.storage.get(NAMESPACE_STORAGE_ID, ns);
      if (nsObj && metadataOf(nsObj)?.["deletionTimestamp"]) this.#enqueue(ns);
    }
  }

  /** The service-account controller's part: every namespace gets a `default` ServiceAccount. */
  #createDefaultServiceAccount(namespace: string): void {
    const ns = this.#ctx.storage.get(NAMESPACE_STORAGE_ID, namespace);
    if (
      !ns ||
      metadataOf(ns)?.["deletionTimestamp"] ||
      this.#ctx.storage.get(SERVICE_ACCOUNT_STORAGE_ID, `${namespace}/default`)
    )
      return;
    const entry = this.#ctx.registry.lookup("", "v1", "serviceaccounts");
    if (!entry) return;
    new ResourceOperations(this.#ctx).create(
      entry,
      namespace,
      { metadata: { name: "default" } },
      {
        dryRun: false,
        fieldManager: "kube-controller-manager",
        fieldValidation: "Ignore",
        warnings: [],
      },
    );
  }

  #enqueue(namespace: string): void {
    this.#work.schedule(`namespace:${namespace}`, () => this.#reconcile(namespace));
  }

  #reconcile(namespace: string): void {
    const nsObj = this.#ctx.storage.get(NAMESPACE_STORAGE_ID, namespace);
    if (!nsObj || !metadataOf(nsObj)?.["deletionTimestamp"]) return;
    const ops = new ResourceOperations(this.#ctx);
    let remaining = 0;
    const seen = new Set<string>();
    for (const group of this.#ctx.registry.servedGroups()) {
      for (const version of group.versions) {
        for (const info of version.resources) {
          if (!info.namespaced) continue;
          const entry = this.#ctx.registry.lookup(info.group, info.version, info.plural);
          if (!entry || seen.has(entry.storageId)) continue;
          seen.add(entry.storageId);
          const inNamespace: JsonObject[] = [
            ...this.#ctx.storage.withPrefix(entry.storageId, `${namespace}/`),
          ].map(([, obj]) => obj);
          for (const obj of inNamespace) {
            remaining++;
            if (metadataOf(obj)?.["deletionTimestamp"]) continue;
            try {
              ops.delete(entry, namespace, String(metadataOf(obj)?.["name"]), { dryRun: false });
            } catch {
              // Gone meanwhile, or blocked: the next event retries.
            }
          }
        }
      }
    }
    if (remaining === 0) {
      this.#ctx.storage.commit(NAMESPACE_STORAGE_ID, namespace, null);
    }
  }
}
