import { describe, expect, it } from "vitest";
import {
  escapeExtraKey,
  impersonationHeaders,
} from "../../../packages/kubekit/src/rest/impersonation-headers.js";

describe("impersonationHeaders", () => {
  it("sends user, uid, one group value per group and one extra value per value", () => {
    expect(
      impersonationHeaders({
        user: "jane",
        uid: "1234",
        groups: ["dev", "ops"],
        extra: { scopes: ["view", "edit"], "reason.example.com/why": ["debug"] },
      }),
    ).toEqual({
      "impersonate-user": "jane",
      "impersonate-uid": "1234",
      "impersonate-group": ["dev", "ops"],
      "impersonate-extra-scopes": ["view", "edit"],
      "impersonate-extra-reason.example.com%2Fwhy": ["debug"],
    });
  });

  it("sends nothing for no impersonation and omits empty fields", () => {
    expect(impersonationHeaders(undefined)).toEqual({});
    expect(impersonationHeaders({ user: "", groups: [], extra: { a: [] } })).toEqual({});
  });
});

describe("escapeExtraKey", () => {
  it("percent-encodes bytes not allowed in header names, and %", () => {
    expect(escapeExtraKey("plain-Key_1.x")).toBe("plain-Key_1.x");
    expect(escapeExtraKey("a/b c%d")).toBe("a%2Fb%20c%25d");
    expect(escapeExtraKey("ü")).toBe("%C3%BC");
  });
});
