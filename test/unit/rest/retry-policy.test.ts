import { describe, expect, it } from "vitest";
import {
  isConnectionResetError,
  isRetryableTransportError,
  isTimeoutError,
  retryAfterHeaderSeconds,
  retryDelaySeconds,
} from "../../../packages/kubekit/src/rest/retry-policy.js";

describe("retryAfterHeaderSeconds", () => {
  it("reads whole seconds and ignores dates and garbage", () => {
    expect(retryAfterHeaderSeconds({ "retry-after": "3" })).toBe(3);
    expect(retryAfterHeaderSeconds({ "retry-after": " 0 " })).toBe(0);
    expect(retryAfterHeaderSeconds({ "retry-after": ["2", "5"] })).toBe(2);
    expect(
      retryAfterHeaderSeconds({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }),
    ).toBeUndefined();
    expect(retryAfterHeaderSeconds({ "retry-after": "1.5" })).toBeUndefined();
    expect(retryAfterHeaderSeconds({ "retry-after": "-1" })).toBeUndefined();
    expect(retryAfterHeaderSeconds({})).toBeUndefined();
  });
});

describe("retryDelaySeconds", () => {
  it("retries only 429 and 5xx carrying a numeric Retry-After", () => {
    expect(retryDelaySeconds(429, { "retry-after": "1" })).toBe(1);
    expect(retryDelaySeconds(500, { "retry-after": "2" })).toBe(2);
    expect(retryDelaySeconds(503, { "retry-after": "4" })).toBe(4);
    expect(retryDelaySeconds(503, {})).toBeUndefined();
    expect(retryDelaySeconds(429, {})).toBeUndefined();
    expect(retryDelaySeconds(409, { "retry-after": "1" })).toBeUndefined();
    expect(retryDelaySeconds(200, { "retry-after": "1" })).toBeUndefined();
  });
});

describe("isConnectionResetError", () => {
  it("recognizes resets and sockets closed before a response, also as a cause", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const closed = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    expect(isConnectionResetError(reset)).toBe(true);
    expect(isConnectionResetError(closed)).toBe(true);
    expect(isConnectionResetError(new Error("fetch failed", { cause: reset }))).toBe(true);
  });

  it("does not retry refused connections or other errors", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(isConnectionResetError(refused)).toBe(false);
    expect(isConnectionResetError(new Error("boom"))).toBe(false);
    expect(isConnectionResetError("ECONNRESET")).toBe(false);
  });
});

describe("isRetryableTransportError", () => {
  const reset = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
  const timeout = Object.assign(new Error("Connect Timeout Error"), {
    code: "UND_ERR_CONNECT_TIMEOUT",
  });
  const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });

  it("follows client-go's rules for Do, Watch and Stream", () => {
    expect(isTimeoutError(timeout)).toBe(true);
    expect(isTimeoutError(reset)).toBe(false);
    expect(isRetryableTransportError("request", "GET", reset)).toBe(true);
    expect(isRetryableTransportError("request", "POST", reset)).toBe(false);
    expect(isRetryableTransportError("request", "GET", timeout)).toBe(false);
    expect(isRetryableTransportError("watch", "GET", reset)).toBe(true);
    expect(isRetryableTransportError("watch", "GET", timeout)).toBe(true);
    expect(isRetryableTransportError("watch", "GET", refused)).toBe(false);
    expect(isRetryableTransportError("none", "GET", reset)).toBe(false);
    expect(isRetryableTransportError("none", "GET", timeout)).toBe(false);
  });
});
