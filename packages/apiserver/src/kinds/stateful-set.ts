/**
 * apps/v1 StatefulSets (`pkg/registry/apps/statefulset/strategy.go`): SetDefaults_StatefulSet
 * (`pkg/apis/apps/v1/defaults.go`, volumeClaimTemplates defaulted as claims) and
 * ValidateStatefulSetSpec / ValidateStatefulSetUpdate (`pkg/apis/apps/validation/validation.go`).
 * Names are DNS-1123 labels (they become pod hostnames). On update the spec without its mutable
 * fields (MUTABLE_SPEC_FIELDS) is compared as apimachinery's semantic equality does (empty and
 * absent values alike).
 *
 * @kind StatefulSet
 * @defaults replicas 1, podManagementPolicy OrderedReady, updateStrategy RollingUpdate (partition
 * 0), revisionHistoryLimit 10, PVC retention Retain/Retain, volumeClaimTemplates volumeMode
 * Filesystem and phase Pending, pod-template defaults
 * @validation name DNS-1123 label; selector required, a valid label selector (as Deployment; an
 * unconvertible one `spec.selector: Invalid value` without detail), non-empty, matching the
 * template labels; replicas, partition, minReadySeconds, revisionHistoryLimit ≥ 0;
 * podManagementPolicy and updateStrategy supported (rollingUpdate only with RollingUpdate);
 * serviceName a DNS-1123 label when set; template as Pod with restartPolicy Always and no
 * activeDeadlineSeconds
 * @update same checks; spec Forbidden except replicas, ordinals, template, updateStrategy,
 * revisionHistoryLimit, persistentVolumeClaimRetentionPolicy, minReadySeconds
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  deepEqual,
  isJsonObject,
  isDns1123Label,
} from "kubekit/apimachinery";
import { statefulSetPrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { defaultClaim } from "./persistent-volume-claim.js";
import { objectAt } from "./pod-spec.js";
import {
  defaultReplicas,
  validateNoActiveDeadline,
  validateNonNegative,
  validateWorkloadSpec,
  withDefaultedSpec,
} from "./workload.js";

/** The spec fields an update may change; every other field of the spec is fixed at creation. */
const MUTABLE_SPEC_FIELDS = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "revisionHistoryLimit",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
] as const;

/** kube-apiserver's `spec: Forbidden: …` detail for a change to any other spec field. */
const STATEFUL_SET_UPDATE_MESSAGE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/**
 * The defaulters kube runs on each volumeClaimTemplate (SetObjectDefaults_StatefulSet):
 * SetDefaults_PersistentVolumeClaim (status phase Pending) and the claim spec's defaults.
 */
function defaultClaimTemplate(template: JsonValue): JsonValue {
  if (!isJsonObject(template)) return template;
  const status = objectAt(template, "status");
  const withStatus =
    (status["phase"] ?? "") === ""
      ? { ...template, status: { ...status, phase: "Pending" } }
      : template;
  return defaultClaim(withStatus);
}

function defaultStatefulSetSpec(spec: JsonObject): JsonObject {
  const out = { ...defaultReplicas(spec) };
  if ((out["podManagementPolicy"] ?? "") === "") out["podManagementPolicy"] = "OrderedReady";
  const update: JsonObject = { ...objectAt(out, "updateStrategy") };
  if ((update["type"] ?? "") === "") update["type"] = "RollingUpdate";
  if (update["type"] === "RollingUpdate") {
    update["rollingUpdate"] = { partition: 0, ...objectAt(update, "rollingUpdate") };
  }
  out["updateStrategy"] = update;
  out["revisionHistoryLimit"] ??= DEFAULT_REVISION_HISTORY_LIMIT;
  const templates = out["volumeClaimTemplates"];
  if (Array.isArray(templates)) out["volumeClaimTemplates"] = templates.map(defaultClaimTemplate);
  out["persistentVolumeClaimRetentionPolicy"] = {
    whenDeleted: "Retain",
    whenScaled: "Retain",
    ...objectAt(out, "persistentVolumeClaimRetentionPolicy"),
  };
  return out;
}

function validatePolicies(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const management = spec["podManagementPolicy"];
  if (management === undefined || management === "") {
    errors.push(fieldRequired("spec.podManagementPolicy"));
  } else if (management !== "OrderedReady" && management !== "Parallel") {
    errors.push(
      fieldInvalid("spec.podManagementPolicy", management, "must be 'OrderedReady' or 'Parallel'"),
    );
  }
  const update = spec["updateStrategy"];
  const type = isJsonObject(update) ? update["type"] : undefined;
  const rolling = isJsonObject(update) ? update["rollingUpdate"] : undefined;
  if (type === undefined || type === "") {
    errors.push(fieldRequired("spec.updateStrategy"));
  } else if (type === "OnDelete") {
    if (rolling !== undefined && rolling !== null)
      errors.push(
        fieldInvalid(
          "spec.updateStrategy.rollingUpdate",
          rolling,
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
  } else if (type === "RollingUpdate") {
    if (isJsonObject(rolling))
      errors.push(
        ...validateNonNegative(rolling, "partition", "spec.updateStrategy.rollingUpdate"),
      );
  } else {
    errors.push(
      fieldInvalid("spec.updateStrategy", update ?? null, "must be 'RollingUpdate' or 'OnDelete'"),
    );
  }
  return errors;
}

function validateServiceName(spec: JsonObject): FieldError[] {
  const name = spec["serviceName"];
  if (typeof name !== "string" || name === "") return [];
  return isDns1123Label(name).map((msg) => fieldInvalid("spec.serviceName", name, msg));
}

function validateStatefulSet(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  return [
    ...validatePolicies(spec),
    ...validateNonNegative(spec, "revisionHistoryLimit", "spec"),
    ...validateNonNegative(spec, "minReadySeconds", "spec"),
    ...validateServiceName(spec),
    ...validateWorkloadSpec(obj, "statefulset", ["Always"]),
    ...validateNoActiveDeadline(spec),
  ];
}

/**
 * `value` without what Go decodes to a zero value and apimachinery's semantic equality
 * treats as absent: null, "", empty lists and empty objects (nil and empty slices and maps,
 * zero structs).
 */
function withoutZeroValues(value: JsonValue): JsonValue | undefined {
  if (value === null || value === "") return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => withoutZeroValues(v) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const kept = withoutZeroValues(v);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function withoutMutableFields(spec: JsonObject): JsonValue | undefined {
  const out: JsonObject = { ...spec };
  for (const key of MUTABLE_SPEC_FIELDS) delete out[key];
  return withoutZeroValues(out);
}

function validateFixedSpec(next: JsonObject, old: JsonObject): FieldError[] {
  const fixedNext = withoutMutableFields(objectAt(next, "spec"));
  const fixedOld = withoutMutableFields(objectAt(old, "spec"));
  return deepEqual(fixedNext, fixedOld)
    ? []
    : [fieldForbidden("spec", STATEFUL_SET_UPDATE_MESSAGE)];
}

/** The StatefulSet strategy. */
export const statefulSetStrategy: KindStrategy = {
  policy: { tracksGeneration: true, nameRule: "label" },
  applyDefaults: (obj) => withDefaultedSpec(obj, defaultStatefulSetSpec),
  validateCreate: validateStatefulSet,
  validateUpdate: (next, old) => [...validateStatefulSet(next), ...validateFixedSpec(next, old)],
  printer: statefulSetPrinter,
};
