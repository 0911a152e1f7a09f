/**
 * A custom resource's request body as kube-apiserver decodes it
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go`
 * schemaCoercingDecoder and unstructuredDefaulter; the create/update handlers of
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers`): fields the version's schema does
 * not specify are pruned, and reported as `fieldValidation` asks; then the schema's
 * defaults are applied.
 */
import { newStatusError, type JsonObject } from "kubekit";
import { duplicateFieldsOf } from "../encoding/duplicate-fields.js";
import type { ResourceEntry } from "../registry/registry.js";
import type { CustomResourceInfo } from "../registry/served-resource.js";
import {
  duplicateFieldText,
  reportStrictDecodingErrors,
  unknownFieldText,
  type FieldValidationMode,
} from "../schema/field-validation.js";

/**
 * The pruned and defaulted object. The strict decoding errors are the keys the request's
 * JSON repeats (`duplicate field "spec.size"`), then the pruned fields (`unknown field
 * "spec.foo"`), as schemaCoercingDecoder appends them: a 400 under Strict (`<Kind> in version
 * "<v>" cannot be handled as a <Kind>: strict decoding error: …`), one warning each under
 * Warn, nothing under Ignore. `body` is the request's decoded object (other objects have no
 * repeated keys).
 */
export function decodeCustomResource(
  entry: ResourceEntry,
  custom: CustomResourceInfo,
  obj: JsonObject,
  body: JsonObject,
  opts: { readonly fieldValidation: FieldValidationMode; readonly warnings: string[] },
): JsonObject {
  const { value, unknownFields } = custom.compiled.prune(obj);
  if (opts.fieldValidation !== "Ignore") {
    const errors = [
      ...duplicateFieldsOf(body).map((d) => duplicateFieldText(d.path)),
      ...unknownFields.map(unknownFieldText),
    ];
    const { kind, version } = entry.info;
    reportStrictDecodingErrors(kind, version, errors, opts.fieldValidation, opts.warnings);
  }
  return custom.compiled.applyDefaults(value);
}

/**
 * Server-side apply's typed conversion of an applied configuration: a field the schema does
 * not declare fails the apply whatever `fieldValidation` says, with structured-merge-diff's
 * error as kube-apiserver returns it (a 500 without a reason:
 * `failed to create typed patch object (<group>/<version>, Kind=<Kind>): .spec.foo: field
 * not declared in schema`).
 */
export function checkAppliedFields(
  entry: ResourceEntry,
  custom: CustomResourceInfo,
  applied: JsonObject,
): void {
  const { unknownFields } = custom.compiled.prune(applied);
  if (unknownFields.length === 0) return;
  const errors = unknownFields.map((p) => `.${p}: field not declared in schema`);
  const text =
    errors.length === 1 ? errors[0] : ["errors:", ...errors.map((e) => `  ${e}`)].join("\n");
  const { group, version, kind } = entry.info;
  throw newStatusError(
    500,
    "",
    `failed to create typed patch object (${group}/${version}, Kind=${kind}): ${text ?? ""}`,
  );
}
