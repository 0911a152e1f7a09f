import { describe, expect, it } from "vitest";
import type { Logger } from "kubekit";
import {
  createWarningLogger,
  ignoreWarnings,
  parseWarningHeaders,
} from "../../../packages/kubekit/src/rest/warnings.js";

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: () => undefined,
  };
}

describe("parseWarningHeaders", () => {
  it("decodes UTF-8 text delivered as one Latin-1 character per byte, as Node's HTTP clients do", () => {
    const sent = '299 - "unknown field \\"spec.ñandú\\" — ignored"';
    const received = Buffer.from(sent, "utf8").toString("latin1");
    expect(parseWarningHeaders([received])).toEqual([
      { code: 299, agent: "-", text: 'unknown field "spec.ñandú" — ignored' },
    ]);
    // Bytes that are not UTF-8 stay as they came; plain Latin-1 strings pass unchanged.
    expect(parseWarningHeaders(['299 - "caf\u00e9"'])).toEqual([
      { code: 299, agent: "-", text: "caf\u00e9" },
    ]);
  });

  it("parses kube-apiserver's form, one warning per header value", () => {
    expect(
      parseWarningHeaders([
        '299 - "unknown field \\"spec.foo\\""',
        '299 - "duplicate field \\"x\\""',
      ]),
    ).toEqual([
      { code: 299, agent: "-", text: 'unknown field "spec.foo"' },
      { code: 299, agent: "-", text: 'duplicate field "x"' },
    ]);
  });

  it("parses comma-separated warnings and skips an optional date", () => {
    expect(
      parseWarningHeaders([
        '299 - "a, with comma" "Sat, 01 Jan 2022 00:00:00 GMT", 199 agent.example "b"',
      ]),
    ).toEqual([
      { code: 299, agent: "-", text: "a, with comma" },
      { code: 199, agent: "agent.example", text: "b" },
    ]);
  });

  it("keeps the warnings before a malformed one and drops the rest of that value", () => {
    expect(
      parseWarningHeaders(['299 - "ok", 299 - "bad" junk, 299 - "lost"', '299 - "next"']),
    ).toEqual([
      { code: 299, agent: "-", text: "ok" },
      { code: 299, agent: "-", text: "next" },
    ]);
    expect(parseWarningHeaders(['29 - "short code"', '299 - "unterminated', "299 -"])).toEqual([]);
  });

  it("rejects control characters in the text", () => {
    expect(parseWarningHeaders(['299 - "bell\u0007"'])).toEqual([]);
  });
});

describe("createWarningLogger", () => {
  it("logs each distinct 299 warning once by default", () => {
    const logger = recordingLogger();
    const handle = createWarningLogger(logger);
    handle({ code: 299, agent: "-", text: "a" });
    handle({ code: 299, agent: "-", text: "a" });
    handle({ code: 299, agent: "-", text: "b" });
    expect(logger.warnings).toEqual(["Warning: a", "Warning: b"]);
  });

  it("logs every occurrence without deduplication, and ignores other codes and empty text", () => {
    const logger = recordingLogger();
    const handle = createWarningLogger(logger, { deduplicate: false });
    handle({ code: 299, agent: "-", text: "a" });
    handle({ code: 299, agent: "-", text: "a" });
    handle({ code: 199, agent: "-", text: "misc" });
    handle({ code: 299, agent: "-", text: "" });
    expect(logger.warnings).toEqual(["Warning: a", "Warning: a"]);
  });

  it("ignoreWarnings drops everything", () => {
    expect(() => ignoreWarnings({ code: 299, agent: "-", text: "x" })).not.toThrow();
  });
});
