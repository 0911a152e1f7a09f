import { readFileSync } from "node:fs";

/** One ```ts block of a Markdown page. */
export interface CodeBlock {
  /** The page, relative to the repository root (`docs/clients.md`). */
  readonly page: string;
  /** The 1-based line of the page where the block's code starts (after the fence). */
  readonly line: number;
  /** The block's code. */
  readonly code: string;
  /** Why the block is only type-checked (its `<!-- no-run: reason -->` marker), if it is. */
  readonly noRun: string | undefined;
  /** A file name for the block: the page's and the line's (`clients-md-57.ts`). */
  readonly fileName: string;
}

const OPENING_FENCE = /^```(?:ts|typescript)\s*$/;
const CLOSING_FENCE = /^```\s*$/;
const NO_RUN_MARKER = /^<!--\s*no-run:\s*(.+?)\s*-->$/;

/**
 * Every top-level ```ts (or ```typescript) block of a Markdown page, in order, with the
 * `<!-- no-run: reason -->` marker of the last non-blank line before its fence.
 *
 * @throws {Error} when a block is never closed.
 */
export function codeBlocksOf(root: string, page: string): CodeBlock[] {
  const lines = readFileSync(`${root}/${page}`, "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!OPENING_FENCE.test(lines[i] ?? "")) continue;
    let previous = i - 1;
    while (previous >= 0 && (lines[previous] ?? "").trim() === "") previous--;
    const marker = NO_RUN_MARKER.exec((lines[previous] ?? "").trim());
    const end = lines.findIndex((text, j) => j > i && CLOSING_FENCE.test(text));
    if (end < 0) throw new Error(`${page}:${i + 1}: the code block is never closed`);
    blocks.push({
      page,
      line: i + 2,
      code: lines.slice(i + 1, end).join("\n") + "\n",
      noRun: marker?.[1],
      fileName: `${page.replace(/\W/g, "-")}-${i + 2}.ts`,
    });
    i = end;
  }
  return blocks;
}

const EXAMPLE_TAG = /^\s*\*\s*@example\s*$/;
const COMMENT_LINE = /^\s*\*( ?)(.*)$/;

/**
 * The ```ts blocks of the `@example` tags of a TypeScript source's TSDoc comments, with the
 * comment's `* ` prefixes removed; never run (`noRun` says so).
 *
 * @throws {Error} when an example's block is never closed.
 */
export function exampleBlocksOf(root: string, source: string): CodeBlock[] {
  const lines = readFileSync(`${root}/${source}`, "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!EXAMPLE_TAG.test(lines[i] ?? "")) continue;
    const text = (j: number): string => COMMENT_LINE.exec(lines[j] ?? "")?.[2] ?? "";
    const open = i + 1;
    if (!OPENING_FENCE.test(text(open))) continue;
    let end = open + 1;
    while (end < lines.length && !CLOSING_FENCE.test(text(end))) {
      if (!COMMENT_LINE.test(lines[end] ?? "")) {
        throw new Error(`${source}:${open + 1}: the @example's code block is never closed`);
      }
      end++;
    }
    const code = Array.from({ length: end - open - 1 }, (_, k) => text(open + 1 + k));
    blocks.push({
      page: source,
      line: open + 2,
      code: code.join("\n") + "\n",
      noRun: "an @example in TSDoc",
      fileName: `${source.replace(/\W/g, "-")}-${open + 2}.ts`,
    });
    i = end;
  }
  return blocks;
}
