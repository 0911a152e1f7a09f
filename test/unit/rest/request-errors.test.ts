import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  redactUrl,
  RequestTimeoutError,
  ResponseTooLargeError,
  TransportError,
} from "../../../packages/kubekit/src/rest/request-errors.js";

const URL_WITH_PASSWORD = "https://admin:pw-S3CRET@api.example.com:6443/api/v1/pods";

describe("credentials in request URLs", () => {
  it("are removed from every REST error's message, url and rendering", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:6443"), {
      code: "ECONNREFUSED",
    });
    const errors = [
      new TransportError("GET", URL_WITH_PASSWORD, cause, new Error("earlier")),
      new RequestTimeoutError("GET", URL_WITH_PASSWORD, 1000),
      new ResponseTooLargeError("GET", URL_WITH_PASSWORD, "body", 10),
    ];
    for (const err of errors) {
      const shown = `${err.message} ${err.url} ${String(err)} ${JSON.stringify(err)} ${inspect(err)}`;
      expect(shown).not.toContain("pw-S3CRET");
      expect(shown).not.toContain("admin");
      expect(err.url).toBe("https://api.example.com:6443/api/v1/pods");
    }
    const quoting = new TransportError(
      "GET",
      URL_WITH_PASSWORD,
      new Error(`at ${URL_WITH_PASSWORD}`),
    );
    expect(quoting.message).not.toContain("pw-S3CRET");
    expect(redactUrl("not a url")).toBe("<unparsable URL>");
  });
});
