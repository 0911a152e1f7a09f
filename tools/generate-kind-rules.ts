/**
 * The per-kind rules table of the embedded API server (`docs/apiserver-kind-rules.md`),
 * generated from the module header doc comment of each strategy file under
 * `packages/apiserver/src/kinds/`, so that the table and the code it describes live in one
 * place. A file that declares an exported `KindStrategy` constant is a kind file and must
 * carry these tags in its first doc comment (each runs to the next tag or the comment's end):
 *
 *     @kind        the kind(s) the row is about, as the table names them (required)
 *     @defaults    what defaulting and PrepareForCreate set
 *     @validation  what a create is checked for
 *     @update      what an update may not change, and what it keeps
 *     @delete      what a delete does beyond removing the object
 *
 * Other files there (shared helpers) are skipped. Rows are sorted by kind, the fallback
 * strategy's (`generic.ts`) last.
 *
 *     node --import tsx tools/generate-kind-rules.ts --update   # rewrite the table
 *     node --import tsx tools/generate-kind-rules.ts --check    # exit 1 when it is out of date
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { formatGenerated, REPO_ROOT } from "./generated-file.js";

/** The folder of the kind strategies (repository-relative). */
export const KINDS_DIR = "packages/apiserver/src/kinds";
/** The generated page (repository-relative). */
export const KIND_RULES_PAGE = "docs/apiserver-kind-rules.md";

/** The tags of a kind file's header, in column order. */
const COLUMN_TAGS = ["defaults", "validation", "update", "delete"] as const;
const TAGS = new Set<string>(["kind", ...COLUMN_TAGS]);
/** The strategy of every kind without its own: its row closes the table. */
const FALLBACK_FILE = "generic.ts";

/** One row of the table: the kind and its rules, as the header's tags state them. */
export interface KindRules {
  /** The file the row comes from, relative to {@link KINDS_DIR}. */
  readonly file: string;
  readonly kind: string;
  readonly defaults?: string;
  readonly validation?: string;
  readonly update?: string;
  readonly delete?: string;
}

/** Whether `source` is a kind file: it exports a `KindStrategy` constant. */
export function isKindFile(source: string): boolean {
  return /^export const \w+: KindStrategy\b/m.test(source);
}

/**
 * The tags of the first doc comment of `source` (see the module comment), each one's text
 * joined into one line. Throws on an unknown or repeated tag, or a missing `@kind`.
 */
export function parseKindHeader(file: string, source: string): KindRules {
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1];
  if (comment === undefined) throw new Error(`${file}: no doc comment`);
  const tags = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of comment.split("\n")) {
    const line = raw.replace(/^\s*\*?\s?/, "").trimEnd();
    const tag = /^@(\w+)\b\s*(.*)$/.exec(line.trim());
    if (tag) {
      const [, name = "", text = ""] = tag;
      if (!TAGS.has(name)) throw new Error(`${file}: unknown tag @${name}`);
      if (tags.has(name)) throw new Error(`${file}: @${name} appears twice`);
      current = [text];
      tags.set(name, current);
    } else {
      current?.push(line.trim());
    }
  }
  const text = (name: string): string | undefined => {
    const parts = tags.get(name);
    const joined = parts?.filter((p) => p !== "").join(" ");
    return joined === "" ? undefined : joined;
  };
  const kind = text("kind");
  if (kind === undefined) throw new Error(`${file}: a kind file needs a @kind tag in its header`);
  const rules: { -readonly [K in keyof KindRules]: KindRules[K] } = { file, kind };
  for (const name of COLUMN_TAGS) {
    const value = text(name);
    if (value !== undefined) rules[name] = value;
  }
  return rules;
}

