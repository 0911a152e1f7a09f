/**
 * A CRD's names and stored versions (`ValidateCustomResourceDefinitionNames`,
 * `ValidateCustomResourceDefinitionStoredVersions` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`): DNS-1035 labels (kind and listKind may
 * have mixed case), kind different from listKind, and stored versions that include the
 * storage version and appear in `spec.versions`.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, isDns1035Label } from "kubekit/apimachinery";
import type { InternalVersion } from "./internal-spec.js";

function stringOf(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === "string" ? s : "")) : [];
}

/** The errors of a names block (`spec.names` or `status.acceptedNames`) at `path`. */
export function validateNames(names: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ["plural", "singular"]) {
    const value = stringOf(names[key]);
    const errs = isDns1035Label(value);
    if (value !== "" && errs.length > 0) {
      errors.push(fieldInvalid(`${path}.${key}`, value, errs.join(",")));
    }
  }
  for (const key of ["kind", "listKind"]) {
    const value = stringOf(names[key]);
    const errs = isDns1035Label(value.toLowerCase());
    if (value !== "" && errs.length > 0) {
      errors.push(
        fieldInvalid(
          `${path}.${key}`,
          value,
          `may have mixed case, but should otherwise match: ${errs.join(",")}`,
        ),
      );
    }
  }
  strings(names["shortNames"]).forEach((s, i) => {
    const errs = isDns1035Label(s);
    if (errs.length > 0) errors.push(fieldInvalid(`${path}.shortNames[${i}]`, s, errs.join(",")));
  });
  const kind = stringOf(names["kind"]);
  if (kind !== "" && kind === stringOf(names["listKind"])) {
    errors.push(fieldInvalid(`${path}.listKind`, kind, "kind and listKind may not be the same"));
  }
  strings(names["categories"]).forEach((c, i) => {
    const errs = isDns1035Label(c);
    if (errs.length > 0) errors.push(fieldInvalid(`${path}.categories[${i}]`, c, errs.join(",")));
  });
  return errors;
}

/**
 * The errors of `status.storedVersions`: at least one, the storage version among them, each
 * one a version of the spec (a version still stored cannot be removed from `spec.versions`).
 */
export function validateStoredVersions(
  storedVersions: JsonValue | undefined,
  versions: readonly InternalVersion[],
): FieldError[] {
  const path = "status.storedVersions";
  const stored = strings(storedVersions);
  if (stored.length === 0) {
    return [fieldInvalid(path, stored, "must have at least one stored version")];
  }
  const errors: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    if (v.storage && !remaining.has(v.name)) {
      errors.push(fieldInvalid(path, stored, `must have the storage version ${v.name}`));
    }
    remaining.delete(v.name);
  }
  for (const [v, i] of remaining) {
    errors.push(fieldInvalid(`${path}[${i}]`, v, "must appear in spec.versions"));
  }
  return errors;
}
