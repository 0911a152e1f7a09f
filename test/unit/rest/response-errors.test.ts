import { describe, expect, it } from "vitest";
import {
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInternalError,
  isNotFound,
  isServiceUnavailable,
  isTooManyRequests,
  StatusError,
} from "kubekit";
import {
  decodeResponseStatus,
  errorFromResponse,
  genericServerResponseError,
} from "../../../packages/kubekit/src/rest/response-errors.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const json = { "content-type": "application/json" };
const text = { "content-type": "text/plain; charset=utf-8" };

describe("errorFromResponse with a Status body", () => {
  it("decodes a Status without apiVersion as v1 (client-go's default version)", () => {
    const body = bytes(
      JSON.stringify({ kind: "Status", status: "Failure", reason: "Conflict", message: "busy" }),
    );
    const err = errorFromResponse(409, json, body, { method: "PUT", resource: "pods" });
    expect(isConflict(err)).toBe(true);
    expect(err.status).toMatchObject({ apiVersion: "v1", code: 409, message: "busy" });
    expect(decodeResponseStatus({ kind: "Status", apiVersion: "", code: 404 })).toMatchObject({
      status: "Failure",
      code: 404,
    });
    expect(decodeResponseStatus({ kind: "Status", apiVersion: "v2" })).toBeUndefined();
    expect(decodeResponseStatus({ kind: "Pod" })).toBeUndefined();
  });

  it("uses the Status as sent", () => {
    const body = bytes(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods "x" not found',
        reason: "NotFound",
        details: { name: "x", kind: "pods" },
        code: 404,
      }),
    );
    const err = errorFromResponse(404, json, body, { method: "GET", resource: "pods", name: "x" });
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe('pods "x" not found');
    expect(err.status.details).toEqual({ name: "x", kind: "pods" });
  });

  it("takes a missing code from the response and retryAfterSeconds from the Retry-After header", () => {
    const body = bytes(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "TooManyRequests",
        message: "slow down",
      }),
    );
    const err = errorFromResponse(429, { ...json, "retry-after": "3" }, body, { method: "GET" });
    expect(err.code).toBe(429);
    expect(err.retryAfterSeconds).toBe(3);
    expect(isTooManyRequests(err)).toBe(true);
  });

  it("keeps details.retryAfterSeconds over the header", () => {
    const body = bytes(
      JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        reason: "ServerTimeout",
        details: { retryAfterSeconds: 7 },
        code: 500,
      }),
    );
    const err = errorFromResponse(500, { ...json, "retry-after": "1" }, body, { method: "GET" });
    expect(err.retryAfterSeconds).toBe(7);
  });
});

describe("errorFromResponse with a body that is not a Status", () => {
  it("404 plain text: NotFound with client-go's message, suffix, and the text as the cause", () => {
    const err = errorFromResponse(404, text, bytes("404 page not found\n"), {
      method: "GET",
      group: "apps",
      resource: "deployments",
      name: "web",
    });
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe(
      "the server could not find the requested resource (get deployments.apps web)",
    );
    expect(err.status.details).toEqual({
      name: "web",
      group: "apps",
      kind: "deployments",
      causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }],
    });
  });

  it("429 from priority and fairness: TooManyRequests with Retry-After", () => {
    const err = errorFromResponse(
      429,
      { ...text, "retry-after": "1" },
      bytes("Too many requests, please try again later.\n"),
      { method: "GET", resource: "pods" },
    );
    expect(isTooManyRequests(err)).toBe(true);
    expect(err.message).toBe(
      "the server has received too many requests and has asked us to try again later (get pods)",
    );
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.status.details?.causes?.[0]?.message).toBe(
      "Too many requests, please try again later.",
    );
  });

  it("does not keep the text of non-text bodies (the server message is 'unknown')", () => {
    const err = errorFromResponse(503, { "content-type": "text/html" }, bytes("<h1>x</h1>"), {
      method: "GET",
    });
    expect(err.status.details?.causes?.[0]?.message).toBe("<h1>x</h1>");
    const binary = errorFromResponse(
      503,
      { "content-type": "application/octet-stream" },
      bytes("xyz"),
      {
        method: "GET",
      },
    );
    expect(isServiceUnavailable(binary)).toBe(true);
    expect(binary.message).toBe("the server is currently unable to handle the request");
    expect(binary.status.details?.causes?.[0]?.message).toBe("unknown");
  });

  it("maps 409 to AlreadyExists for POST and Conflict otherwise", () => {
    const post = errorFromResponse(409, text, bytes("dup"), { method: "POST" });
    const put = errorFromResponse(409, text, bytes("dup"), { method: "PUT" });
    expect(isAlreadyExists(post)).toBe(true);
    expect(isConflict(put)).toBe(true);
    expect(put.message).toBe("the server reported a conflict");
  });

  it("keeps the server text for 403 and wraps it for other 5xx", () => {
    const forbidden = errorFromResponse(403, text, bytes("nope"), { method: "GET" });
    expect(isForbidden(forbidden)).toBe(true);
    expect(forbidden.message).toBe("nope");
    const bad = errorFromResponse(502, text, bytes('bad "gateway"'), { method: "GET" });
    expect(isInternalError(bad)).toBe(true);
    expect(bad.message).toBe(
      'an error on the server ("bad \\"gateway\\"") has prevented the request from succeeding',
    );
  });

  it("caps the kept text at 2 KiB", () => {
    const err = errorFromResponse(500, text, bytes("y".repeat(5000)), { method: "GET" });
    expect(err.status.details?.causes?.[0]?.message).toHaveLength(2048);
  });

  it("treats an empty body and a Success Status like any non-Status body", () => {
    const empty = errorFromResponse(418, {}, new Uint8Array(), { method: "GET" });
    expect(empty.code).toBe(418);
    expect(empty.reason).toBe("");
    expect(empty.message).toBe(
      "the server responded with the status code 418 but did not return more information",
    );
    const success = errorFromResponse(
      404,
      json,
      bytes('{"kind":"Status","apiVersion":"v1","status":"Success"}'),
      { method: "GET" },
    );
    expect(success.message).toBe("the server could not find the requested resource");
  });
});

describe("genericServerResponseError", () => {
  it("gives client-go's messages per code", () => {
    const cases: [number, string][] = [
      [400, "the server rejected our request for an unknown reason"],
      [401, "the server has asked for the client to provide credentials"],
      [405, "the server does not allow this method on the requested resource"],
      [406, "the server was unable to respond with a content type that the client supports"],
      [422, "the server rejected our request due to an error in our request"],
      [
        504,
        "the server was unable to return a response in the time allotted, but may still be processing the request",
      ],
    ];
    for (const [code, message] of cases) {
      expect(
        genericServerResponseError(code, { method: "GET" }, "unknown", undefined).message,
      ).toBe(message);
    }
  });

  it("omits retryAfterSeconds when zero or absent", () => {
    const err = genericServerResponseError(429, { method: "GET" }, "x", 0);
    expect(err.status.details?.retryAfterSeconds).toBeUndefined();
    expect(err.retryAfterSeconds).toBeUndefined();
  });
});
