/**
 * The public API report: every name the packages' entry points export ("kubekit",
 * "kubekit/testing", "kubekit/apimachinery", "@kubekit/apiserver", "@kubekit/cluster"), each with its declaration as the published `.d.ts` files state it
 * (signatures only, comments removed), sorted by name. The reports are checked in under
 * `api/`, so every change to the public surface is a visible diff in review.
 *
 *     npm run api:update    # rewrite api/*.api.md after an intended change of the surface
 *     npm run api:check     # fail (exit 1, with a diff hint) when they differ from the code
 *
 * The declarations of every package are emitted in memory in one program from the sources
 * (no `dist/` needed), the same way each package's `npm run build` emits them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The repository root (tools/ is one level below it). */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The packages' entry points: the subpath users import, the source, the report file, and the
 * entry points whose exports its signatures may refer to (its users import those too).
 */
const ENTRY_POINTS = [
  {
    subpath: "kubekit",
    source: "packages/kubekit/src/index.ts",
    report: "api/kubekit.api.md",
    uses: [],
  },
  {
    subpath: "kubekit/testing",
    source: "packages/kubekit/src/testing/index.ts",
    report: "api/kubekit-testing.api.md",
    uses: ["kubekit"],
  },
  {
    subpath: "kubekit/apimachinery",
    source: "packages/kubekit/src/apimachinery/index.ts",
    report: "api/kubekit-apimachinery.api.md",
    uses: ["kubekit"],
  },
  {
    subpath: "@kubekit/apiserver",
    source: "packages/apiserver/src/index.ts",
    report: "api/kubekit-apiserver.api.md",
    uses: ["kubekit"],
  },
  {
    subpath: "@kubekit/cluster",
    source: "packages/cluster/src/index.ts",
    report: "api/kubekit-cluster.api.md",
    uses: ["kubekit", "@kubekit/apiserver"],
  },
] as const;

/** The folder under packages/ that declares an entry point. */
function packageFolder(source: string): string {
  return source.split("/")[1] ?? "";
}

/**
 * The declaration files the packages' builds would write, keyed by absolute path under
 * `outDir/<package folder>/src/` (a directory inside the repository that is never written, so
 * that imports of dependencies resolve through the repository's node_modules).
 */
function emitDeclarations(outDir: string): Map<string, string> {
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
  const options: ts.CompilerOptions = {
    ...config.options,
    rootDir: join(REPO_ROOT, "packages"),
    outDir,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    noEmit: false,
  };
  const sources = config.fileNames.filter((f) =>
    /^packages\/[^/]+\/src\//.test(relative(REPO_ROOT, f).split("\\").join("/")),
  );
  const program = ts.createProgram(sources, options);
  const files = new Map<string, string>();
  const result = program.emit(undefined, (fileName, text) => files.set(fileName, text));
  const errors = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics].filter(
    (d) => d.category === ts.DiagnosticCategory.Error,
  );
  if (errors.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => REPO_ROOT,
      getNewLine: () => "\n",
    };
    // CI typechecks before it checks the report; here a compile error only makes the report
    // suspect (an ambiguous `export *`, for one, drops the name), so say so and go on.
    process.stderr.write(
      `warning: the sources do not compile; the report may be wrong:\n${ts.formatDiagnostics(errors, host)}`,
    );
  }
  return files;
}

/**
 * A program over the in-memory declaration files (everything else is read from disk), each
 * package name mapped to its entry point's declarations.
 */
function declarationProgram(
  files: Map<string, string>,
  roots: string[],
  outDir: string,
): ts.Program {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ["node"],
    noEmit: true,
    paths: Object.fromEntries(ENTRY_POINTS.map((e, i) => [e.subpath, [roots[i] ?? ""]])),
    pathsBasePath: outDir,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  const directories = new Set([...files.keys()].map((f) => dirname(f)));
  host.directoryExists = (d) => directories.has(d) || (directoryExists?.call(host, d) ?? true);
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = files.get(f);
    return text === undefined
      ? getSourceFile.call(host, f, language, ...rest)
      : ts.createSourceFile(f, text, language, true);
  };
  return ts.createProgram(roots, options, host);
}

/** Whether a class member is private (`private x` or `#x`): not part of the surface. */
function isPrivateMember(member: ts.ClassElement): boolean {
  if (member.name !== undefined && ts.isPrivateIdentifier(member.name)) return true;
  return ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Private ? true : false;
}

/**
 * The node a declaration is printed as: a variable with its `const`, a class without its
 * private members (they are in the `.d.ts` files but no caller can reach them).
 */
function printedNode(declaration: ts.Declaration): ts.Node {
  if (ts.isVariableDeclaration(declaration)) {
    return ts.factory.createVariableStatement(
      undefined,
      ts.factory.createVariableDeclarationList([declaration], declaration.parent.flags),
    );
  }
  if (ts.isClassDeclaration(declaration)) {
    return ts.factory.updateClassDeclaration(
      declaration,
      declaration.modifiers,
      declaration.name,
      declaration.typeParameters,
      declaration.heritageClauses,
      declaration.members.filter((m) => !isPrivateMember(m)),
    );
  }
  return declaration;
}

/** Removes the `export`/`declare` keywords: every declaration in a report is exported. */
function withoutExportKeywords(text: string): string {
  return text.replace(/^export (default )?/, "").replace(/^declare /, "");
}

