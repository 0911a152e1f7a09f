import { describe, expect, it } from "vitest";
import {
  isKindFile,
  kindRulesDrift,
  parseKindHeader,
  readKindRules,
  renderKindRulesPage,
} from "../../../tools/generate-kind-rules.js";

/**
 * The per-kind rules page (`docs/apiserver-kind-rules.md`) is generated from the kind files'
 * module headers: this fails when the committed page is not what the sources produce.
 */

describe("docs/apiserver-kind-rules.md", () => {
  it("is what the kinds' module headers produce (run the generator with --update)", async () => {
    expect(await kindRulesDrift()).toBeUndefined();
  });

  it("has a row for every kind file, each with its @kind", async () => {
    const rows = await readKindRules();
    const files = rows.map((r) => r.file);
    expect(files).toContain("pod.ts");
    expect(files).toContain("generic.ts");
    expect(files).not.toContain("pod-spec.ts");
    expect(files).not.toContain("kind-strategy.ts");
    expect(rows.at(-1)?.file).toBe("generic.ts");
    expect(rows.find((r) => r.file === "pod.ts")).toMatchObject({
      kind: "Pod",
      defaults: expect.stringContaining("restartPolicy Always"),
      validation: expect.stringContaining("containers required"),
      update: expect.stringContaining("spec immutable"),
      delete: expect.stringContaining("graceful"),
    });
  });
});

describe("parseKindHeader", () => {
  const source = [
    "/**",
    " * Widgets (`pkg/registry/example/widget/strategy.go`).",
    " *",
    " * @kind Widget",
    " * @defaults size 1,",
    " * color red",
    " * @validation size | color",
    " */",
    "/** Not the header: @update ignored. */",
    "export const widgetStrategy: KindStrategy = {};",
  ].join("\n");

  it("reads the tags of the first doc comment, joining continuation lines", () => {
    expect(isKindFile(source)).toBe(true);
    expect(parseKindHeader("widget.ts", source)).toEqual({
      file: "widget.ts",
      kind: "Widget",
      defaults: "size 1, color red",
      validation: "size | color",
    });
  });

  it("escapes `|` in table cells and shows a dash for a missing tag", () => {
    const page = renderKindRulesPage([parseKindHeader("widget.ts", source)]);
    expect(page).toContain(
      "| Widget | size 1, color red | size \\| color | — | — | [`widget.ts`](../packages/apiserver/src/kinds/widget.ts) |",
    );
  });

  it("rejects a kind file without @kind, an unknown tag and a repeated one", () => {
    expect(() => parseKindHeader("a.ts", "/** Nothing. */")).toThrow(
      "a.ts: a kind file needs a @kind tag",
    );
    expect(() => parseKindHeader("b.ts", "/**\n * @kind B\n * @default x\n */")).toThrow(
      "b.ts: unknown tag @default",
    );
    expect(() => parseKindHeader("c.ts", "/**\n * @kind C\n * @kind D\n */")).toThrow(
      "c.ts: @kind appears twice",
    );
  });

  it("tells helpers from kind files", () => {
    expect(isKindFile("export function objectAt(): void {}")).toBe(false);
  });
});
