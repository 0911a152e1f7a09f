/**
 * A module script run in a child Node.js process with tsx, importing named exports of the
 * source tree: for behaviour that only a whole process shows (what keeps it alive, when it
 * exits).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** How a child script ended. */
export interface ChildScriptResult {
  /** The exit status (null when it was killed, e.g. by the 20 s bound). */
  readonly status: number | null;
  readonly stdout: string;
}

/** Options of {@link runChildScript}. */
export interface ChildScriptOptions {
  /** Node.js options for the child, e.g. `--max-old-space-size=128` (default: none). */
  readonly nodeOptions?: readonly string[];
  /** How long the child may run before it is killed (default 20 s). */
  readonly timeoutMs?: number;
}

/**
 * Runs `script` (top-level await allowed) after `import { <names> } from "<module>"`, where
 * `module` is a path relative to the repository root (e.g. `src/core/clock.ts`). Bounded at
 * 20 s unless `options.timeoutMs` says otherwise; the test process waits for it
 * synchronously.
 */
export function runChildScript(
  module: string,
  names: readonly string[],
  script: string,
  options: ChildScriptOptions = {},
): ChildScriptResult {
  const url = new URL(module, new URL(`file://${REPO_ROOT}/`)).href;
  const result = spawnSync(
    process.execPath,
    [
      ...(options.nodeOptions ?? []),
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `import { ${names.join(", ")} } from ${JSON.stringify(url)};\n${script}`,
    ],
    { cwd: REPO_ROOT, timeout: options.timeoutMs ?? 20_000 },
  );
  return { status: result.status, stdout: result.stdout.toString() };
}