/** The rows of every kind file under {@link KINDS_DIR}, sorted by kind. */
export async function readKindRules(root = REPO_ROOT): Promise<KindRules[]> {
  const dir = join(root, KINDS_DIR);
  const files = (await readdir(dir)).filter((f) => f.endsWith(".ts")).sort();
  const rows: KindRules[] = [];
  for (const file of files) {
    const source = await readFile(join(dir, file), "utf8");
    if (isKindFile(source)) rows.push(parseKindHeader(file, source));
  }
  const rank = (r: KindRules): number => (r.file === FALLBACK_FILE ? 1 : 0);
  return rows.sort((a, b) => rank(a) - rank(b) || a.kind.localeCompare(b.kind, "en"));
}

/** A Markdown table cell: `|` escaped, an em dash for nothing. */
function cell(text: string | undefined): string {
  return text === undefined ? "—" : text.replaceAll("|", "\\|");
}

/** A link from the page to the kind file `file`. */
function sourceLink(file: string): string {
  return `[\`${file}\`](${relative(dirname(KIND_RULES_PAGE), `${KINDS_DIR}/${file}`)})`;
}

/** The page's Markdown (unformatted) for `rows`. */
export function renderKindRulesPage(rows: readonly KindRules[]): string {
  const lines = [
    "# Per-kind rules of the embedded API server",
    "",
    "<!-- Generated by tools/generate-kind-rules.ts from the module header of each file in",
    `     ${KINDS_DIR}/ (its @kind, @defaults, @validation, @update and @delete tags).`,
    "     Do not edit: change the header, then run the generator with --update. -->",
    "",
    "`@kubekit/apiserver` applies kube-apiserver's per-kind rules below, one strategy per",
    `kind (\`${KINDS_DIR}/\`), on top of the metadata, generation and status rules every`,
    "kind gets. Validation failures are `422 Invalid` with kube-apiserver's field paths, cause",
    "types and messages; a value of the wrong JSON type in a built-in field (a ConfigMap `data`",
    'value that is a number, `spec.containers: "x"`) is a `400 BadRequest` with kube\'s wording',
    "and is never stored. Defaults apply on create and on every update.",
    "",
    "| Kind | Defaults | Validation | Update rules, kept values | Delete | Source |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${cell(r.kind)} | ${COLUMN_TAGS.map((t) => cell(r[t])).join(" | ")} | ${sourceLink(r.file)} |`,
    ),
    "",
  ];
  return lines.join("\n");
}

/** The page as the kinds' sources produce it, formatted as the repository formats Markdown. */
export async function generateKindRulesPage(root = REPO_ROOT): Promise<string> {
  return formatGenerated(KIND_RULES_PAGE, renderKindRulesPage(await readKindRules(root)));
}

/**
 * `undefined` when the committed page is what the sources produce, else why not (with the
 * command that fixes it).
 */
export async function kindRulesDrift(root = REPO_ROOT): Promise<string | undefined> {
  const expected = await generateKindRulesPage(root);
  const actual = await readFile(join(root, KIND_RULES_PAGE), "utf8").catch(() => undefined);
  if (actual === expected) return undefined;
  return (
    `${KIND_RULES_PAGE} ${actual === undefined ? "is missing" : "is out of date"}: it differs ` +
    `from the module headers of ${KINDS_DIR}/*.ts. Run ` +
    "`node --import tsx tools/generate-kind-rules.ts --update` and commit the result."
  );
}

async function main(mode: string | undefined): Promise<number> {
  if (mode === "--update") {
    const page = join(REPO_ROOT, KIND_RULES_PAGE);
    await mkdir(dirname(page), { recursive: true });
    await writeFile(page, await generateKindRulesPage(), "utf8");
    process.stdout.write(`wrote ${KIND_RULES_PAGE}\n`);
    return 0;
  }
  if (mode === "--check") {
    const drift = await kindRulesDrift();
    if (drift === undefined) {
      process.stdout.write(`${KIND_RULES_PAGE} matches the kinds' sources\n`);
      return 0;
    }
    process.stderr.write(`${drift}\n`);
    return 1;
  }
  process.stderr.write("usage: node --import tsx tools/generate-kind-rules.ts --check|--update\n");
  return 2;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv[2]);
}
