/**
 * CustomResourceDefinitions read from manifests: YAML or JSON files, multi-document files and
 * directories, as envtest's `CRDInstallOptions.Paths` and `kubectl apply -f` read them
 * (a directory's `.json`, `.yaml` and `.yml` files in name order, not its subdirectories;
 * documents separated by `---` lines, as `k8s.io/apimachinery/pkg/util/yaml`'s `YAMLReader`
 * splits them; empty documents skipped). Every document must be an apiextensions.k8s.io/v1
 * CustomResourceDefinition with the fields a generator and an installer rely on.
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import {
  BoundedParseError,
  errorMessage,
  isJsonObject,
  parseYamlBounded,
} from "kubekit/apimachinery";

/** A CRD and where it was read from. */
export interface CrdManifest {
  readonly crd: CustomResourceDefinition;
  /** The file (or `crds[i]` for an object given in memory). */
  readonly source: string;
  /** The 1-based document of the file, for files. */
  readonly document?: number;
}

/**
 * A manifest that is not a usable CustomResourceDefinition: unreadable, malformed YAML, another
 * kind, or missing a field every CRD has. The message names the file (and document).
 */
export class CrdManifestError extends Error {
  override name = "CrdManifestError";
  /** The file, or `crds[i]` for an object given in memory. */
  readonly source: string;
  /** The 1-based document of the file, when the problem is in one. */
  readonly document: number | undefined;
  /** What is wrong, without the source. */
  readonly problem: string;

  constructor(source: string, document: number | undefined, problem: string, cause?: unknown) {
    const where = document === undefined ? source : `${source} (document ${document})`;
    super(`${where}: ${problem}`, cause === undefined ? undefined : { cause });
    this.source = source;
    this.document = document;
    this.problem = problem;
  }
}

/** The manifest file extensions read from a directory (envtest's and kubectl's). */
const MANIFEST_EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

/** A `---` document separator line: nothing but spaces or a comment after it. */
const SEPARATOR = /^---\s*(#.*)?$/;

/** The documents of a YAML stream with the 1-based line each starts on. */
function yamlDocuments(text: string): { text: string; line: number }[] {
  const documents: { text: string; line: number }[] = [];
  let current: string[] = [];
  let start = 1;
  text.split(/\r?\n/).forEach((line, index) => {
    if (!SEPARATOR.test(line)) {
      current.push(line);
      return;
    }
    documents.push({ text: current.join("\n"), line: start });
    current = [];
    start = index + 2;
  });
  documents.push({ text: current.join("\n"), line: start });
  return documents;
}

/** A string field's value, or the problem naming it. */
function stringField(value: unknown, path: string): string {
  if (typeof value !== "string" || value === "") throw new TypeError(`${path} must be set`);
  return value;
}

/**
 * `value` as a CustomResourceDefinition after checking what every generated type and install
 * relies on: kind and apiVersion, `spec.group`, `spec.names.kind`/`plural`, `spec.scope`, and
 * versions with names. The API server validates the rest.
 *
 * @throws {CrdManifestError} naming `source` (and `document`) and the problem.
 */
export function checkCrdManifest(
  value: unknown,
  source: string,
  document?: number,
): CustomResourceDefinition {
  try {
    if (!isJsonObject(value)) throw new TypeError("not an object");
    if (
      value["kind"] !== "CustomResourceDefinition" ||
      value["apiVersion"] !== "apiextensions.k8s.io/v1"
    ) {
      const what = typeof value["kind"] === "string" ? value["kind"] : "an object without a kind";
      const version = typeof value["apiVersion"] === "string" ? ` (${value["apiVersion"]})` : "";
      throw new TypeError(
        `${what}${version} is not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
      );
    }
    const spec = isJsonObject(value["spec"]) ? value["spec"] : {};
    stringField(spec["group"], "spec.group");
    const names = isJsonObject(spec["names"]) ? spec["names"] : {};
    stringField(names["kind"], "spec.names.kind");
    stringField(names["plural"], "spec.names.plural");
    if (spec["scope"] !== "Namespaced" && spec["scope"] !== "Cluster") {
      throw new TypeError('spec.scope must be "Namespaced" or "Cluster"');
    }
    const versions = spec["versions"];
    if (!Array.isArray(versions) || versions.length === 0) {
      throw new TypeError("spec.versions must list at least one version");
    }
    versions.forEach((version, i) =>
      stringField(isJsonObject(version) ? version["name"] : undefined, `spec.versions[${i}].name`),
    );
  } catch (err) {
    throw new CrdManifestError(source, document, errorMessage(err));
  }
  return value as unknown as CustomResourceDefinition;
}

/** The CRDs of one file, in document order. */
async function readManifestFile(file: string): Promise<CrdManifest[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CrdManifestError(file, undefined, `cannot be read: ${errorMessage(err)}`, err);
  }
  const manifests: CrdManifest[] = [];
  yamlDocuments(text).forEach((doc, index) => {
    const document = index + 1;
    let value: unknown;
    try {
      value = parseYamlBounded(doc.text);
    } catch (err) {
      const line =
        err instanceof BoundedParseError && err.line !== undefined ? err.line : undefined;
      const at = line === undefined ? "" : ` at line ${doc.line + line - 1}`;
      const problem = err instanceof BoundedParseError ? err.problem : errorMessage(err);
      throw new CrdManifestError(file, document, `${problem}${at}`, err);
    }
    if (value === null) return;
    manifests.push({ crd: checkCrdManifest(value, file, document), source: file, document });
  });
  return manifests;
}

/** The manifest files a path names: the file itself, or a directory's manifest files by name. */
async function manifestFiles(path: string): Promise<string[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (err) {
    throw new CrdManifestError(path, undefined, `cannot be read: ${errorMessage(err)}`, err);
  }
  if (!isDirectory) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase()))
    .map((entry) => entry.name)
    .sort()
    .map((name) => join(path, name));
}

/**
 * Every CRD of the files and directories `paths` names, in order (a directory's files by
 * name, each file's documents in order).
 *
 * @throws {CrdManifestError} (as a rejection) for the first path that cannot be read, a
 *   document that is malformed or not a CustomResourceDefinition; it names the file and document.
 */
export async function readCrdManifests(paths: readonly string[]): Promise<CrdManifest[]> {
  const manifests: CrdManifest[] = [];
  for (const path of paths) {
    for (const file of await manifestFiles(path)) manifests.push(...(await readManifestFile(file)));
  }
  return manifests;
}
