import { describe, expect, it } from "vitest";
import {
  type Status,
  type StatusReason,
  newAlreadyExists,
  newBadRequest,
  newGenerateNameConflict,
  newGone,
  newNotFound,
  newResourceExpired,
  newServerTimeout,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  TerminalError,
} from "kubekit";
import {
  StatusError,
  decodeStatus,
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
  reasonOf,
  suggestsClientDelay,
} from "../../../packages/kubekit/src/core/status.js";

const PODS = { group: "", resource: "pods" };

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

describe("predicates on wrapped errors (apimachinery's errors.As)", () => {
  it("look through cause chains, AggregateErrors and TerminalErrors", () => {
    const expired = newResourceExpired("too old resource version: 1 (5)");
    const wrapped = new Error("list failed", { cause: new Error("relist", { cause: expired }) });
    expect(isResourceExpired(wrapped)).toBe(true);
    expect(reasonOf(wrapped)).toBe("Expired");
    expect(isResourceExpired(new TerminalError("gave up", { cause: expired }))).toBe(true);
    const aggregate = new AggregateError([new Error("other"), newNotFound(PODS, "p")], "both");
    expect(isNotFound(aggregate)).toBe(true);
    expect(isNotFound(new Error("outer", { cause: aggregate }))).toBe(true);
    expect(isConflict(new Error("w", { cause: wire(409) }))).toBe(true);
    expect(isTooManyRequests(new Error("w", { cause: wire(429, "Unknown") }))).toBe(true);
    expect(isRequestEntityTooLarge(new Error("w", { cause: wire(413, "Unknown") }))).toBe(true);
    expect(isResourceExpired(new Error("w", { cause: wire(410, "Unknown") }))).toBe(true);
    expect(
      isTooLargeResourceVersion(new Error("w", { cause: newTooLargeResourceVersion(5, 9, 1) })),
    ).toBe(true);
    expect(suggestsClientDelay(new Error("w", { cause: newServerTimeout(PODS, "get", 3) }))).toBe(
      3,
    );
  });

  it("find the first StatusError depth first, and stop at cycles and non-errors", () => {
    const first = new AggregateError([new Error("a", { cause: newNotFound(PODS, "p") })]);
    const both = new AggregateError([first, newAlreadyExists(PODS, "p")]);
    expect(reasonOf(both)).toBe("NotFound");
    const cyclic = new Error("a");
    cyclic.cause = new Error("b", { cause: cyclic });
    expect(reasonOf(cyclic)).toBe("");
    expect(isNotFound(new Error("x", { cause: { status: { code: 404 } } }))).toBe(false);
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
