import { fork } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScaleSample } from "./cluster-scale.js";
import { withTimeout } from "./timing.js";

const HOST_SCRIPT = fileURLToPath(new URL("./cluster-scale-host.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The child's heap limit: 100k pods held by the server, the cluster's informers and the Events. */
const HEAP_LIMIT_MIB = 12_288;
const KILL_WAIT_MS = 10_000;
/** How long past the round's own timeout the child may take to report it. */
const REPORT_GRACE_MS = 60_000;

type HostMessage =
  | { readonly type: "log"; readonly message: string }
  | { readonly type: "result"; readonly result: ScaleSample }
  | { readonly type: "error"; readonly error: string };

/**
 * Runs one round at scale (`cluster-scale.ts`) in a child process of its own
 * (`cluster-scale-host.ts`, with a 12 GiB heap limit: the default 4 GiB is too small for 100k
 * pods held by the server and the cluster's caches in one process), so each round starts
 * from an empty heap. Rejects with the child's error, when it exits without a result, after
 * the timeout, or when `signal` aborts; the child is killed in every case where it has not
 * exited by itself. With `KUBEKIT_BENCH_CPU_PROF=DIR` the child writes CPU profiles to
 * `DIR/scale-<side>/`.
 */
export async function runScaleRound(
  side: "cluster" | "floor",
  deployments: number,
  options: {
    readonly timeoutMs: number;
    readonly signal: AbortSignal;
    readonly log: (message: string) => void;
  },
): Promise<ScaleSample> {
  const label = `scale ${side}`;
  const profileDir = process.env["KUBEKIT_BENCH_CPU_PROF"];
  const child = fork(HOST_SCRIPT, [side, String(deployments), String(options.timeoutMs)], {
    cwd: REPO_ROOT,
    execArgv: [
      "--import",
      "tsx",
      `--max-old-space-size=${HEAP_LIMIT_MIB}`,
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, `scale-${side}`)}`] : []),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  // "close" comes after the IPC channel is drained, so a result sent just before exiting is seen.
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => resolve(code)),
  );
  const outcome = new Promise<ScaleSample>((resolve, reject) => {
    child.on("message", (raw: unknown) => {
      const message = raw as HostMessage;
      if (message.type === "log") options.log(message.message);
      else if (message.type === "result") resolve(message.result);
      else reject(new Error(`${label}: ${message.error}`));
    });
    child.once("error", reject);
    void exited.then((code) =>
      reject(
        new Error(`${label}: the round's process exited (code ${String(code)}) without a result`),
      ),
    );
  });
  try {
    const timeoutMs = options.timeoutMs + REPORT_GRACE_MS;
    const result = await withTimeout(outcome, timeoutMs, label, options.signal);
    await withTimeout(exited, KILL_WAIT_MS, `${label} exit`);
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await withTimeout(exited, KILL_WAIT_MS, `${label} exit after SIGKILL`).catch(() => undefined);
    }
  }
}
