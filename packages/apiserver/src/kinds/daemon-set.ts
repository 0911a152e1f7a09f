/**
 * apps/v1 DaemonSets (`pkg/registry/apps/daemonset/strategy.go`): SetDefaults_DaemonSet
 * (`pkg/apis/apps/v1/defaults.go`), ValidateDaemonSetSpec
 * (`pkg/apis/apps/validation/validation.go`, which reads a nil selector as one that matches
 * nothing) and the immutable selector of apps/v1 (strategy.go ValidateUpdate). The template
 * generation (PrepareForCreate / PrepareForUpdate) is kept where apps/v1 carries it, in the
 * `deprecated.daemonset.template.generation` annotation, which the DaemonSet controller copies to
 * its pods' `pod-template-generation` label.
 *
 * @kind DaemonSet
 * @defaults updateStrategy RollingUpdate (maxUnavailable 1, maxSurge 0), revisionHistoryLimit 10,
 * pod-template defaults; template generation annotation 1 on create
 * @validation selector a valid label selector (as Deployment); template labels matched by it;
 * selector non-empty; template as Pod with restartPolicy Always and no activeDeadlineSeconds;
 * updateStrategy type RollingUpdate or OnDelete; minReadySeconds, revisionHistoryLimit ≥ 0
 * @update same checks; selector immutable; the template generation annotation one more on each
 * template change
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldNotSupported, deepEqual } from "kubekit/apimachinery";
import { daemonSetPrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";
import {
  validateNoActiveDeadline,
  validateNonNegative,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  withDefaultedSpec,
} from "./workload.js";

const UPDATE_STRATEGY_TYPES = ["RollingUpdate", "OnDelete"];

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The annotation apps/v1 keeps the internal `spec.templateGeneration` in (`DeprecatedTemplateGeneration`). */
const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

/** The object's template generation from its annotation; 0 when it has none or it is not an integer. */
function templateGenerationOf(obj: JsonObject): number {
  const value = objectAt(objectAt(obj, "metadata"), "annotations")[TEMPLATE_GENERATION_ANNOTATION];
  return typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0;
}

function withTemplateGeneration(obj: JsonObject, generation: number): JsonObject {
  const metadata = objectAt(obj, "metadata");
  return {
    ...obj,
    metadata: {
      ...metadata,
      annotations: {
        ...objectAt(metadata, "annotations"),
        [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
      },
    },
  };
}

function defaultDaemonSetSpec(spec: JsonObject): JsonObject {
  const out = { ...spec };
  const update: JsonObject = { ...objectAt(out, "updateStrategy") };
  if ((update["type"] ?? "") === "") update["type"] = "RollingUpdate";
  if (update["type"] === "RollingUpdate") {
    update["rollingUpdate"] = {
      maxUnavailable: 1,
      maxSurge: 0,
      ...objectAt(update, "rollingUpdate"),
    };
  }
  out["updateStrategy"] = update;
  out["revisionHistoryLimit"] ??= DEFAULT_REVISION_HISTORY_LIMIT;
  return out;
}

function validateDaemonSet(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors = validateWorkloadSpec(obj, "daemonset", ["Always"], "matchesNothing");
  errors.push(...validateNoActiveDeadline(spec));
  errors.push(...validateNonNegative(spec, "minReadySeconds", "spec"));
  const type = objectAt(spec, "updateStrategy")["type"];
  if (!UPDATE_STRATEGY_TYPES.includes(String(type)))
    errors.push(fieldNotSupported("spec.updateStrategy.type", type ?? "", UPDATE_STRATEGY_TYPES));
  errors.push(...validateNonNegative(spec, "revisionHistoryLimit", "spec"));
  return errors;
}

/** The DaemonSet strategy. */
export const daemonSetStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  prepareForCreate: (obj) => withTemplateGeneration(obj, Math.max(1, templateGenerationOf(obj))),
  prepareForUpdate: (next, old) => {
    const template = (obj: JsonObject) => objectAt(obj, "spec")["template"];
    const defaulted = withDefaultedSpec(next, defaultDaemonSetSpec);
    const generation = templateGenerationOf(old);
    return withTemplateGeneration(
      next,
      deepEqual(template(defaulted), template(old)) ? generation : generation + 1,
    );
  },
  applyDefaults: (obj) => withDefaultedSpec(obj, defaultDaemonSetSpec),
  validateCreate: validateDaemonSet,
  validateUpdate: (next, old) => [
    ...validateDaemonSet(next),
    ...validateSelectorUnchanged(next, old),
  ],
  printer: daemonSetPrinter,
};
