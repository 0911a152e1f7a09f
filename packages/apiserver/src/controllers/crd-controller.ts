import type { JsonObject, JsonValue } from "kubekit";
import type { DeferredWork } from "./controller-runner.js";
import { formatTime, metadataOf } from "kubekit/apimachinery";
import type { ServerContext } from "../server/server-context.js";
import { ResourceOperations } from "../store/resource-operations.js";
import { CRD_STORAGE_ID, withCondition } from "../kinds/custom-resource-definition.js";
import type { StorageEvent } from "../storage/storage.js";

const CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

function condition(
  type: string,
  status: string,
  reason: string,
  message: string,
  time: string,
): JsonObject {
  return { type, status, lastTransitionTime: time, reason, message };
}

/**
 * The apiextensions controllers: a created CRD is served at once (discovery and routing
 * change in the same step) and then gets NamesAccepted and Established; a deleted CRD
 * becomes Terminating, its custom resources are deleted (finalizers still block), then the
 * cleanup finalizer is removed and the resource disappears from discovery.
 */
export class CrdController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;

  constructor(ctx: ServerContext, work: DeferredWork) {
    this.#ctx = ctx;
    this.#work = work;
  }

  /** Storage listener. */
  onEvent(event: StorageEvent): void {
    if (event.resource === CRD_STORAGE_ID) {
      const name = event.key;
      if (event.type === "DELETED") {
        const storageId = this.#storageIdOf(event.object);
        this.#ctx.registry.removeCrd(name);
        this.#ctx.storage.dropResource(storageId);
        return;
      }
      const terminating = Boolean(metadataOf(event.object)?.["deletionTimestamp"]);
      this.#ctx.registry.installCrd(event.object, terminating);
      if (terminating) this.#work.schedule(`crd:${name}`, () => this.#cleanup(name));
      else if (!this.#isEstablished(event.object))
        this.#work.schedule(`crd:${name}`, () => this.#establish(name));
      return;
    }
    if (event.type === "DELETED") {
      for (const crd of this.#ctx.storage.current(CRD_STORAGE_ID)) {
        const obj = crd[1];
        if (this.#storageIdOf(obj) === event.resource && metadataOf(obj)?.["deletionTimestamp"]) {
          this.#work.schedule(`crd:${crd[0]}`, () => this.#cleanup(crd[0]));
        }
      }
    }
  }

  #storageIdOf(crd: JsonObject): string {
    const spec = (crd["spec"] as JsonObject | undefined) ?? {};
    const names = (spec["names"] as JsonObject | undefined) ?? {};
    return `${String(spec["group"])}/${String(names["plural"])}`;
  }

  #isEstablished(crd: JsonObject): boolean {
    const conditions =
      ((crd["status"] as JsonObject | undefined)?.["conditions"] as JsonObject[] | undefined) ?? [];
    return conditions.some((c) => c["type"] === "Established" && c["status"] === "True");
  }

  #crdEntry() {
    const entry = this.#ctx.registry.lookup(
      "apiextensions.k8s.io",
      "v1",
      "customresourcedefinitions",
    );
    if (!entry) throw new Error("customresourcedefinitions are not served");
    return entry;
  }

  #writeStatus(name: string, crd: JsonObject, status: JsonObject): void {
    new ResourceOperations(this.#ctx).update(
      this.#crdEntry(),
      "",
      name,
      { ...crd, status },
      {
        dryRun: false,
        fieldManager: "kube-apiserver",
        fieldValidation: "Ignore",
        warnings: [],
        subresource: "status",
        isPatch: true,
      },
    );
  }

  #setTerminatingReason(name: string, crd: JsonObject, reason: string): void {
    const messages: Record<string, string> = {
      InstanceDeletionInProgress: "CustomResource deletion is in progress",
      InstanceDeletionCompleted: "removed all instances",
    };
    const current = (
      ((crd["status"] as JsonObject | undefined)?.["conditions"] as JsonObject[] | undefined) ?? []
    ).find((c) => c["type"] === "Terminating");
    if (current?.["reason"] === reason) return;
    this.#writeStatus(
      name,
      crd,
      withCondition(crd, {
        type: "Terminating",
        status: "True",
        lastTransitionTime: formatTime(this.#ctx.clock.now()),
        reason,
        message: messages[reason] ?? reason,
      }),
    );
  }

  #establish(name: string): void {
    const crd = this.#ctx.storage.get(CRD_STORAGE_ID, name);
    if (!crd || metadataOf(crd)?.["deletionTimestamp"] || this.#isEstablished(crd)) return;
    const time = formatTime(this.#ctx.clock.now());
    const spec = (crd["spec"] as JsonObject | undefined) ?? {};
    const names = { ...((spec["names"] as JsonObject | undefined) ?? {}) };
    names["singular"] ??= String(names["kind"] ?? "").toLowerCase();
    names["listKind"] ??= `${String(names["kind"] ?? "")}List`;
    const status = (crd["status"] as JsonObject | undefined) ?? {};
    this.#writeStatus(name, crd, {
      ...status,
      conditions: [
        condition("NamesAccepted", "True", "NoConflicts", "no conflicts found", time),
        condition(
          "Established",
          "True",
          "InitialNamesAccepted",
          "the initial names have been accepted",
          time,
        ),
      ],
      acceptedNames: names as JsonValue,
    });
  }

  #cleanup(name: string): void {
    const crd = this.#ctx.storage.get(CRD_STORAGE_ID, name);
    if (!crd || !metadataOf(crd)?.["deletionTimestamp"]) return;
    const storageId = this.#storageIdOf(crd);
    const entry = this.#ctx.registry.entriesFor(storageId)[0];
    const remaining = entry ? [...this.#ctx.storage.current(storageId)] : [];
    this.#setTerminatingReason(
      name,
      crd,
      remaining.length > 0 ? "InstanceDeletionInProgress" : "InstanceDeletionCompleted",
    );
    if (remaining.length > 0 && entry) {
      const ops = new ResourceOperations(this.#ctx);
      for (const [, obj] of remaining) {
        if (metadataOf(obj)?.["deletionTimestamp"]) continue;
        try {
          ops.delete(
            entry,
            String(metadataOf(obj)?.["namespace"] ?? ""),
            String(metadataOf(obj)?.["name"]),
            {
              dryRun: false,
            },
          );
        } catch {
          // Retried on the next deletion event.
        }
      }
      if ([...this.#ctx.storage.current(storageId)].length > 0) return;
      const latest = this.#ctx.storage.get(CRD_STORAGE_ID, name);
      if (latest) this.#setTerminatingReason(name, latest, "InstanceDeletionCompleted");
    }
    new ResourceOperations(this.#ctx).removeFinalizer(
      this.#crdEntry(),
      "",
      name,
      CLEANUP_FINALIZER,
      "kube-apiserver",
    );
  }
}
