/**
 * Clients written in other languages (Debian's python3-kubernetes, ruby-kubeclient) run as
 * child processes against an embedded server: whether the interpreter and the library are
 * there, and a script's report (one JSON object per line, each with a `step`).
 */
import { execFile, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

/** Whether a client library can run here; `why` says what is missing when it cannot. */
export interface ClientAvailability {
  readonly available: boolean;
  readonly why: string;
}

/**
 * Checks, once and synchronously (for `describe.skipIf`), that `interpreter` is executable
 * and that `probeArgs` (e.g. `["-c", "import kubernetes"]`) exits 0 with it.
 */
export function clientAvailability(
  interpreter: string,
  probeArgs: readonly string[],
  library: string,
): ClientAvailability {
  try {
    accessSync(interpreter, constants.X_OK);
  } catch {
    return { available: false, why: `${interpreter} is not installed` };
  }
  const probe = spawnSync(interpreter, probeArgs, { encoding: "utf8", timeout: 30_000 });
  if (probe.status !== 0) {
    return {
      available: false,
      why: `${library} is not installed for ${interpreter} (${probe.stderr.trim().split("\n").at(-1) ?? ""})`,
    };
  }
  return { available: true, why: "" };
}

/** What a client script printed: its steps by name, and everything for failure messages. */
export interface ClientScriptReport {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The JSON object of each `{"step": NAME, ...}` line, by NAME. */
  readonly steps: ReadonlyMap<string, Record<string, unknown>>;
}

/** Runs `interpreter script ...args`, bounded by `timeoutMs`, and parses its report lines. */
export function runClientScript(
  interpreter: string,
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ClientScriptReport> {
  return new Promise((resolve) => {
    execFile(interpreter, [script, ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      const steps = new Map<string, Record<string, unknown>>();
      for (const line of stdout.split("\n")) {
        if (!line.startsWith("{")) continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        steps.set(String(parsed["step"]), parsed);
      }
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr, steps });
    });
  });
}
