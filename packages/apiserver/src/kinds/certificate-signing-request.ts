/**
 * certificates.k8s.io/v1 CertificateSigningRequests
 * (`pkg/registry/certificates/certificates/strategy.go`, `pkg/apis/certificates/validation`):
 * the spec is immutable and the status is written only through the `status` subresource (the
 * certificate, set once; conditions other than Approved and Denied) and the `approval`
 * subresource (the conditions, Approved and Denied among them). `spec.signerName` is a
 * selectable field.
 *
 * @kind CertificateSigningRequest
 * @validation spec.request a PEM `CERTIFICATE REQUEST`; usages required, known and unique;
 * signerName set; expirationSeconds ≥ 600; conditions: type required and unique, status
 * True/False/Unknown (True only for Approved, Denied, Failed), Approved and Denied exclusive
 * @update spec and status kept; Approved, Denied and Failed conditions never removed; status
 * writes may not add or change Approved/Denied, approval writes may not set the certificate
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  deepEqual,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
} from "kubekit/apimachinery";
import { selectableFields } from "../registry/resource-policy.js";
import {
  CREATION_TIMESTAMP_DESCRIPTION,
  NAME_DESCRIPTION,
  type TablePrinter,
} from "../table/builtin-table-printers.js";
import { humanDuration, humanDurationSince } from "../table/human-duration.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const VALID_USAGES = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
];
const TRUE_ONLY = ["Approved", "Denied", "Failed"];
const ALL_STATUSES = ["False", "True", "Unknown"];

function conditionsOf(obj: JsonObject): JsonObject[] {
  const conditions = objectAt(obj, "status")["conditions"];
  return Array.isArray(conditions) ? conditions.filter(isJsonObject) : [];
}

/** `validateCSR`: the request decodes to one PEM block of type CERTIFICATE REQUEST. */
function validateRequest(request: JsonValue | undefined): FieldError[] {
  const text = typeof request === "string" ? Buffer.from(request, "base64").toString("utf8") : "";
  if (!/-----BEGIN CERTIFICATE REQUEST-----[\s\S]+-----END CERTIFICATE REQUEST-----/.test(text)) {
    return [
      fieldInvalid("spec.request", request ?? null, "PEM block type must be CERTIFICATE REQUEST"),
    ];
  }
  return [];
}

/** `validateConditions`. */
function validateConditions(obj: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = typeof c["type"] === "string" ? c["type"] : "";
    if (type === "") errors.push(fieldRequired(`${path}.type`, ""));
    const allowed = TRUE_ONLY.includes(type) ? ["True"] : ALL_STATUSES;
    const status = typeof c["status"] === "string" ? c["status"] : "";
    if (status === "") errors.push(fieldRequired(`${path}.status`, ""));
    else if (!allowed.includes(status))
      errors.push(fieldNotSupported(`${path}.status`, status, allowed));
    if (type === "Approved") approved = true;
    if (type === "Denied") denied = true;
    if ((type === "Approved" && denied) || (type === "Denied" && approved)) {
      errors.push(
        fieldInvalid(`${path}.type`, type, "Approved and Denied conditions are mutually exclusive"),
      );
    }
    if (seen.has(type)) errors.push(fieldDuplicate(`${path}.type`, type));
    seen.add(type);
  });
  return errors;
}

function validateCreate(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors = validateRequest(spec["request"]);
  const usages = Array.isArray(spec["usages"]) ? spec["usages"] : [];
  if (usages.length === 0) errors.push(fieldRequired("spec.usages", ""));
  const seen = new Set<JsonValue>();
  usages.forEach((usage, i) => {
    if (typeof usage !== "string" || !VALID_USAGES.includes(usage))
      errors.push(fieldNotSupported(`spec.usages[${i}]`, usage, VALID_USAGES));
    if (seen.has(usage)) errors.push(fieldDuplicate(`spec.usages[${i}]`, usage));
    seen.add(usage);
  });
  const signer = spec["signerName"];
  if (typeof signer !== "string" || signer === "")
    errors.push(fieldRequired("spec.signerName", ""));
  const expiration = spec["expirationSeconds"];
  if (typeof expiration === "number" && expiration < 600) {
    errors.push(
      fieldInvalid(
        "spec.expirationSeconds",
        expiration,
        "may not specify a duration less than 600 seconds (10 minutes)",
      ),
    );
  }
  return [...errors, ...validateConditions(obj)];
}

function ofType(obj: JsonObject, type: string): JsonObject[] {
  return conditionsOf(obj).filter((c) => c["type"] === type);
}

