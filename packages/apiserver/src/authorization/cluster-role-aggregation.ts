/**
 * The ClusterRole aggregation controller, as kube-controller-manager's
 * `pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go`, run in the
 * server: a ClusterRole with an `aggregationRule` gets as `rules` the rules of every other
 * ClusterRole its selectors match, in name order, each rule once. It re-runs after any
 * ClusterRole changes, and writes only when the rules differ.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { LabelSelector, type LabelSelectorSpec } from "kubekit";
import { deepEqual, isJsonObject, labelsOf } from "kubekit/apimachinery";
import type { DeferredWork } from "../controllers/controller-runner.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";
import { ResourceOperations } from "../store/resource-operations.js";
import { RBAC_STORAGE_IDS } from "./rbac-rule-resolver.js";

/** The field manager of the controller's writes. */
const FIELD_MANAGER = "clusterrole-aggregation-controller";

/** Keeps aggregated ClusterRoles' rules up to date. */
export class ClusterRoleAggregationController {
  readonly #ctx: ServerContext;
  readonly #work: DeferredWork;

  constructor(ctx: ServerContext, work: DeferredWork) {
    this.#ctx = ctx;
    this.#work = work;
  }

  /** Storage listener: any ClusterRole change re-aggregates every aggregated ClusterRole. */
  onEvent(event: StorageEvent): void {
    if (event.resource !== RBAC_STORAGE_IDS.clusterRoles) return;
    this.#work.schedule("clusterrole-aggregation", () => this.#reconcile());
  }

  #reconcile(): void {
    const roles = [...this.#ctx.storage.current(RBAC_STORAGE_IDS.clusterRoles)];
    for (const [name, role] of roles) {
      const rule = role["aggregationRule"];
      if (!isJsonObject(rule)) continue;
      const rules = aggregatedRules(name, rule, roles);
      if (deepEqual(rules, role["rules"] ?? [])) continue;
      const entry = this.#ctx.registry.lookup("rbac.authorization.k8s.io", "v1", "clusterroles");
      if (!entry) return;
      new ResourceOperations(this.#ctx).update(
        entry,
        "",
        name,
        { ...role, rules },
        {
          dryRun: false,
          fieldManager: FIELD_MANAGER,
          fieldValidation: "Ignore",
          warnings: [],
          subresource: "",
          isPatch: true,
        },
      );
    }
  }
}

/** The rules of the ClusterRoles `aggregationRule` selects (other than `self`), deduplicated. */
function aggregatedRules(
  self: string,
  aggregationRule: JsonObject,
  roles: readonly [string, JsonObject][],
): JsonValue[] {
  const selectors = Array.isArray(aggregationRule["clusterRoleSelectors"])
    ? aggregationRule["clusterRoleSelectors"]
    : [];
  const selected = new Set<string>();
  for (const spec of selectors) {
    if (!isJsonObject(spec)) continue;
    let selector: LabelSelector;
    try {
      selector = LabelSelector.fromLabelSelector(spec as unknown as LabelSelectorSpec);
    } catch {
      continue;
    }
    for (const [name, role] of roles)
      if (name !== self && selector.matches(labelsOf(role))) selected.add(name);
  }
  const rules: JsonValue[] = [];
  for (const name of [...selected].sort()) {
    const role = roles.find(([n]) => n === name)?.[1];
    const own = Array.isArray(role?.["rules"]) ? role["rules"] : [];
    for (const rule of own) if (!rules.some((r) => deepEqual(r, rule))) rules.push(rule);
  }
  return rules;
}
