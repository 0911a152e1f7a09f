/**
 * A CRD's spec (`validateCustomResourceDefinitionSpec` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`), on the internal view of the v1 spec:
 * group, scope, a schema per version, the versions (DNS-1035 names, unique, exactly one
 * storage version) with their schemas, subresources, printer columns and selectable fields,
 * the names, and the conversion settings. Errors come in kube's order.
 */
import type { FieldError } from "kubekit";
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isDns1035Label,
  isDns1123Subdomain,
} from "kubekit/apimachinery";
import { isSet, schemaHas, type SchemaNode } from "../structural/schema-node.js";
import { structuralConversionError } from "../structural/structural-conversion.js";
import { validateConversion } from "./conversion-validation.js";
import {
  hasStatusEnabled,
  openAPIV3SchemaOf,
  schemaRootsOf,
  subresourcesForVersion,
  type InternalSpec,
  type InternalVersion,
} from "./internal-spec.js";
import { validateNames } from "./names-validation.js";
import { validateCustomResourceValidation, type SchemaRuleChecks } from "./schema-validation.js";
import type { CrdValidationOptions } from "./validation-options.js";
import {
  deprecationWarningErrors,
  validatePrinterColumn,
  validateSelectableFields,
  validateSubresources,
} from "./version-parts-validation.js";

/** Whether any schema of the spec carries an `x-kubernetes-*` extension or CEL rule. */
function hasKubernetesExtensions(spec: InternalSpec): boolean {
  return schemaRootsOf(spec).some((root) =>
    schemaHas(
      root,
      (s) =>
        s["x-kubernetes-embedded-resource"] === true ||
        isSet(s, "x-kubernetes-preserve-unknown-fields") ||
        s["x-kubernetes-int-or-string"] === true ||
        (Array.isArray(s["x-kubernetes-list-map-keys"]) &&
          s["x-kubernetes-list-map-keys"].length > 0) ||
        isSet(s, "x-kubernetes-list-type") ||
        (Array.isArray(s["x-kubernetes-validations"]) && s["x-kubernetes-validations"].length > 0),
    ),
  );
}

/** Group (a DNS subdomain with a dot), scope, and a schema for every version. */
function validateGroupScopeSchemas(spec: InternalSpec, opts: CrdValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const groupErrors = isDns1123Subdomain(spec.group);
  if (spec.group === "") errors.push(fieldRequired("spec.group", ""));
  else if (groupErrors.length > 0) {
    errors.push(fieldInvalid("spec.group", spec.group, groupErrors.join(",")));
  } else if (spec.group.split(".").length < 2) {
    errors.push(fieldInvalid("spec.group", spec.group, "should be a domain with at least one dot"));
  }
  if (spec.scope === "") errors.push(fieldRequired("spec.scope", ""));
  else if (spec.scope !== "Cluster" && spec.scope !== "Namespaced") {
    errors.push(fieldNotSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
  }
  if (openAPIV3SchemaOf(spec.validation)) return errors;
  spec.versions.forEach((v, i) => {
    const path = `spec.versions[${i}].schema.openAPIV3Schema`;
    if (openAPIV3SchemaOf(v.schema)) return;
    if (opts.requireOpenAPISchema) errors.push(fieldRequired(path, "schemas are required"));
    else if (!spec.preserveUnknownFields && v.served) {
      errors.push(fieldRequired(path, "because otherwise all fields are pruned"));
    }
  });
  return errors;
}

/** One version's own checks (kube's `validateCustomResourceDefinitionVersion`). */
function validateVersion(
  spec: InternalSpec,
  version: InternalVersion,
  index: number,
  opts: CrdValidationOptions,
  rules: SchemaRuleChecks,
): FieldError[] {
  const path = `spec.versions[${index}]`;
  const errors: FieldError[] = [];
  const nameErrors = isDns1035Label(version.name);
  if (nameErrors.length > 0) {
    errors.push(fieldInvalid(`${path}.name`, version.name, nameErrors.join(",")));
  }
  const warning = version.raw["deprecationWarning"];
  for (const e of deprecationWarningErrors(version.raw["deprecated"] === true, warning)) {
    errors.push(fieldInvalid(`${path}.deprecationWarning`, warning, e));
  }
  const statusEnabled = hasStatusEnabled(subresourcesForVersion(spec, version));
  errors.push(
    ...validateCustomResourceValidation(
      version.schema,
      statusEnabled,
      opts,
      `${path}.schema`,
      rules,
    ),
  );
  errors.push(...validateSubresources(version.subresources, `${path}.subresources`));
  version.additionalPrinterColumns.forEach((c, i) =>
    errors.push(...validatePrinterColumn(c, `${path}.additionalPrinterColumns[${i}]`)),
  );
  if (version.selectableFields.length > 0) {
    errors.push(
      ...validateSelectable(version.schema, version.selectableFields, path, {
        missing:
          "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
        schemaPath: `${path}.schema.openAPIV3Schema`,
      }),
    );
  }
  return errors;
}

/** Selectable fields against their schema, or kube's error when there is none. */
function validateSelectable(
  validation: InternalSpec["validation"],
  fields: InternalVersion["selectableFields"],
  path: string,
  words: { readonly missing: string; readonly schemaPath: string },
): FieldError[] {
  const schema = openAPIV3SchemaOf(validation);
  if (!schema) return [fieldInvalid(`${path}.selectableFields`, "", words.missing)];
  const errors: FieldError[] = [];
  const conversion = structuralConversionError(schema);
  if (conversion !== undefined) errors.push(fieldInvalid(words.schemaPath, "", conversion));
  errors.push(...validateSelectableFields(fields, schema, `${path}.selectableFields`));
  return errors;
}

/** The versions: each one's checks, then uniqueness, one storage version and `spec.version`. */
function validateVersions(
  spec: InternalSpec,
  opts: CrdValidationOptions,
  rules: SchemaRuleChecks,
): FieldError[] {
  const errors: FieldError[] = [];
  spec.versions.forEach((v, i) => errors.push(...validateVersion(spec, v, i, opts, rules)));
  // kube prints the versions with their schema and subresources as pointers (addresses);
  // kubekit leaves them out, so that the message stays short.
  const rawVersions = spec.versions.map((v) => {
    const { schema: _schema, subresources: _subresources, ...rest } = v.raw;
    return rest;
  });
  const names = spec.versions.map((v) => v.name);
  if (new Set(names).size !== names.length) {
    errors.push(fieldInvalid("spec.versions", rawVersions, "must contain unique version names"));
  }
  if (spec.versions.filter((v) => v.storage).length !== 1) {
    errors.push(
      fieldInvalid(
        "spec.versions",
        rawVersions,
        "must have exactly one version marked as storage version",
      ),
    );
  }
  // kube copies versions[0].name to the internal spec.version and checks it there as well.
  const versionErrors = isDns1035Label(spec.version);
  if (spec.version !== "" && versionErrors.length > 0) {
    errors.push(fieldInvalid("spec.version", spec.version, versionErrors.join(",")));
  }
  return errors;
}

/** The names, required then well-formed. */
function validateSpecNames(spec: InternalSpec): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ["plural", "singular", "kind", "listKind"]) {
    const v = spec.names[key];
    if (typeof v !== "string" || v === "") errors.push(fieldRequired(`spec.names.${key}`, ""));
  }
  errors.push(...validateNames(spec.names, "spec.names"));
  return errors;
}

