/**
 * `kubekit generate crd FILE|DIR... --out DIR`: TypeScript types and typed accessors from
 * CustomResourceDefinition manifests (kopium's role for kube-rs), one file per group version.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { readCrdManifests } from "../generate/crd-manifests.js";
import { generateCrdTypes } from "../generate/generate-crd-types.js";

/** The help of `kubekit generate`. */
export const GENERATE_USAGE = `usage: kubekit generate crd FILE|DIR... --out DIR [--kubekit-module NAME]

Generates TypeScript from CustomResourceDefinition manifests (YAML or JSON files, multi-document
files, directories of .yaml/.yml/.json files): for each kind and served version, the object type
and the types of its schema, the list type, its ResourceInfo, a ResourceClient accessor and an
informer accessor. Writes one file per group version, DIR/<group>/<version>.ts, and prints each
path. The output is deterministic and formatted; regenerate it rather than editing it.

  --out DIR               the directory to write into (created when missing)
  --kubekit-module NAME   the module the generated files import kubekit from (default "kubekit")
  -h, --help              print this help
`;

/** Reports a usage error of `kubekit generate`; returns its exit code. */
function usageError(message: string): number {
  process.stderr.write(`kubekit generate: ${message}\n\n${GENERATE_USAGE}`);
  return 2;
}

/**
 * `kubekit generate crd FILE|DIR... --out DIR`. Returns the exit code: 0 when the files were
 * written, 2 for a usage error; a manifest that cannot be read or is not a CRD rejects with a
 * `CrdManifestError` naming the file and document (the command prints it, exit 1).
 */
export async function generateCommand(args: string[]): Promise<number> {
  let parsed: {
    values: { out?: string; "kubekit-module"?: string; help?: boolean };
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args,
      options: {
        out: { type: "string" },
        "kubekit-module": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(GENERATE_USAGE);
    return 0;
  }
  const [what, ...paths] = positionals;
  if (what !== "crd") {
    return usageError(
      what === undefined ? "what to generate is missing" : `cannot generate "${what}"`,
    );
  }
  if (paths.length === 0) return usageError("no CRD file or directory given");
  if (values.out === undefined || values.out === "") return usageError("--out DIR is required");
  const manifests = await readCrdManifests(paths);
  if (manifests.length === 0) throw new Error(`no CustomResourceDefinition in ${paths.join(", ")}`);
  const module = values["kubekit-module"];
  const files = generateCrdTypes(
    manifests.map((manifest) => manifest.crd),
    module !== undefined ? { kubekitModule: module } : {},
  );
  for (const file of files) {
    const target = join(values.out, ...file.path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.contents);
    process.stdout.write(`wrote ${target}\n`);
  }
  return 0;
}
