/**
 * What the code generators share: formatting a generated source with the repository's
 * Prettier settings, writing it, and running a generator when invoked as a script.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format, resolveConfig } from "prettier";

/** The repository root (tools/ is one level below it). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `source` formatted as the file at `relativePath` (repository-relative) would be. */
export async function formatGenerated(relativePath: string, source: string): Promise<string> {
  const path = join(REPO_ROOT, relativePath);
  const config = (await resolveConfig(path)) ?? {};
  return format(source, { ...config, filepath: path });
}

/**
 * Runs `generate` and writes its output to `relativePath` when the module at `moduleUrl` is
 * the script node was started with (`node --import tsx tools/<generator>.ts`).
 */
export async function writeGeneratedIfMain(
  moduleUrl: string,
  relativePath: string,
  generate: () => Promise<string>,
): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  await writeFile(join(REPO_ROOT, relativePath), await generate(), "utf8");
  process.stdout.write(`wrote ${relativePath}\n`);
}
