/**
 * coordination.k8s.io/v1 Leases (`pkg/registry/coordination/lease/strategy.go`): their printer,
 * create on update, and ValidateLeaseSpec (`pkg/apis/coordination/validation/validation.go`).
 *
 * @kind Lease
 * @validation leaseDurationSeconds > 0, leaseTransitions ≥ 0
 * @update same checks; a PUT on a missing Lease creates it; an update needs a resourceVersion
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid } from "kubekit/apimachinery";
import { leasePrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";
import { validateNonNegative } from "./workload.js";

function validateLease(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const duration = spec["leaseDurationSeconds"];
  if (typeof duration === "number" && duration <= 0)
    errors.push(fieldInvalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  errors.push(...validateNonNegative(spec, "leaseTransitions", "spec"));
  return errors;
}

/** The Lease strategy. */
export const leaseStrategy: KindStrategy = {
  policy: { allowCreateOnUpdate: true, allowUnconditionalUpdate: false },
  validateCreate: validateLease,
  validateUpdate: (next) => validateLease(next),
  printer: leasePrinter,
};
