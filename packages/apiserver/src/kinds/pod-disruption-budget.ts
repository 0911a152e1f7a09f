/**
 * policy/v1 PodDisruptionBudgets (`pkg/registry/policy/poddisruptionbudget/strategy.go`) and
 * ValidatePodDisruptionBudgetSpec (`pkg/apis/policy/validation/validation.go`; apps validation's
 * ValidatePositiveIntOrPercent and IsNotMoreThan100Percent). The spec may change on update
 * (policy/v1).
 *
 * @kind PodDisruptionBudget
 * @validation name a path segment; minAvailable and maxUnavailable not both set; each an
 * integer ≥ 0 or a percent ≤ 100%; unhealthyPodEvictionPolicy supported (AlwaysAllow,
 * IfHealthyBudget)
 * @update same checks
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, fieldNotSupported, isValidPercent } from "kubekit/apimachinery";
import {
  CREATION_TIMESTAMP_DESCRIPTION,
  NAME_DESCRIPTION,
  type TablePrinter,
} from "../table/builtin-table-printers.js";
import { humanDurationSince } from "../table/human-duration.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];
const MAX_PERCENT = 100;

/**
 * apps validation's ValidatePositiveIntOrPercent and IsNotMoreThan100Percent on one
 * int-or-string field: an integer >= 0, or a `<n>%` string with n <= 100.
 */
function validateIntOrPercent(value: JsonValue, path: string): FieldError[] {
  if (typeof value === "number")
    return value < 0 ? [fieldInvalid(path, value, "must be greater than or equal to 0")] : [];
  if (typeof value !== "string") return [];
  const errors = isValidPercent(value).map((msg) => fieldInvalid(path, value, msg));
  if (errors.length === 0 && Number(value.slice(0, -1)) > MAX_PERCENT)
    errors.push(fieldInvalid(path, value, "must not be greater than 100%"));
  return errors;
}

function validatePodDisruptionBudget(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const minAvailable = spec["minAvailable"] ?? null;
  const maxUnavailable = spec["maxUnavailable"] ?? null;
  if (minAvailable !== null && maxUnavailable !== null)
    errors.push(fieldInvalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  if (minAvailable !== null)
    errors.push(...validateIntOrPercent(minAvailable, "spec.minAvailable"));
  if (maxUnavailable !== null)
    errors.push(...validateIntOrPercent(maxUnavailable, "spec.maxUnavailable"));
  const policy = spec["unhealthyPodEvictionPolicy"];
  if (typeof policy === "string" && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    errors.push(
      fieldNotSupported("spec.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES),
    );
  return errors;
}

/** An int-or-percent cell: the value, or `N/A` when unset. */
function intOrPercentCell(value: JsonValue | undefined): string {
  return value === undefined || value === null ? "N/A" : String(value);
}

/** kube-apiserver's `kubectl get pdb` columns (`pkg/printers/internalversion/printers.go`). */
const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 },
    {
      name: "Min Available",
      type: "string",
      format: "",
      description:
        "The minimum number of pods that must be available, either as an integer or as a percentage.",
      priority: 0,
    },
    {
      name: "Max Unavailable",
      type: "string",
      format: "",
      description:
        "The maximum number of pods that may be unavailable, either as an integer or as a percentage.",
      priority: 0,
    },
    {
      name: "Allowed Disruptions",
      type: "integer",
      format: "",
      description: "Number of pod disruptions that are currently allowed.",
      priority: 0,
    },
    {
      name: "Age",
      type: "string",
      format: "",
      description: CREATION_TIMESTAMP_DESCRIPTION,
      priority: 0,
    },
  ],
  row(pdb, now) {
    const spec = objectAt(pdb, "spec");
    const allowed = objectAt(pdb, "status")["disruptionsAllowed"];
    return {
      cells: [
        String(objectAt(pdb, "metadata")["name"] ?? ""),
        intOrPercentCell(spec["minAvailable"]),
        intOrPercentCell(spec["maxUnavailable"]),
        typeof allowed === "number" ? allowed : 0,
        humanDurationSince(objectAt(pdb, "metadata")["creationTimestamp"], now),
      ],
    };
  },
};

/** The PodDisruptionBudget strategy. */
export const podDisruptionBudgetStrategy: KindStrategy = {
  policy: { tracksGeneration: true, nameRule: "path-segment" },
  validateCreate: validatePodDisruptionBudget,
  validateUpdate: (next) => validatePodDisruptionBudget(next),
  printer: podDisruptionBudgetPrinter,
};
