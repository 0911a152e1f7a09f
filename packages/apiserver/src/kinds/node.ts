/**
 * core/v1 Nodes (`pkg/registry/core/node/strategy.go`): v1's `podCIDR` and `podCIDRs` kept in
 * step as the internal type's single `podCIDRs` makes them (`pkg/apis/core/v1/conversion.go`
 * Convert_v1_NodeSpec_To_core_NodeSpec and back), and ValidateNode / ValidateNodeUpdate
 * (`pkg/apis/core/validation/validation.go`) on spec writes. Status (capacity, addresses) and the
 * taint and avoid-pods annotations are not checked.
 *
 * @kind Node
 * @defaults podCIDR and podCIDRs kept in step (podCIDRs wins, podCIDR its first entry)
 * @validation taints (reported at metadata.taints, as kube does): key a qualified name, value a
 * label value, effect NoSchedule, PreferNoSchedule or NoExecute, unique by key and effect;
 * podCIDRs valid CIDRs, at most one per IP family, no duplicates
 * @update same checks; podCIDRs and providerID immutable once set; externalID immutable
 */
import type { FieldError, JsonObject } from "kubekit";
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  deepEqual,
  isJsonObject,
  isQualifiedName,
  isValidLabelValue,
} from "kubekit/apimachinery";
import { nodePrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import { cidrErrors, parseCidr } from "./cidr.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

/** The taint effects kube accepts, in kube's order. */
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const POD_CIDRS = "spec.podCIDRs";
const CIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid';

/** The node's pod CIDRs as the internal type holds them: `podCIDRs`, else `[podCIDR]`. */
function podCidrsOf(spec: JsonObject): string[] {
  const list = spec["podCIDRs"];
  if (Array.isArray(list) && list.length > 0)
    return list.filter((c): c is string => typeof c === "string");
  const single = spec["podCIDR"];
  return typeof single === "string" && single !== "" ? [single] : [];
}

/** `podCIDR` and `podCIDRs` as a v1 Node read back from kube-apiserver has them. */
function syncPodCidrs(obj: JsonObject): JsonObject {
  const spec = objectAt(obj, "spec");
  const cidrs = podCidrsOf(spec);
  if (cidrs.length === 0) return obj;
  const first = cidrs[0] as string;
  if (spec["podCIDR"] === first && deepEqual(spec["podCIDRs"], cidrs)) return obj;
  return { ...obj, spec: { ...spec, podCIDR: first, podCIDRs: cidrs } };
}

/** validateNodeTaints, at `metadata.taints` (kube passes the metadata path). */
function validateTaints(spec: JsonObject): FieldError[] {
  const taints = spec["taints"];
  if (!Array.isArray(taints)) return [];
  const errors: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((taint, i) => {
    if (!isJsonObject(taint)) return;
    const at = `metadata.taints[${i}]`;
    const key = typeof taint["key"] === "string" ? taint["key"] : "";
    for (const msg of isQualifiedName(key)) errors.push(fieldInvalid(`${at}.key`, key, msg));
    const value = typeof taint["value"] === "string" ? taint["value"] : "";
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0)
      errors.push(fieldInvalid(`${at}.value`, value, valueErrors.join(";")));
    const effect = typeof taint["effect"] === "string" ? taint["effect"] : "";
    if (effect === "") errors.push(fieldRequired(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(effect))
      errors.push(fieldNotSupported(`${at}.effect`, effect, TAINT_EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errors.push({
        ...fieldDuplicate(at, taint),
        detail: "taints must be unique by key and effect pair",
      });
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errors;
}

/** ValidateNode's pod CIDR rules. */
function validatePodCidrs(spec: JsonObject): FieldError[] {
  const cidrs = podCidrsOf(spec);
  const errors: FieldError[] = [];
  cidrs.forEach((cidr, i) => errors.push(...cidrErrors(`${POD_CIDRS}[${i}]`, cidr)));
  if (cidrs.length > 1) {
    // netutils.IsDualStackCIDRStrings: an unparsable entry is an internal error there.
    const bad = cidrs.findIndex((c) => parseCidr(c) === undefined);
    if (bad >= 0) {
      errors.push(
        fieldInternalError(
          POD_CIDRS,
          `invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[${bad}]: <nil> (invalid CIDR address: ${cidrs[bad]})`,
        ),
      );
    }
    const families = new Set(cidrs.map((c) => parseCidr(c)?.family));
    const dualStack = bad < 0 && families.has(4) && families.has(6);
    if (!dualStack || cidrs.length > 2)
      errors.push(
        fieldInvalid(POD_CIDRS, cidrs, "may specify no more than one CIDR for each IP family"),
      );
    const unique = new Set<string>();
    cidrs.forEach((cidr, i) => {
      if (unique.has(cidr)) errors.push(fieldDuplicate(`${POD_CIDRS}[${i}]`, cidr));
      unique.add(cidr);
    });
  }
  return errors;
}

function validateNode(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  return [...validateTaints(spec), ...validatePodCidrs(spec)];
}

/** ValidateNodeUpdate's spec rules. */
function validateNodeUpdate(next: JsonObject, old: JsonObject): FieldError[] {
  const spec = objectAt(next, "spec");
  const oldSpec = objectAt(old, "spec");
  const errors: FieldError[] = [];
  const oldCidrs = podCidrsOf(oldSpec);
  if (oldCidrs.length > 0) {
    const cidrs = podCidrsOf(spec);
    if (cidrs.length !== oldCidrs.length) errors.push(fieldForbidden(POD_CIDRS, CIDR_CHANGE));
    else
      oldCidrs.forEach((cidr, i) => {
        if (cidr !== cidrs[i]) errors.push(fieldForbidden(POD_CIDRS, CIDR_CHANGE));
      });
  }
  const oldProviderId = typeof oldSpec["providerID"] === "string" ? oldSpec["providerID"] : "";
  if (oldProviderId !== "" && oldProviderId !== (spec["providerID"] ?? ""))
    errors.push(
      fieldForbidden(
        "spec.providerID",
        'node updates may not change providerID except from "" to valid',
      ),
    );
  errors.push(...validateTaints(spec));
  if ((spec["externalID"] ?? "") !== (oldSpec["externalID"] ?? ""))
    errors.push(fieldForbidden("spec.externalID", "may not be updated"));
  return errors;
}

/** The storage id of core/v1 Nodes. */
export const NODE_STORAGE_ID = "/nodes";

/** The Node strategy. */
export const nodeStrategy: KindStrategy = {
  policy: { deleteReturnsObject: true, selectableFields: selectableFields("spec.unschedulable") },
  applyDefaults: syncPodCidrs,
  validateCreate: validateNode,
  // nodeStrategy.ValidateUpdate runs ValidateNode, then ValidateNodeUpdate (which checks the
  // taints a second time: kube lists those causes twice).
  validateUpdate: (next, old) => [...validateNode(next), ...validateNodeUpdate(next, old)],
  printer: nodePrinter,
};
