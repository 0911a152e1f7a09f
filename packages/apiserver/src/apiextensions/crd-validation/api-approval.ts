/**
 * The API approval of CRDs in the Kubernetes community's protected groups (`validateAPIApproval`
 * in apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`, states from
 * `pkg/apihelpers/helpers.go`): a group `k8s.io`, `kubernetes.io` or a subdomain of either
 * needs the `api-approved.kubernetes.io` annotation, a URL or a reason starting with
 * `unapproved`.
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, fieldRequired, isJsonObject } from "kubekit/apimachinery";

const ANNOTATION = "api-approved.kubernetes.io";
const ENHANCEMENT = "see https://github.com/kubernetes/enhancements/pull/1111";

type ApprovalState = "missing" | "bypassed" | "approved" | "invalid";

function isProtectedGroup(group: string): boolean {
  return (
    group === "k8s.io" ||
    group.endsWith(".k8s.io") ||
    group === "kubernetes.io" ||
    group.endsWith(".kubernetes.io")
  );
}

function annotationOf(crd: JsonObject): string {
  const meta = crd["metadata"];
  const annotations = isJsonObject(meta) ? meta["annotations"] : undefined;
  const value = isJsonObject(annotations) ? annotations[ANNOTATION] : undefined;
  return typeof value === "string" ? value : "";
}

/** Whether `value` is a request URI with a scheme and a host (Go's `url.ParseRequestURI`). */
function isApprovalUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol.length > 1 && u.host.length > 0;
  } catch {
    return false;
  }
}

function approvalState(annotation: string): ApprovalState {
  if (annotation === "") return "missing";
  if (annotation.startsWith("unapproved")) return "bypassed";
  return isApprovalUrl(annotation) ? "approved" : "invalid";
}

/** The approval errors of `crd` (of its update from `old`, which keeps an unchanged state). */
export function validateApiApproval(
  crd: JsonObject,
  group: string,
  old?: JsonObject,
): FieldError[] {
  if (!isProtectedGroup(group)) return [];
  const annotation = annotationOf(crd);
  const state = approvalState(annotation);
  if (old && approvalState(annotationOf(old)) === state) return [];
  const path = `metadata.annotations[${ANNOTATION}]`;
  switch (state) {
    case "missing":
      return [
        fieldRequired(
          path,
          `protected groups must have approval annotation "${ANNOTATION}", ${ENHANCEMENT}`,
        ),
      ];
    case "invalid":
      return [
        fieldInvalid(
          path,
          annotation,
          `protected groups must have approval annotation "${ANNOTATION}" with either a URL or a reason starting with "unapproved", ${ENHANCEMENT}`,
        ),
      ];
    default:
      return [];
  }
}