/** `validateCertificateSigningRequestUpdate` with the subresource's allowances. */
function validateUpdate(
  next: JsonObject,
  old: JsonObject,
  allow: { readonly approval: boolean; readonly certificate: boolean },
): FieldError[] {
  const errors = validateConditions(next);
  for (const type of ["Approved", "Denied", "Failed"]) {
    if (ofType(next, type).length < ofType(old, type).length)
      errors.push(
        fieldForbidden("status.conditions", `updates may not remove a condition of type "${type}"`),
      );
  }
  if (!allow.approval) {
    for (const type of ["Approved", "Denied"]) {
      const before = ofType(old, type);
      const after = ofType(next, type);
      if (after.length > before.length)
        errors.push(
          fieldForbidden("status.conditions", `updates may not add a condition of type "${type}"`),
        );
      else if (after.length === before.length && !deepEqual(before, after))
        errors.push(
          fieldForbidden(
            "status.conditions",
            `updates may not modify a condition of type "${type}"`,
          ),
        );
    }
  }
  const certificate = objectAt(next, "status")["certificate"] ?? "";
  const oldCertificate = objectAt(old, "status")["certificate"] ?? "";
  if (certificate !== oldCertificate) {
    if (!allow.certificate)
      errors.push(fieldForbidden("status.certificate", "updates may not set certificate content"));
    else if (oldCertificate !== "")
      errors.push(
        fieldForbidden("status.certificate", "updates may not modify existing certificate content"),
      );
  }
  return errors;
}

/** `extractCSRStatus`: Pending, Approved or Denied, then `,Failed` and `,Issued`. */
function conditionColumn(csr: JsonObject): string {
  const types = new Set(conditionsOf(csr).map((c) => c["type"]));
  let status = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) status += ",Failed";
  if ((objectAt(csr, "status")["certificate"] ?? "") !== "") status += ",Issued";
  return status;
}

/** kube-apiserver's `kubectl get csr` columns (`pkg/printers/internalversion/printers.go`). */
const csrPrinter: TablePrinter = {
  columns: [
    { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 },
    {
      name: "Age",
      type: "date",
      format: "",
      description: CREATION_TIMESTAMP_DESCRIPTION,
      priority: 0,
    },
    { name: "SignerName", type: "string", format: "", description: "", priority: 0 },
    { name: "Requestor", type: "string", format: "", description: "", priority: 0 },
    { name: "RequestedDuration", type: "string", format: "", description: "", priority: 0 },
    { name: "Condition", type: "string", format: "", description: "", priority: 0 },
  ],
  row(csr, now) {
    const meta = objectAt(csr, "metadata");
    const spec = objectAt(csr, "spec");
    const seconds = spec["expirationSeconds"];
    return {
      cells: [
        String(meta["name"] ?? ""),
        humanDurationSince(meta["creationTimestamp"], now),
        String(spec["signerName"] ?? ""),
        String(spec["username"] ?? ""),
        typeof seconds === "number" ? humanDuration(seconds * 1000) : "<none>",
        conditionColumn(csr),
      ],
    };
  },
};

/** The CertificateSigningRequest strategy. */
export const certificateSigningRequestStrategy: KindStrategy = {
  policy: { selectableFields: selectableFields("spec.signerName") },
  printer: csrPrinter,
  // PrepareForCreate: users cannot create pre-approved or pre-issued requests.
  prepareForCreate: (obj) => ({ ...obj, status: {} }),
  // PrepareForUpdate: certificate requests are immutable except through subresources.
  prepareForUpdate: (next, old) => {
    const out: JsonObject = { ...next, spec: old["spec"] ?? {} };
    if (old["status"] !== undefined) out["status"] = old["status"];
    else delete out["status"];
    return out;
  },
  validateCreate,
  validateUpdate: (next, old) => validateUpdate(next, old, { approval: false, certificate: false }),
  status: {
    prepareForUpdate: (next, old) => ({ ...next, spec: old["spec"] ?? {} }),
    validateUpdate: (next, old) =>
      validateUpdate(next, old, { approval: false, certificate: true }),
  },
  statusSubresources: {
    // csrApprovalStrategy: only the conditions change.
    approval: {
      prepareForUpdate: (next, old) => ({
        ...next,
        spec: old["spec"] ?? {},
        status: { ...objectAt(old, "status"), conditions: conditionsOf(next) },
      }),
      validateUpdate: (next, old) =>
        validateUpdate(next, old, { approval: true, certificate: false }),
    },
  },
};
