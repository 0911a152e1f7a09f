// ESLint rule enforcing the layer order of ARCHITECTURE.md inside the kubekit package: a file
// in packages/kubekit/src/<layer>/ may import only from its own layer and the layers listed
// before it. Which package may import which is the rule of eslint-package-boundaries.js.
import path from "node:path";

/** The kubekit package's source folder. */
const KUBEKIT_SRC = path.join("packages", "kubekit", "src");

/**
 * Layers in order; each may import from the ones before it, with the listed exceptions.
 * `testing` and `apimachinery` are entry points of their own (kubekit/testing,
 * kubekit/apimachinery) that re-export from the core.
 */
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
  "apimachinery",
];

/** Layers that may import only a subset of the layers before them. */
const ONLY = {
  workqueue: ["core"],
  testing: ["core"],
  apimachinery: ["core"],
};

function layerOf(file) {
  const rel = path.relative(path.resolve(KUBEKIT_SRC), path.resolve(file));
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
  return true;
}

export const layerOrderRule = {
  meta: {
    type: "problem",
    docs: {
      description: "enforce the layer order of ARCHITECTURE.md between kubekit's src/ folders",
    },
    schema: [],
    messages: {
      forbidden: "src/{{from}} may not import from src/{{to}} (layer order, see ARCHITECTURE.md)",
    },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    if (!from) return {};
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== "string" || !source.startsWith(".")) return;
      const to = layerOf(path.resolve(path.dirname(file), source));
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
