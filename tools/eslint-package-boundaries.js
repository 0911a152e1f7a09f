// ESLint rule enforcing the package graph of ARCHITECTURE.md: a file under packages/<name>/
// reaches another package only by its published name (never by a relative path out of its
// own folder), and only the packages it depends on: kubekit none, @kubekit/apiserver kubekit,
// @kubekit/cluster both. Tests, benchmarks and tools (outside packages/) are not checked.
import path from "node:path";

/** Each package's folder under packages/ and the workspace packages it may import. */
export const PACKAGE_DEPENDENCIES = {
  kubekit: [],
  apiserver: ["kubekit"],
  cluster: ["kubekit", "@kubekit/apiserver"],
};

/** The workspace package a bare specifier names, if any ("kubekit/testing" → "kubekit"). */
function workspacePackage(specifier) {
  if (specifier === "kubekit" || specifier.startsWith("kubekit/")) return "kubekit";
  const m = /^(@kubekit\/[^/]+)/.exec(specifier);
  return m ? m[1] : undefined;
}

/** The folder name under packages/ that holds `file`, if any. */
function packageFolderOf(file) {
  const rel = path.relative(path.resolve("packages"), path.resolve(file));
  if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep)[0];
}

export const packageBoundariesRule = {
  meta: {
    type: "problem",
    docs: {
      description: "enforce the package graph of ARCHITECTURE.md between workspace packages",
    },
    schema: [],
    messages: {
      relative:
        "packages/{{from}} may not reach into packages/{{to}} by a relative path: import it by its package name",
      forbidden: "packages/{{from}} may not import {{to}} (package graph, see ARCHITECTURE.md)",
    },
  },
  create(context) {
    const file = context.filename;
    const from = packageFolderOf(file);
    if (from === undefined || !(from in PACKAGE_DEPENDENCIES)) return {};
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== "string") return;
      if (source.startsWith(".")) {
        const to = packageFolderOf(path.resolve(path.dirname(file), source));
        if (to !== from) {
          context.report({
            node: node.source,
            messageId: "relative",
            data: { from, to: to ?? "the repository" },
          });
        }
        return;
      }
      const to = workspacePackage(source);
      if (to === undefined) return;
      const own = from === "kubekit" ? "kubekit" : `@kubekit/${from}`;
      if (to !== own && !PACKAGE_DEPENDENCIES[from].includes(to)) {
        context.report({ node: node.source, messageId: "forbidden", data: { from, to } });
      }
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