/** The symbol a name finally denotes (through `export { x } from` and `import` aliases). */
function resolved(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/**
 * The names of the package's own declarations that `node`'s public parts refer to (types,
 * base classes, `typeof` queries) and that are not in `exported`: a caller meets them and
 * cannot name them.
 */
function unexportedReferences(
  checker: ts.TypeChecker,
  node: ts.Node,
  exported: ReadonlySet<ts.Symbol>,
  ownRoot: string,
  found: Map<string, Set<string>>,
  referrer: string,
): void {
  const visit = (n: ts.Node): void => {
    if (ts.isClassElement(n) && isPrivateMember(n)) return;
    let name: ts.Node | undefined;
    if (ts.isTypeReferenceNode(n)) name = n.typeName;
    else if (ts.isExpressionWithTypeArguments(n)) name = n.expression;
    else if (ts.isTypeQueryNode(n)) name = n.exprName;
    const symbol = name && checker.getSymbolAtLocation(name);
    if (symbol !== undefined) {
      const target = resolved(checker, symbol);
      const own = (target.declarations ?? []).some((d) =>
        d.getSourceFile().fileName.startsWith(ownRoot),
      );
      if (own && !exported.has(target) && !(target.flags & ts.SymbolFlags.TypeParameter)) {
        const referrers = found.get(target.name) ?? new Set<string>();
        referrers.add(referrer);
        found.set(target.name, referrers);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
}

/** The report of one entry point: a Markdown page with one TypeScript block per export. */
function entryReport(
  program: ts.Program,
  entryFile: string,
  subpath: string,
  ownRoot: string,
  alsoExported: ReadonlySet<ts.Symbol>,
): { report: string; exported: Set<ts.Symbol> } {
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(entryFile);
  const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
  if (moduleSymbol === undefined) throw new Error(`no declarations emitted for ${subpath}`);
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const exports = checker
    .getExportsOfModule(moduleSymbol)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const exported = new Set(exports.map((e) => resolved(checker, e)));
  const reachable = new Set([...exported, ...alsoExported]);
  const unexported = new Map<string, Set<string>>();
  const sections: string[] = [];
  for (const symbol of exports) {
    const target = resolved(checker, symbol);
    const declarations = target.declarations ?? [];
    const renamed = target.name !== symbol.name ? ` (declared as ${target.name})` : "";
    const body = declarations
      .map((d) => {
        const node = printedNode(d);
        unexportedReferences(checker, d, reachable, ownRoot, unexported, symbol.name);
        return withoutExportKeywords(
          printer.printNode(ts.EmitHint.Unspecified, node, d.getSourceFile()),
        );
      })
      .join("\n\n");
    sections.push(`### ${symbol.name}${renamed}\n\n\`\`\`ts\n${body}\n\`\`\`\n`);
  }
  const unexportedList = [...unexported]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, referrers]) => `- \`${name}\`, used by ${[...referrers].sort().join(", ")}\n`)
    .join("");
  const report =
    `# API report: \`${subpath}\`\n\n` +
    `Generated by \`npm run api:update\` (tools/api-report.ts) from the declarations the build ` +
    `emits; CI runs \`npm run api:check\`, which fails when this file differs from the code. ` +
    `Do not edit by hand.\n\n` +
    `${exports.length} exports.\n\n` +
    `## Referenced but not exported\n\n` +
    `Declarations of the package that exported signatures refer to but that \`${subpath}\` ` +
    `does not export (a caller meets them and cannot name them):\n\n` +
    (unexportedList === "" ? "(none)\n" : unexportedList) +
    `\n## Exports\n\n${sections.join("\n")}`;
  return { report, exported };
}

/** The reports of every entry point, keyed by their repository-relative paths. */
function apiReports(): Map<string, string> {
  const outDir = join(REPO_ROOT, ".api-report-emit");
  const files = emitDeclarations(outDir);
  const roots = ENTRY_POINTS.map((e) =>
    join(
      outDir,
      relative(join(REPO_ROOT, "packages"), join(REPO_ROOT, e.source)).replace(/\.ts$/, ".d.ts"),
    ),
  );
  const program = declarationProgram(files, roots, outDir);
  const reports = new Map<string, string>();
  const exportsOf = new Map<string, ReadonlySet<ts.Symbol>>();
  ENTRY_POINTS.forEach((entry, i) => {
    const alsoExported = new Set(entry.uses.flatMap((used) => [...(exportsOf.get(used) ?? [])]));
    const { report, exported } = entryReport(
      program,
      roots[i] ?? "",
      entry.subpath,
      join(outDir, packageFolder(entry.source)),
      alsoExported,
    );
    exportsOf.set(entry.subpath, exported);
    reports.set(entry.report, report);
  });
  return reports;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function main(mode: string | undefined): number {
  if (mode !== "--check" && mode !== "--update") {
    process.stderr.write("usage: node --import tsx tools/api-report.ts --check|--update\n");
    return 2;
  }
  let stale = 0;
  for (const [path, report] of apiReports()) {
    const absolute = join(REPO_ROOT, path);
    if (readIfPresent(absolute) === report) continue;
    if (mode === "--update") {
      writeFileSync(absolute, report, "utf8");
      process.stdout.write(`wrote ${path}\n`);
    } else {
      process.stderr.write(`${path} differs from the public API of the code\n`);
      stale++;
    }
  }
  if (stale > 0) {
    process.stderr.write(
      "The public API changed. If that is intended, run `npm run api:update` and commit the " +
        "report (`git diff api/` shows what changed).\n",
    );
    return 1;
  }
  if (mode === "--check") process.stdout.write("API reports match the code\n");
  return 0;
}

process.exitCode = main(process.argv[2]);
