import { describe, expect, it } from "vitest";
import {
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
} from "kubekit";
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from "../../../packages/kubekit/src/core/field-errors.js";

const PODS = { group: "", resource: "pods" };
const DEPLOYMENTS = { group: "apps", resource: "deployments" };

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