/** What the versions share (kube's `spec.validation`, `spec.subresources`, ...). */
function validateSharedParts(
  spec: InternalSpec,
  opts: CrdValidationOptions,
  rules: SchemaRuleChecks,
): FieldError[] {
  const anyStatus =
    hasStatusEnabled(spec.subresources) ||
    spec.versions.some((v) => hasStatusEnabled(v.subresources));
  const errors = validateCustomResourceValidation(
    spec.validation,
    anyStatus,
    opts,
    "spec.validation",
    rules,
  );
  errors.push(...validateSubresources(spec.subresources, "spec.subresources"));
  spec.additionalPrinterColumns.forEach((c, i) =>
    errors.push(...validatePrinterColumn(c, `spec.additionalPrinterColumns[${i}]`)),
  );
  if (spec.selectableFields.length > 0) {
    errors.push(
      ...validateSelectable(spec.validation, spec.selectableFields, "spec", {
        missing: "selectableFields may only be set when validations.schema is included",
        schemaPath: "spec.schema.openAPIV3Schema",
      }),
    );
  }
  return errors;
}

/** The errors of the spec, in kube's order. */
export function validateCrdSpec(
  spec: InternalSpec,
  opts: CrdValidationOptions,
  rules: SchemaRuleChecks,
): FieldError[] {
  const errors = validateGroupScopeSchemas(spec, opts);
  const hasDefaults = schemaRootsOf(spec).some((root) =>
    schemaHas(root, (s: SchemaNode) => isSet(s, "default")),
  );
  if (hasDefaults && spec.preserveUnknownFields) {
    errors.push(
      fieldInvalid(
        "spec.preserveUnknownFields",
        true,
        "must be false in order to use defaults in the schema",
      ),
    );
  }
  // Pruning (preserveUnknownFields false), defaults and extensions all need structural schemas.
  const structural =
    opts.requireStructuralSchema ||
    !spec.preserveUnknownFields ||
    hasDefaults ||
    hasKubernetesExtensions(spec);
  const effective: CrdValidationOptions = { ...opts, requireStructuralSchema: structural };
  errors.push(...validateVersions(spec, effective, rules));
  errors.push(...validateSpecNames(spec));
  errors.push(...validateSharedParts(spec, effective, rules));
  const strategy = spec.conversion?.["strategy"];
  if (spec.conversion && strategy !== "None" && spec.preserveUnknownFields) {
    errors.push(
      fieldInvalid(
        "spec.conversion.strategy",
        strategy ?? "",
        "must be None if spec.preserveUnknownFields is true",
      ),
    );
  }
  errors.push(
    ...validateConversion(
      spec.conversion,
      opts.requireRecognizedConversionReviewVersion,
      opts.allowInvalidCABundle,
    ),
  );
  return errors;
}
