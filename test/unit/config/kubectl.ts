/**
 * Runs the real `kubectl` (when it is on PATH) for comparisons with kubectl's own kubeconfig
 * handling. kubectl on this machine is a dispatcher that first asks the current context's
 * server for /version; fixtures point servers at 127.0.0.1 ports that refuse connections so
 * it falls back to its built-in kubectl at once. HOME is always a temporary directory.
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The kubectl binary, or undefined when it is not on PATH (comparisons are then skipped). */
export const kubectlPath = findOnPath("kubectl");

/** Why kubectl comparisons are skipped, for test names. */
export const KUBECTL_SKIP_NOTE =
  kubectlPath === undefined ? " (skipped: kubectl is not on PATH)" : "";

/** The outcome of one kubectl run. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl with only PATH, HOME and the given variables in its environment. */
export function runKubectl(
  args: readonly string[],
  options: { readonly home: string; readonly cwd: string; readonly env?: Record<string, string> },
): Promise<KubectlResult> {
  const path = kubectlPath;
  if (path === undefined) throw new Error("kubectl is not on PATH");
  return new Promise((resolve) => {
    execFile(
      path,
      [...args],
      {
        cwd: options.cwd,
        env: { PATH: process.env["PATH"] ?? "", HOME: options.home, ...options.env },
        timeout: 20_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `kubectl config view -o json <args>` parsed, failing the test with kubectl's stderr otherwise. */
export async function kubectlConfigView(
  args: readonly string[],
  options: { readonly home: string; readonly cwd: string; readonly env?: Record<string, string> },
): Promise<unknown> {
  const result = await runKubectl(["config", "view", "-o", "json", ...args], options);
  if (result.code !== 0) throw new Error(`kubectl config view failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as unknown;
}
