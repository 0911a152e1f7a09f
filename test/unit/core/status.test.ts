import { describe, expect, it } from "vitest";
import type { Status, StatusReason } from "../../../src/core/status.js";
import {
  StatusError,
  decodeStatus,
  fieldDuplicate,
  fieldErrorBody,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  formatFieldError,
  formatFieldErrors,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isStatus,
  isTimeout,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  newAlreadyExists,
  newApplyConflict,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenerateNameConflict,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  quoteGo,
  reasonOf,
  suggestsClientDelay,
} from "../../../src/core/status.js";

const PODS = { group: "", resource: "pods" };
const DEPLOYMENTS = { group: "apps", resource: "deployments" };

/** A StatusError as a client would decode it from an arbitrary wire body. */
function wire(code: number, reason?: string, extra: Partial<Status> = {}): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    ...(reason !== undefined ? { reason: reason as StatusReason } : {}),
    code,
    ...extra,
  });
}

describe("builders: exact kube-apiserver bodies", () => {
  it("newNotFound matches the wire JSON byte for byte", () => {
    expect(JSON.stringify(newNotFound(PODS, "x").status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}',
    );
    const e = newNotFound(DEPLOYMENTS, "web");
    expect(e.message).toBe('deployments.apps "web" not found');
    expect(e.status.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
    expect(e.code).toBe(404);
    expect(e.reason).toBe("NotFound");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("StatusError");
  });

  it("newAlreadyExists", () => {
    const e = newAlreadyExists(PODS, "x");
    expect(e.status).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message: 'pods "x" already exists',
      details: { name: "x", kind: "pods" },
    });
  });

  it("newGenerateNameConflict", () => {
    const e = newGenerateNameConflict(PODS, "web-x7k2p", 1);
    expect(e.status).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message:
        'pods "web-x7k2p" already exists, the server was not able to generate a unique name for the object',
      details: { name: "web-x7k2p", kind: "pods", retryAfterSeconds: 1 },
    });
    expect(e.retryAfterSeconds).toBe(1);
  });

  it("newConflict", () => {
    const e = newConflict(
      DEPLOYMENTS,
      "web",
      "the object has been modified; please apply your changes to the latest version and try again",
    );
    expect(e.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(e.status.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
    expect(e.status.code).toBe(409);
    expect(e.status.reason).toBe("Conflict");
  });

  it("newApplyConflict with one conflict matches the documented body", () => {
    const e = newApplyConflict([
      { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", field: ".spec.replicas" },
    ]);
    expect(JSON.stringify(e.status)).toBe(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas',
        reason: "Conflict",
        details: {
          causes: [
            {
              reason: "FieldManagerConflict",
              message: 'conflict with "kubectl" using apps/v1',
              field: ".spec.replicas",
            },
          ],
        },
        code: 409,
      }),
    );
  });

  it("newApplyConflict groups several conflicts by manager, sorted", () => {
    const e = newApplyConflict([
      { manager: "zeta", operation: "Apply", field: ".a" },
      {
        manager: "alpha",
        operation: "Update",
        apiVersion: "v1",
        field: ".b",
        subresource: "status",
      },
      { manager: "zeta", operation: "Apply", field: ".c" },
    ]);
    expect(e.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha" with subresource "status" using v1:\n- .b\nconflicts with "zeta":\n- .a\n- .c',
    );
    expect(e.status.details?.causes).toEqual([
      { reason: "FieldManagerConflict", message: 'conflict with "zeta"', field: ".a" },
      {
        reason: "FieldManagerConflict",
        message: 'conflict with "alpha" with subresource "status" using v1',
        field: ".b",
      },
      { reason: "FieldManagerConflict", message: 'conflict with "zeta"', field: ".c" },
    ]);
    expect(
      newApplyConflict([
        {
          manager: "m",
          operation: "Update",
          apiVersion: "v1",
          time: "2024-05-01T12:00:00Z",
          field: ".x",
        },
      ]).message,
    ).toBe('Apply failed with 1 conflict: conflict with "m" using v1 at 2024-05-01T12:00:00Z: .x');
  });

  it("newInvalid with one error", () => {
    const e = newInvalid({ group: "apps", kind: "Deployment" }, "web", [
      fieldInvalid("spec.replicas", -1, "must be greater than or equal to 0"),
    ]);
    expect(JSON.stringify(e.status)).toBe(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        reason: "Invalid",
        details: {
          name: "web",
          group: "apps",
          kind: "Deployment",
          causes: [
            {
              reason: "FieldValueInvalid",
              message: "Invalid value: -1: must be greater than or equal to 0",
              field: "spec.replicas",
            },
          ],
        },
        code: 422,
      }),
    );
  });

  it("newInvalid with several errors, no errors, and an empty name", () => {
    const two = newInvalid({ group: "", kind: "Pod" }, "x", [
      fieldRequired("metadata.name", "name or generateName is required"),
      fieldNotSupported("spec.restartPolicy", "Sometimes", ["Always", "OnFailure", "Never"]),
    ]);
    expect(two.message).toBe(
      'Pod "x" is invalid: [metadata.name: Required value: name or generateName is required, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]',
    );
    expect(two.status.details?.causes?.map((c) => c.reason)).toEqual([
      "FieldValueRequired",
      "FieldValueNotSupported",
    ]);
    expect(newInvalid({ group: "", kind: "Pod" }, "x", []).message).toBe('Pod "x" is invalid');
    expect(newInvalid({ group: "", kind: "Pod" }, "x", []).status.details).toEqual({
      name: "x",
      kind: "Pod",
    });
    const opts = newInvalid({ group: "meta.k8s.io", kind: "CreateOptions" }, "", [
      fieldNotSupported("dryRun", ["x"], ["All"]),
    ]);
    expect(opts.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]: supported values: "All"',
    );
    expect(opts.status.details).toEqual({
      group: "meta.k8s.io",
      kind: "CreateOptions",
      causes: [
        {
          reason: "FieldValueNotSupported",
          message: 'Unsupported value: ["x"]: supported values: "All"',
          field: "dryRun",
        },
      ],
    });
  });

  it("newInvalid collapses duplicate messages but keeps every cause", () => {
    const err = fieldRequired("spec.x");
    const e = newInvalid({ group: "", kind: "Pod" }, "p", [err, err]);
    expect(e.message).toBe('Pod "p" is invalid: spec.x: Required value');
    expect(e.status.details?.causes).toHaveLength(2);
  });

  it("newBadRequest, newUnauthorized", () => {
    expect(newBadRequest("oops").status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "oops",
      reason: "BadRequest",
      code: 400,
    });
    expect(newUnauthorized("Unauthorized").status).toMatchObject({
      code: 401,
      message: "Unauthorized",
    });
    expect(newUnauthorized("").message).toBe("not authorized");
  });

  it("newForbidden in its three forms", () => {
    const e = newForbidden(
      PODS,
      "x",
      "unable to create new content in namespace ns because it is being terminated",
    );
    expect(e.message).toBe(
      'pods "x" is forbidden: unable to create new content in namespace ns because it is being terminated',
    );
    expect(e.status).toMatchObject({
      code: 403,
      reason: "Forbidden",
      details: { name: "x", kind: "pods" },
    });
    expect(
      newForbidden(
        PODS,
        "",
        'User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
      ).message,
    ).toBe(
      'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    expect(newForbidden({ group: "", resource: "" }, "", "nope").message).toBe("forbidden: nope");
  });

  it("newMethodNotSupported", () => {
    const e = newMethodNotSupported({ group: "example.com", resource: "foos" }, "watch");
    expect(e.message).toBe('watch is not supported on resources of kind "foos.example.com"');
    expect(e.status).toMatchObject({
      code: 405,
      reason: "MethodNotAllowed",
      details: { group: "example.com", kind: "foos" },
    });
    expect(e.status.details?.name).toBeUndefined();
  });

  it("newGone and newResourceExpired", () => {
    expect(newGone("gone").status).toMatchObject({ code: 410, reason: "Gone", message: "gone" });
    expect(
      JSON.stringify(
        newResourceExpired("The resourceVersion for the provided list is too old.").status,
      ),
    ).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided list is too old.","reason":"Expired","code":410}',
    );
  });

  it("newTooManyRequests", () => {
    expect(newTooManyRequests("slow down", 2).status).toMatchObject({
      code: 429,
      reason: "TooManyRequests",
      message: "slow down",
      details: { retryAfterSeconds: 2 },
    });
    expect(newTooManyRequests("x", 0).status.details).toEqual({});
  });

  it("newInternalError", () => {
    const e = newInternalError("boom");
    expect(e.message).toBe("Internal error occurred: boom");
    expect(e.status).toMatchObject({
      code: 500,
      reason: "InternalError",
      details: { causes: [{ message: "boom" }] },
    });
  });

  it("newServiceUnavailable", () => {
    expect(newServiceUnavailable("apiserver is shutting down").status).toMatchObject({
      code: 503,
      reason: "ServiceUnavailable",
      message: "apiserver is shutting down",
    });
  });

  it("newTimeout", () => {
    const e = newTimeout("request did not complete within the allotted timeout", 0);
    expect(e.message).toBe("Timeout: request did not complete within the allotted timeout");
    expect(e.status).toMatchObject({ code: 504, reason: "Timeout", details: {} });
    expect(newTimeout("x", 3).retryAfterSeconds).toBe(3);
  });

  it("newTooLargeResourceVersion matches the documented body", () => {
    expect(JSON.stringify(newTooLargeResourceVersion(500, "400", 1).status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 500, current: 400","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}',
    );
  });

  it("media type and size errors", () => {
    const patch = newUnsupportedMediaType(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    expect(patch.status).toMatchObject({ code: 415, reason: "UnsupportedMediaType" });
    expect(patch.message).toMatch(/^the body of the request/);
    expect(newRequestEntityTooLarge("limit is 3145728").status).toMatchObject({
      code: 413,
      reason: "RequestEntityTooLarge",
      message: "Request entity too large: limit is 3145728",
    });
    expect(
      newNotAcceptable("only the following media types are accepted: application/json").status,
    ).toMatchObject({
      code: 406,
      reason: "NotAcceptable",
      message: "only the following media types are accepted: application/json",
    });
  });

  it("newServerTimeout", () => {
    const e = newServerTimeout({ group: "", resource: "pods" }, "POST", 2);
    expect(e.message).toBe(
      "The POST operation against pods could not be completed at this time, please try again.",
    );
    expect(e.status).toMatchObject({
      code: 500,
      reason: "ServerTimeout",
      details: { name: "POST", kind: "pods", retryAfterSeconds: 2 },
    });
  });

  it("Go-quotes names in messages", () => {
    expect(newNotFound(PODS, 'a"b\n').message).toBe('pods "a\\"b\\n" not found');
  });
});

