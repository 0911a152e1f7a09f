/**
 * The import-cycle check of CI: every TypeScript file of the repository (the packages'
 * sources, tests, benchmarks, examples, tools) and the modules it imports, type-only imports
 * included, since a cycle of types is still a cycle of concepts. Workspace package names
 * (`kubekit`, `kubekit/testing`, `@kubekit/apiserver`, ...) resolve to their entry sources
 * through tsconfig.json's `paths`, so a cycle across packages is found too. Exits 1 and
 * prints each cycle's files (one strongly connected component per paragraph) when there is
 * one.
 *
 *     npm run check:cycles
 *
 * Resolution is TypeScript's own (`ts.resolveModuleName` with the repository's compiler
 * options), the same the typecheck uses, so no import is missed or misread.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The repository's TypeScript files and compiler options, as tsconfig.json states them. */
function project(): { files: string[]; options: ts.CompilerOptions } {
  const configPath = join(REPO_ROOT, "tsconfig.json");
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  return { files: config.fileNames, options: config.options };
}

/** Each file's imported files of the repository (dependencies in node_modules left out). */
function importGraph(files: readonly string[], options: ts.CompilerOptions): Map<string, string[]> {
  const inRepository = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = new Set<string>();
    for (const imported of info.importedFiles) {
      const { resolvedModule } = ts.resolveModuleName(imported.fileName, file, options, ts.sys);
      const target = resolvedModule?.resolvedFileName;
      if (target !== undefined && inRepository.has(target) && target !== file) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/**
 * The strongly connected components of more than one file, or of one file importing itself
 * (Tarjan's algorithm, iterative so that deep import chains cannot overflow the stack).
 */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

function main(): number {
  const { files, options } = project();
  const graph = importGraph(files, options);
  const found = cycles(graph);
  const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
  if (found.length === 0) {
    process.stdout.write(`no import cycles (${graph.size} files, ${edges} imports)\n`);
    return 0;
  }
  for (const component of found) {
    process.stderr.write(
      `import cycle of ${component.length} files:\n` +
        component.map((f) => `  ${relative(REPO_ROOT, f)}\n`).join("") +
        "\n",
    );
  }
  const total = found.reduce((n, c) => n + c.length, 0);
  process.stderr.write(`${found.length} import cycles over ${total} files\n`);
  return 1;
}

process.exitCode = main();
