import { describe, expect, it, vi } from "vitest";
import {
  BytePipe,
  readAll,
} from "../../../../packages/apiserver/src/containers/shell/byte-streams.js";
import { Terminal } from "../../../../packages/apiserver/src/containers/shell/terminal.js";

function terminal(): { term: Terminal; typed: BytePipe; screen: () => string } {
  const out: Buffer[] = [];
  const typed = new BytePipe();
  const term = new Terminal({ write: (d) => (out.push(Buffer.from(d)), Promise.resolve()) }, typed);
  return { term, typed, screen: () => Buffer.concat(out).toString("utf8") };
}

describe("the simulated terminal", () => {
  it("echoes typed bytes, delivers whole edited lines on Enter and ends on Ctrl-D", async () => {
    const { term, typed, screen } = terminal();
    await typed.write("ab\x7fc\rsecond\x15third\r\x04");
    expect((await readAll(term.input)).toString()).toBe("ac\nthird\n");
    expect(screen()).toBe("ab\b \bc\r\nsecond" + "\b \b".repeat(6) + "third\r\n");
  });

  it("erases a whole multi-byte character with one Backspace", async () => {
    const { term, typed } = terminal();
    await typed.write("xé\x7f\r");
    typed.end();
    expect((await readAll(term.input)).toString()).toBe("x\n");
  });

  it("turns \\n into \\r\\n on output", async () => {
    const { term, screen } = terminal();
    await term.output.write("a\nb\n");
    expect(screen()).toBe("a\r\nb\r\n");
  });

  it("sends Ctrl-C to the latest listener only, and drops the line", async () => {
    const { term, typed, screen } = terminal();
    const calls: string[] = [];
    term.onInterrupt(() => calls.push("outer"));
    const remove = term.onInterrupt(() => calls.push("inner"));
    await typed.write("partial\x03");
    await vi.waitFor(() => expect(calls).toEqual(["inner"]));
    remove();
    await typed.write("\x03done\r");
    typed.end();
    expect((await readAll(term.input)).toString()).toBe("done\n");
    expect(calls).toEqual(["inner", "outer"]);
    expect(screen()).toContain("^C\r\n");
  });
});
