// ESLint rule enforcing the layer order of ARCHITECTURE.md: a file in src/<layer>/
// may import only from its own layer and the layers listed before it.
import path from "node:path";

/** Layers in order; each may import from the ones before it, with the listed exceptions. */
export const LAYERS = [
  "core",
  "config",
  "rest",
  "client",
  "cache",
  "informers",
  "workqueue",
  "controller",
  "testing",
  "cli",
];

/** Layers that may import only a subset of the layers before them. */
const ONLY = {
  workqueue: ["core"],
};
/** Layers that must never import some of the layers before them. */
const NEVER = {
  testing: ["client", "cache", "informers", "controller"],
};
/**
 * The simulated control plane (`src/testing/cluster/`) is written with kubekit's controller
 * toolkit as any user would write it: it may import the public API (`src/index.ts`) and its
 * own folder, and the server core may not reach into it except through its entry point.
 */
const CLUSTER_DIR = path.join("testing", "cluster");

function isClusterFile(file) {
  const rel = path.relative(path.resolve("src"), file);
  return rel.startsWith(CLUSTER_DIR + path.sep);
}

function layerOf(file) {
  const rel = path.relative(path.resolve("src"), file);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
  const top = rel.split(path.sep)[0];
  return LAYERS.includes(top) ? top : undefined;
}

/** Whether a file of layer `from` may import a module of layer `to`. */
export function mayImport(from, to) {
  if (from === to) return true;
  const i = LAYERS.indexOf(from);
  const j = LAYERS.indexOf(to);
  if (j > i) return false;
  if (ONLY[from] && !ONLY[from].includes(to)) return false;
  if (NEVER[from] && NEVER[from].includes(to)) return false;
  return true;
}

export const layerOrderRule = {
  meta: {
    type: "problem",
    docs: { description: "enforce the layer order of ARCHITECTURE.md between src/ folders" },
    schema: [],
    messages: {
      forbidden: "src/{{from}} may not import from src/{{to}} (layer order, see ARCHITECTURE.md)",
      cluster:
        "src/testing/cluster may import kubekit's public API (src/index.ts), src/core and its own folder, not src/{{to}}",
    },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    if (!from) return {};
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== "string" || !source.startsWith(".")) return;
      const target = path.resolve(path.dirname(file), source);
      const to = layerOf(target);
      if (isClusterFile(file) && !isClusterFile(target)) {
        if (to !== undefined && to !== "core") {
          context.report({ node: node.source, messageId: "cluster", data: { to } });
        }
        return;
      }
      if (to && !mayImport(from, to)) {
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
