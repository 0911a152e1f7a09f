/**
 * The ValidatingAdmissionPolicy status controller (kube's
 * `pkg/controller/validatingadmissionpolicystatus/controller.go`): a policy whose
 * `metadata.generation` is newer than `status.observedGeneration` is type-checked
 * (admission/policy/type-checking.ts) and gets `status.observedGeneration` and
 * `status.typeChecking` (`expressionWarnings` when there are any; `{}` otherwise). As kube's, it
 * writes no `status.conditions`.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import { POLICY_STORAGE_ID } from "../admission/policy/index.js";
import { typeCheckPolicy } from "../admission/policy/type-checking.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { DeferredWork } from "./controller-runner.js";

/** The field manager of the status writes (kube's controller name). */
const FIELD_MANAGER = "validatingadmissionpolicy-status-controller";

function generations(policy: JsonObject): { generation: number; observed: number } {
  const generation = Number(metadataOf(policy)?.["generation"] ?? 0);
  const status = isJsonObject(policy["status"]) ? policy["status"] : {};
  return { generation, observed: Number(status["observedGeneration"] ?? 0) };
}

/** See the module comment. */
export class ValidatingAdmissionPolicyStatusController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;

  constructor(ctx: ServerContext, work: DeferredWork) {
    this.#ctx = ctx;
    this.#work = work;
  }

  /** Storage listener. */
  onEvent(event: StorageEvent): void {
    if (event.resource !== POLICY_STORAGE_ID || event.type === "DELETED") return;
    const { generation, observed } = generations(event.object);
    if (generation <= observed) return;
    this.#work.schedule(`validatingadmissionpolicy-status:${event.key}`, () =>
      this.#reconcile(event.key),
    );
  }

  #reconcile(name: string): void {
    const policy = this.#ctx.storage.get(POLICY_STORAGE_ID, name);
    if (!policy) return;
    const { generation, observed } = generations(policy);
    if (generation <= observed) return;
    const entry = this.#ctx.registry.lookup(
      "admissionregistration.k8s.io",
      "v1",
      "validatingadmissionpolicies",
    );
    if (!entry) return;
    const warnings = typeCheckPolicy(this.#ctx, policy);
    const typeChecking: JsonObject =
      warnings.length > 0
        ? { expressionWarnings: warnings.map((w) => ({ ...w })) as unknown as JsonValue }
        : {};
    const status = isJsonObject(policy["status"]) ? policy["status"] : {};
    new ResourceOperations(this.#ctx).update(
      entry,
      "",
      name,
      { ...policy, status: { ...status, observedGeneration: generation, typeChecking } },
      {
        dryRun: false,
        fieldManager: FIELD_MANAGER,
        fieldValidation: "Ignore",
        warnings: [],
        subresource: "status",
        isPatch: true,
      },
    );
  }
}