describe("StatusError accessors", () => {
  it("exposes code, reason and retryAfterSeconds", () => {
    const e = wire(404, "");
    expect(e.code).toBe(404);
    expect(e.reason).toBe("NotFound");
    expect(e.retryAfterSeconds).toBeUndefined();
    expect(e.message).toBe("");
    expect(wire(500, "", { details: { retryAfterSeconds: 0 } }).retryAfterSeconds).toBeUndefined();
  });
});

describe("reasonOf and predicates", () => {
  it("uses a known reason as is", () => {
    expect(reasonOf(newNotFound(PODS, "x"))).toBe("NotFound");
    expect(reasonOf(wire(500, "StorageReadError"))).toBe("StorageReadError");
    // A known reason wins over the code.
    expect(reasonOf(wire(404, "Conflict"))).toBe("Conflict");
  });

  it("infers the reason from the code when empty or unknown", () => {
    const table: [number, StatusReason][] = [
      [400, "BadRequest"],
      [401, "Unauthorized"],
      [403, "Forbidden"],
      [404, "NotFound"],
      [405, "MethodNotAllowed"],
      [406, "NotAcceptable"],
      [409, "Conflict"],
      [410, "Gone"],
      [413, "RequestEntityTooLarge"],
      [415, "UnsupportedMediaType"],
      [422, "Invalid"],
      [429, "TooManyRequests"],
      [500, "InternalError"],
      [503, "ServiceUnavailable"],
      [504, "Timeout"],
    ];
    for (const [code, reason] of table) {
      expect(reasonOf(wire(code))).toBe(reason);
      expect(reasonOf(wire(code, ""))).toBe(reason);
      expect(reasonOf(wire(code, "SomethingNew"))).toBe(reason);
    }
    expect(reasonOf(wire(418))).toBe("");
    expect(reasonOf(wire(502, ""))).toBe("");
  });

  it("is empty for anything but a StatusError", () => {
    expect(reasonOf(new Error("x"))).toBe("");
    expect(reasonOf(undefined)).toBe("");
    expect(reasonOf(newNotFound(PODS, "x").status)).toBe("");
  });

  it("each predicate accepts its reason and its code with an unknown reason", () => {
    const cases: [(e: unknown) => boolean, StatusReason, number][] = [
      [isNotFound, "NotFound", 404],
      [isConflict, "Conflict", 409],
      [isInvalid, "Invalid", 422],
      [isBadRequest, "BadRequest", 400],
      [isUnauthorized, "Unauthorized", 401],
      [isForbidden, "Forbidden", 403],
      [isGone, "Gone", 410],
      [isInternalError, "InternalError", 500],
      [isTimeout, "Timeout", 504],
      [isServiceUnavailable, "ServiceUnavailable", 503],
      [isMethodNotSupported, "MethodNotAllowed", 405],
      [isNotAcceptable, "NotAcceptable", 406],
      [isUnsupportedMediaType, "UnsupportedMediaType", 415],
      [isTooManyRequests, "TooManyRequests", 429],
      [isRequestEntityTooLarge, "RequestEntityTooLarge", 413],
    ];
    for (const [pred, reason, code] of cases) {
      expect(pred(wire(code, reason)), `${reason}`).toBe(true);
      expect(pred(wire(code)), `${code}`).toBe(true);
      const other = reason === "BadRequest" ? wire(401, "Unauthorized") : wire(400, "BadRequest");
      expect(pred(other), `not ${reason}`).toBe(false);
      expect(pred(new Error(reason)), `plain Error ${reason}`).toBe(false);
      expect(pred(wire(code).status), `raw Status ${reason}`).toBe(false);
    }
  });

  it("a known but different reason beats the code, except for 429 and 413", () => {
    expect(isNotFound(wire(404, "Forbidden"))).toBe(false);
    expect(isTooManyRequests(wire(429, "Timeout"))).toBe(true);
    expect(isRequestEntityTooLarge(wire(413, "BadRequest"))).toBe(true);
  });

  it("isAlreadyExists and isServerTimeout check the reason only", () => {
    expect(isAlreadyExists(newAlreadyExists(PODS, "x"))).toBe(true);
    expect(isAlreadyExists(wire(409))).toBe(false);
    expect(isConflict(newAlreadyExists(PODS, "x"))).toBe(false);
    expect(isServerTimeout(newServerTimeout(PODS, "GET", 1))).toBe(true);
    expect(isServerTimeout(wire(500))).toBe(false);
    expect(isInternalError(newServerTimeout(PODS, "GET", 1))).toBe(false);
  });

  it("isResourceExpired accepts Expired, Gone, and any 410", () => {
    expect(isResourceExpired(newResourceExpired("too old"))).toBe(true);
    expect(isResourceExpired(newGone("gone"))).toBe(true);
    expect(isResourceExpired(wire(410))).toBe(true);
    expect(isResourceExpired(wire(410, "Invalid"))).toBe(true);
    expect(isResourceExpired(newNotFound(PODS, "x"))).toBe(false);
    expect(isGone(newResourceExpired("too old"))).toBe(false);
  });

  it("isTooLargeResourceVersion by cause, cause message, or status message", () => {
    expect(isTooLargeResourceVersion(newTooLargeResourceVersion(5, 4, 1))).toBe(true);
    expect(isTimeout(newTooLargeResourceVersion(5, 4, 1))).toBe(true);
    expect(
      isTooLargeResourceVersion(
        wire(504, "Timeout", { details: { causes: [{ message: "Too large resource version" }] } }),
      ),
    ).toBe(true);
    expect(
      isTooLargeResourceVersion(
        wire(504, "Timeout", { message: "Timeout: Too large resource version: 9" }),
      ),
    ).toBe(true);
    expect(
      isTooLargeResourceVersion(
        wire(500, "InternalError", { message: "Too large resource version" }),
      ),
    ).toBe(false);
    expect(isTooLargeResourceVersion(newTimeout("slow", 0))).toBe(false);
    expect(isTooLargeResourceVersion(new Error("Too large resource version"))).toBe(false);
  });

  it("suggestsClientDelay follows client-go", () => {
    expect(suggestsClientDelay(newTooManyRequests("x", 3))).toBe(3);
    expect(suggestsClientDelay(newTooManyRequests("x", 0))).toBeUndefined();
    expect(suggestsClientDelay(newServerTimeout(PODS, "GET", 0))).toBe(0);
    expect(suggestsClientDelay(newServerTimeout(PODS, "GET", 4))).toBe(4);
    expect(suggestsClientDelay(newTimeout("x", 1))).toBe(1);
    expect(suggestsClientDelay(newGenerateNameConflict(PODS, "x", 1))).toBe(1);
    expect(suggestsClientDelay(newBadRequest("x"))).toBeUndefined();
    expect(suggestsClientDelay(new Error("x"))).toBeUndefined();
  });
});

