import { describe, expect, it } from "vitest";
import {
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
} from "../../../packages/kubekit/src/core/field-errors.js";

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
