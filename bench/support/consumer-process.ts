import { fork } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConsumerMessage, ConsumerResult, ConsumerTask } from "./consumer-protocol.js";
import { withTimeout } from "./timing.js";

const CONSUMER_SCRIPT = fileURLToPath(new URL("./consumer-host.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The child's heap limit: room for 50k pods held twice over during a relist. */
const HEAP_LIMIT_MIB = 8192;
const KILL_WAIT_MS = 10_000;

/**
 * Runs one consumer in a child process of its own (`consumer-host.ts`, with `--expose-gc`),
 * so that its heap and CPU are its own, and resolves to what it measured. Rejects with the
 * child's error, when it exits without a result, after `timeoutMs`, or when `signal` aborts;
 * the child is killed in every case where it has not exited by itself.
 *
 * With `KUBEKIT_BENCH_CPU_PROF=DIR` in the environment the child runs with `--cpu-prof` and
 * writes its profiles to `DIR/<label>/` (one per thread: the largest is the main thread's,
 * another is tsx's module loader).
 */
export async function runConsumer(
  task: ConsumerTask,
  options: { readonly label: string; readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<ConsumerResult> {
  const profileDir = process.env["KUBEKIT_BENCH_CPU_PROF"];
  const child = fork(CONSUMER_SCRIPT, [JSON.stringify(task)], {
    cwd: REPO_ROOT,
    execArgv: [
      "--import",
      "tsx",
      "--expose-gc",
      `--max-old-space-size=${HEAP_LIMIT_MIB}`,
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, options.label)}`] : []),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  // "close" comes after the IPC channel is drained, so a result sent just before exiting is seen.
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => resolve(code)),
  );
  const outcome = new Promise<ConsumerResult>((resolve, reject) => {
    child.on("message", (raw: unknown) => {
      const message = raw as ConsumerMessage;
      if (message.type === "result") resolve(message.result);
      else reject(new Error(`${options.label}: ${message.error}`));
    });
    child.once("error", reject);
    void exited.then((code) =>
      reject(
        new Error(`${options.label}: the consumer exited (code ${String(code)}) without a result`),
      ),
    );
  });
  try {
    const result = await withTimeout(outcome, options.timeoutMs, options.label, options.signal);
    await withTimeout(exited, KILL_WAIT_MS, `${options.label} exit`);
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await withTimeout(exited, KILL_WAIT_MS, `${options.label} exit after SIGKILL`).catch(
        () => undefined,
      );
    }
  }
}