describe("isStatus and decodeStatus", () => {
  it("isStatus recognizes complete Status objects only", () => {
    expect(isStatus(newNotFound(PODS, "x").status)).toBe(true);
    expect(
      isStatus({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 }),
    ).toBe(true);
    expect(isStatus({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" })).toBe(
      false,
    );
    expect(
      isStatus({ kind: "Pod", apiVersion: "v1", metadata: {}, status: "Failure", code: 1 }),
    ).toBe(false);
    expect(
      isStatus({ kind: "Status", apiVersion: "v2", metadata: {}, status: "Failure", code: 1 }),
    ).toBe(false);
    expect(isStatus(null)).toBe(false);
    expect(isStatus([])).toBe(false);
    expect(isStatus("Status")).toBe(false);
  });

  it("decodeStatus fills in what a success Status omits", () => {
    const s = decodeStatus({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "x", group: "example.com", kind: "foos", uid: "u1" },
    });
    expect(s).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "x", group: "example.com", kind: "foos", uid: "u1" },
      code: 0,
    });
    expect(isStatus(s)).toBe(true);
  });

  it("decodeStatus round-trips a failure and keeps unknown reasons", () => {
    const original = newTooLargeResourceVersion(5, 4, 1).status;
    expect(decodeStatus(JSON.parse(JSON.stringify(original)))).toEqual(original);
    const odd = decodeStatus({
      kind: "Status",
      apiVersion: "meta.k8s.io/v1",
      code: 404,
      reason: "Weird",
    });
    expect(odd).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Weird",
      code: 404,
    });
    expect(reasonOf(new StatusError(odd as Status))).toBe("NotFound");
  });

  it("decodeStatus keeps list metadata and drops mistyped fields", () => {
    const s = decodeStatus({
      kind: "Status",
      apiVersion: "v1",
      metadata: { continue: "tok", resourceVersion: 5 },
      status: "Failure",
      message: 7,
      code: 410,
      details: { causes: [{ reason: "R", field: 3 }, "junk"], retryAfterSeconds: "1" },
    });
    expect(s).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: { continue: "tok" },
      status: "Failure",
      details: { causes: [{ reason: "R" }] },
      code: 410,
    });
  });

  it("decodeStatus rejects non-Status values", () => {
    expect(decodeStatus({ kind: "Pod", apiVersion: "v1" })).toBeUndefined();
    expect(decodeStatus({ kind: "Status", apiVersion: "v2" })).toBeUndefined();
    expect(decodeStatus("x")).toBeUndefined();
  });
});

