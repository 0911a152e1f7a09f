import { describe, expect, it } from "vitest";
import {
  ErrorChannelBuffer,
  MAX_ERROR_CHANNEL_BYTES,
} from "../../../packages/kubekit/src/client/error-channel-buffer.js";
import {
  MAX_EXCERPT_BYTES,
  textExcerpt,
} from "../../../packages/kubekit/src/client/text-excerpt.js";

describe("textExcerpt", () => {
  it("is the whole text up to the limit, as bytes or a string", () => {
    const text = "é".repeat(MAX_EXCERPT_BYTES / 2); // exactly the limit in UTF-8
    expect(textExcerpt(Buffer.from(text))).toBe(text);
    expect(textExcerpt(text)).toBe(text);
    expect(textExcerpt("")).toBe("");
  });

  it("cuts longer text to the limit and tells the whole size in bytes", () => {
    const bytes = Buffer.alloc(MAX_EXCERPT_BYTES + 1, "a");
    expect(textExcerpt(bytes)).toBe(`${"a".repeat(MAX_EXCERPT_BYTES)}… (4097 bytes in all)`);
    expect(textExcerpt("b".repeat(1_000_000))).toBe(
      `${"b".repeat(MAX_EXCERPT_BYTES)}… (1000000 bytes in all)`,
    );
  });

  it("leaves out a character cut in two", () => {
    // 3 bytes each: 2 + 1364 × 3 = 4094, so the limit falls inside the 1365th.
    const text = `aa${"€".repeat(MAX_EXCERPT_BYTES)}`;
    const whole = `(${2 + 3 * MAX_EXCERPT_BYTES} bytes in all)`;
    expect(textExcerpt(text)).toBe(`aa${"€".repeat(1364)}… ${whole}`);
    expect(textExcerpt(Buffer.from(text))).toBe(`aa${"€".repeat(1364)}… ${whole}`);
  });

  it("tells the size of a whole it only has the start of", () => {
    expect(textExcerpt(Buffer.from("short"), { totalBytes: 1 << 30 })).toBe(
      "short… (1073741824 bytes in all)",
    );
  });

  it("keeps a quoted excerpt to the limit when escapes make it longer", () => {
    const controls = Buffer.alloc(MAX_EXCERPT_BYTES, 1); // each escaped as \u0001
    const shown = textExcerpt(controls, { quoted: true });
    // 682 escapes of 6 characters fit in 4096
    expect(shown).toBe(`"${"\\u0001".repeat(682)}"… (4096 bytes in all)`);
  });

  it("quotes as JSON on request, the size outside the quotes", () => {
    expect(textExcerpt('say "hi"\n', { quoted: true })).toBe('"say \\"hi\\"\\n"');
    expect(textExcerpt("c".repeat(5000), { quoted: true })).toBe(
      `"${"c".repeat(MAX_EXCERPT_BYTES)}"… (5000 bytes in all)`,
    );
  });
});

describe("ErrorChannelBuffer", () => {
  it("is empty and not received before any message", () => {
    const buffer = new ErrorChannelBuffer();
    expect(buffer.received).toBe(false);
    expect(buffer.totalBytes).toBe(0);
    expect(buffer.truncated).toBe(false);
    expect(buffer.content()).toEqual(Buffer.alloc(0));
  });

  it("counts an empty message as received", () => {
    const buffer = new ErrorChannelBuffer();
    buffer.push(new Uint8Array(0));
    expect(buffer.received).toBe(true);
    expect(buffer.totalBytes).toBe(0);
  });

  it("keeps messages in order up to the limit, counts the rest and drops it", () => {
    const buffer = new ErrorChannelBuffer();
    buffer.push(Buffer.from("ab"));
    buffer.push(Buffer.from("cd"));
    expect(buffer.content().toString()).toBe("abcd");
    buffer.push(Buffer.alloc(MAX_ERROR_CHANNEL_BYTES, "x"));
    buffer.push(Buffer.alloc(1000, "y"));
    expect(buffer.content().length).toBe(MAX_ERROR_CHANNEL_BYTES);
    expect(buffer.content().subarray(0, 5).toString()).toBe("abcdx");
    expect(buffer.content().includes("y")).toBe(false);
    expect(buffer.totalBytes).toBe(4 + MAX_ERROR_CHANNEL_BYTES + 1000);
    expect(buffer.truncated).toBe(true);
  });

  it("is not truncated at exactly the limit", () => {
    const buffer = new ErrorChannelBuffer();
    buffer.push(Buffer.alloc(MAX_ERROR_CHANNEL_BYTES));
    expect(buffer.truncated).toBe(false);
  });

  it("copies what it keeps: a received message may be reused", () => {
    const buffer = new ErrorChannelBuffer();
    const message = Buffer.from("status");
    buffer.push(message);
    message.fill(0);
    expect(buffer.content().toString()).toBe("status");
  });
});
