import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { DeferredWork } from "./controller-runner.js";
import type { ResourceEntry } from "../registry/registry.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";

interface DependentRef {
  readonly resource: string;
  readonly key: string;
}

function ownerUids(obj: JsonObject): string[] {
  const refs = metadataOf(obj)?.["ownerReferences"];
  if (!Array.isArray(refs)) return [];
  return refs.filter(isJsonObject).map((r) => String(r["uid"] ?? ""));
}

/**
 * A minimal garbage collector: Background deletion removes dependents (objects whose
 * ownerReferences name the deleted owner and no other live owner); Foreground deletes
 * dependents first, then removes the owner's `foregroundDeletion` finalizer; Orphan strips
 * the owner from its dependents' ownerReferences, then removes the `orphan` finalizer.
 */
export class GarbageCollector {
  readonly #dependents = new Map<string, Map<string, DependentRef>>();
  readonly #liveUids = new Map<string, DependentRef>();

  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;

  constructor(ctx: ServerContext, work: DeferredWork) {
    this.#ctx = ctx;
    this.#work = work;
  }

  /** Storage listener: keeps the owner → dependents index and schedules collection. */
  onEvent(event: StorageEvent): void {
    const ref: DependentRef = { resource: event.resource, key: event.key };
    const id = `${event.resource}\n${event.key}`;
    if (event.previous)
      for (const uid of ownerUids(event.previous)) this.#dependents.get(uid)?.delete(id);
    const uid = String(metadataOf(event.object)?.["uid"] ?? "");
    if (event.type === "DELETED") {
      this.#liveUids.delete(uid);
      if (this.#dependents.get(uid)?.size)
        this.#work.schedule(`gc:${uid}`, () => this.#collect(uid));
      for (const owner of ownerUids(event.object)) {
        const where = this.#liveUids.get(owner);
        if (where)
          this.#work.schedule(`gc:${owner}`, () => this.#finalizeOwner(where.resource, where.key));
      }
      return;
    }
    this.#liveUids.set(uid, ref);
    for (const owner of ownerUids(event.object)) {
      let set = this.#dependents.get(owner);
      if (!set) this.#dependents.set(owner, (set = new Map()));
      set.set(id, ref);
    }
    const meta = metadataOf(event.object) ?? {};
    const finalizers = (meta["finalizers"] as string[] | undefined) ?? [];
    if (
      meta["deletionTimestamp"] &&
      (finalizers.includes("foregroundDeletion") || finalizers.includes("orphan"))
    ) {
      this.#work.schedule(`gc:${uid}`, () => this.#finalizeOwner(event.resource, event.key));
    }
  }

  #entryOf(resource: string): ResourceEntry | undefined {
    return this.#ctx.registry.entriesFor(resource)[0];
  }

  #forEachDependent(uid: string, fn: (entry: ResourceEntry, obj: JsonObject) => void): number {
    let count = 0;
    for (const ref of [...(this.#dependents.get(uid)?.values() ?? [])]) {
      const obj = this.#ctx.storage.get(ref.resource, ref.key);
      const entry = this.#entryOf(ref.resource);
      if (!obj || !entry) continue;
      count++;
      fn(entry, obj);
    }
    return count;
  }

  #collect(uid: string): void {
    const ops = new ResourceOperations(this.#ctx);
    this.#forEachDependent(uid, (entry, obj) => {
      const meta = metadataOf(obj) ?? {};
      if (meta["deletionTimestamp"]) return;
      const otherLive = ownerUids(obj).some((o) => o !== uid && this.#liveUids.has(o));
      if (otherLive) {
        this.#removeOwnerReference(ops, entry, obj, uid);
      } else {
        ops.delete(entry, String(meta["namespace"] ?? ""), String(meta["name"]), {
          dryRun: false,
          propagationPolicy: "Background",
        });
      }
    });
  }

  /** Strips the reference to `ownerUid` from a dependent's ownerReferences. */
  #removeOwnerReference(
    ops: ResourceOperations,
    entry: ResourceEntry,
    obj: JsonObject,
    ownerUid: string,
  ): void {
    const meta = metadataOf(obj) ?? {};
    const refs = (meta["ownerReferences"] as JsonObject[]).filter((r) => r["uid"] !== ownerUid);
    const write = {
      dryRun: false,
      fieldManager: "garbage-collector",
      fieldValidation: "Ignore" as const,
    };
    ops.update(
      entry,
      String(meta["namespace"] ?? ""),
      String(meta["name"]),
      { ...obj, metadata: { ...meta, ownerReferences: refs } },
      {
        ...write,
        warnings: [],
        subresource: "",
        isPatch: true,
      },
    );
  }

  #finalizeOwner(resource: string, key: string): void {
    const owner = this.#ctx.storage.get(resource, key);
    const entry = this.#entryOf(resource);
    if (!owner || !entry) return;
    const meta = metadataOf(owner) ?? {};
    const uid = String(meta["uid"]);
    const finalizers = (meta["finalizers"] as string[] | undefined) ?? [];
    const ops = new ResourceOperations(this.#ctx);
    const ns = String(meta["namespace"] ?? "");
    const name = String(meta["name"]);
    if (finalizers.includes("orphan")) {
      this.#forEachDependent(uid, (depEntry, obj) =>
        this.#removeOwnerReference(ops, depEntry, obj, uid),
      );
      ops.removeFinalizer(entry, ns, name, "orphan", "garbage-collector");
      return;
    }
    if (finalizers.includes("foregroundDeletion")) {
      const remaining = this.#forEachDependent(uid, (depEntry, obj) => {
        const m = metadataOf(obj) ?? {};
        if (!m["deletionTimestamp"]) {
          ops.delete(depEntry, String(m["namespace"] ?? ""), String(m["name"]), {
            dryRun: false,
            propagationPolicy: "Foreground",
          });
        }
      });
      if (remaining === 0)
        ops.removeFinalizer(entry, ns, name, "foregroundDeletion", "garbage-collector");
    }
  }
}