describe("field errors", () => {
  it("formats each type like apimachinery", () => {
    expect(
      formatFieldError(fieldRequired("metadata.name", "name or generateName is required")),
    ).toBe("metadata.name: Required value: name or generateName is required");
    expect(formatFieldError(fieldRequired("spec.x"))).toBe("spec.x: Required value");
    expect(
      formatFieldError(fieldInvalid("spec.replicas", -1, "must be greater than or equal to 0")),
    ).toBe("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
    expect(formatFieldError(fieldInvalid("metadata.name", "Foo", "bad"))).toBe(
      'metadata.name: Invalid value: "Foo": bad',
    );
    expect(
      formatFieldError(fieldForbidden("force", "may not be specified for non-apply patch")),
    ).toBe("force: Forbidden: may not be specified for non-apply patch");
    expect(formatFieldError(fieldNotSupported("dryRun", ["x"], ["All"]))).toBe(
      'dryRun: Unsupported value: ["x"]: supported values: "All"',
    );
    expect(formatFieldError(fieldNotSupported("x", "y", []))).toBe('x: Unsupported value: "y"');
    expect(formatFieldError(fieldDuplicate("spec.ports[1]", 80))).toBe(
      "spec.ports[1]: Duplicate value: 80",
    );
    expect(formatFieldError(fieldNotFound("spec.x", "y"))).toBe('spec.x: Not found: "y"');
    expect(formatFieldError(fieldTooLong("metadata.annotations", "x".repeat(10), 262144))).toBe(
      "metadata.annotations: Too long: may not be more than 262144 bytes",
    );
    expect(fieldErrorBody(fieldTooLong("a", "", 1))).toBe("Too long: may not be more than 1 byte");
    expect(fieldErrorBody(fieldTooLong("a", "", -1))).toBe("Too long: value is too long");
    expect(fieldErrorBody(fieldTooMany("a", 5, 3))).toBe("Too many: 5: must have at most 3 items");
    expect(fieldErrorBody(fieldTooMany("a", -1, 1))).toBe("Too many: must have at most 1 item");
    expect(fieldErrorBody(fieldTooMany("a", 2, -1))).toBe("Too many: 2: has too many items");
    expect(fieldErrorBody(fieldTypeInvalid("a", true, "expected string"))).toBe(
      "Invalid value: true: expected string",
    );
    expect(fieldErrorBody(fieldInternalError("a", "boom"))).toBe("Internal error: boom");
  });

  it("carries the type, field, value and detail", () => {
    expect(fieldInvalid("a", 1, "d")).toEqual({
      type: "FieldValueInvalid",
      field: "a",
      badValue: 1,
      detail: "d",
    });
    expect(fieldRequired("a")).toEqual({ type: "FieldValueRequired", field: "a" });
  });

  it("prints values as Go does", () => {
    const body = (v: unknown) => fieldErrorBody(fieldInvalid("f", v, ""));
    expect(body(0)).toBe("Invalid value: 0");
    expect(body(1.5)).toBe("Invalid value: 1.5");
    expect(body(1e-5)).toBe("Invalid value: 1e-05");
    expect(body(1234567.5)).toBe("Invalid value: 1.2345675e+06");
    expect(body(123456.5)).toBe("Invalid value: 123456.5");
    expect(body(9007199254740991)).toBe("Invalid value: 9007199254740991");
    expect(body(false)).toBe("Invalid value: false");
    expect(body(null)).toBe("Invalid value: null");
    expect(body(undefined)).toBe("Invalid value");
    expect(body({ b: 1, a: "<x>" })).toBe('Invalid value: {"a":"\\u003cx\\u003e","b":1}');
    expect(body(["a", 1, null])).toBe('Invalid value: ["a",1,null]');
    expect(body("tab\there")).toBe('Invalid value: "tab\\there"');
  });

  it("aggregates like Go: none, one, several in brackets, duplicates once", () => {
    const a = fieldRequired("a");
    const b = fieldForbidden("b", "no");
    expect(formatFieldErrors([])).toBe("");
    expect(formatFieldErrors([a])).toBe("a: Required value");
    expect(formatFieldErrors([a, b])).toBe("[a: Required value, b: Forbidden: no]");
    expect(formatFieldErrors([a, a])).toBe("a: Required value");
  });
});

describe("quoteGo", () => {
  it("quotes like strconv.Quote", () => {
    expect(quoteGo("plain")).toBe('"plain"');
    expect(quoteGo('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteGo("\n\t\r\u0007\u0008\u000b\u000c")).toBe('"\\n\\t\\r\\a\\b\\v\\f"');
    expect(quoteGo("\u0000\u001f\u007f")).toBe('"\\x00\\x1f\\x7f"');
    expect(quoteGo("héllo 世界 😀")).toBe('"héllo 世界 😀"');
    expect(quoteGo("\u00a0\u200b")).toBe('"\\u00a0\\u200b"');
    expect(quoteGo("\u{e0001}")).toBe('"\\U000e0001"');
    expect(quoteGo("\ud800")).toBe('"\ufffd"');
  });
});
