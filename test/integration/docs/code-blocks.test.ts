/**
 * Every TypeScript block of the documentation compiles and runs.
 *
 * The convention (docs/README.md states it for writers):
 * - Each ```ts block of README.md and docs/*.md is a complete ES module: imports included, no
 *   `declare`d placeholders. "kubekit", "kubekit/testing", "@kubekit/apiserver" and
 *   "@kubekit/cluster" resolve to the sources (tsconfig.json `paths`, the vitest aliases).
 * - Every block is type-checked with the repository's compiler options.
 * - Every block is then run (imported, in page order, 30 s each), with `KUBECONFIG` naming an
 *   embedded API server that runs a simulated cluster: the "cluster" of the examples that call
 *   `KubeConfig.load()`. Its `default` namespace holds the pod `web-0` (label `app=web`,
 *   image nginx, Running). A block that runs must end by itself and leave nothing behind (stop
 *   what it starts, delete what it creates outside its own namespace).
 * - A block whose previous non-blank line is `<!-- no-run: reason -->` is type-checked only:
 *   one that needs what the test cluster lacks, listens on fixed ports, or runs until SIGTERM.
 * - Blocks in other languages (```sh, ```js, ```text) are not checked.
 * - The ```ts block of every `@example` in the TSDoc of packages/<name>/src is a complete program
 *   too, type-checked the same way (not run: the API reference shows it).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import type { ApiServer } from "@kubekit/apiserver";
import { eventually, startServer } from "../../support/server-test-helpers.js";
import { codeBlocksOf, exampleBlocksOf, type CodeBlock } from "./markdown-code-blocks.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const blocks: CodeBlock[] = pages.flatMap((page) => codeBlocksOf(root, page));
const sources = readdirSync(join(root, "packages"), { recursive: true, encoding: "utf8" })
  .filter((path) => /^[^/]+\/src\/.*\.ts$/.test(path))
  .sort()
  .map((path) => `packages/${path}`);
const examples: CodeBlock[] = sources.flatMap((source) => exampleBlocksOf(root, source));
const checked = [...blocks, ...examples];

/**
 * The blocks as files inside the repository (so that `kubernetes-types` and the other
 * dependencies resolve from its node_modules), in a folder of their own removed afterwards.
 */
const blockDir = mkdtempSync(join(root, ".docs-blocks-"));
const blockPath = (block: CodeBlock): string => join(blockDir, block.fileName);

/**
 * The type errors of the blocks, as `page:line: message` at the page's line. Only the blocks are
 * checked (the sources they import are typed as far as the blocks use them; `tsc` checks them).
 */
function typeErrors(): string[] {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options = { ...parsed.options, noEmit: true, incremental: false };
  const program = ts.createProgram(checked.map(blockPath), options);
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
  );
  return global.concat(
    checked.flatMap((block) => {
      const file = program.getSourceFile(blockPath(block));
      if (file === undefined) return [`${block.page}:${block.line}: not compiled`];
      const diagnostics = [
        ...program.getSyntacticDiagnostics(file),
        ...program.getSemanticDiagnostics(file),
      ];
      return diagnostics.map((diagnostic) => {
        const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
        return `${block.page}:${block.line + line}: ${message}`;
      });
    }),
  );
}

describe("the documentation's code blocks", () => {
  let server: ApiServer | undefined;
  let scratch: string | undefined;
  const kubeconfigBefore = process.env["KUBECONFIG"];

  beforeAll(async () => {
    for (const block of checked) writeFileSync(blockPath(block), block.code);
  });

  afterAll(async () => {
    if (kubeconfigBefore === undefined) delete process.env["KUBECONFIG"];
    else process.env["KUBECONFIG"] = kubeconfigBefore;
    await server?.stop();
    rmSync(blockDir, { recursive: true, force: true });
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it("are found: README.md and every docs/ page have TypeScript blocks, most of them run", () => {
    expect(blocks.filter((b) => b.page === "README.md").length).toBeGreaterThanOrEqual(2);
    expect(blocks.length).toBeGreaterThan(15);
    expect(blocks.filter((b) => b.noRun === undefined).length).toBeGreaterThan(blocks.length / 2);
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it("and the pages link only to files that exist", () => {
    const missing = [...pages, "ARCHITECTURE.md"].flatMap((page) =>
      [...readFileSync(join(root, page), "utf8").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((link) => link[1] ?? "")
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !existsSync(join(root, dirname(page), target)))
        .map((target) => `${page}: ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it("type-check with the repository's compiler options (and every @example of the sources)", () => {
    expect(typeErrors()).toEqual([]);
  }, 120_000);

  describe("run against an embedded API server with a simulated cluster", () => {
    beforeAll(async () => {
      const started = await startServer({
        cluster: { nodes: 1, controllers: [] },
      });
      server = started.server;
      scratch = mkdtempSync(join(tmpdir(), "kubekit-docs-"));
      const kubeconfig = join(scratch, "kubeconfig");
      await server.writeKubeconfig(kubeconfig, { namespace: "default" });
      process.env["KUBECONFIG"] = kubeconfig;
      const pods = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 }).coreV1.pods(
        "default",
      );
      await pods.create({
        metadata: { name: "web-0", labels: { app: "web" } },
        spec: {
          containers: [{ name: "nginx", image: "nginx:1.27", ports: [{ containerPort: 80 }] }],
        },
      });
      await eventually("web-0 Running", async () =>
        (await pods.get("web-0")).status?.phase === "Running" ? true : undefined,
      );
    }, 60_000);

    for (const block of blocks) {
      const title = `${block.page}:${block.line}`;
      if (block.noRun !== undefined) {
        it.skip(`${title} (no-run: ${block.noRun})`, () => {});
        continue;
      }
      it(
        title,
        async () => {
          await import(pathToFileURL(blockPath(block)).href);
        },
        30_000,
      );
    }
  });
});
