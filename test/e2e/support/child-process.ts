/**
 * Child processes for the end-to-end layer: the BUILT packages (the `dist/` of each package,
 * imported by name through the workspace links) run as a user runs them, `kubekit serve` in one process
 * and a user's script in another. Every child is killed when the test that started it ends.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

/** The repository root (the workspace's). */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The built CLI of @kubekit/cluster, as `npm start` and a user's `npx kubekit` run it. */
export const CLI = join(PACKAGE_ROOT, "packages", "cluster", "dist", "cli", "main.js");

const running = new Set<Child>();
const scratchDirs: string[] = [];

afterEach(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory removed when the current test ends. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-e2e-"));
  scratchDirs.push(dir);
  return dir;
}

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running child process with its output collected line by line. */
export class Child {
  readonly stdoutLines: string[] = [];
  readonly stderrLines: string[] = [];
  /** Settles when the process has exited. */
  readonly exited: Promise<ChildExit>;
  #exit: ChildExit | undefined;
  readonly #process: ChildProcess;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly label: string,
    args: readonly string[],
    env: Readonly<Record<string, string>> = {},
  ) {
    this.#process = spawn(process.execPath, args, {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#collect(this.#process.stdout, this.stdoutLines);
    this.#collect(this.#process.stderr, this.stderrLines);
    this.exited = new Promise<ChildExit>((resolve) => {
      this.#process.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        running.delete(this);
        this.#notify();
        resolve(this.#exit);
      });
    });
    running.add(this);
  }

  /** The process id. */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** The exit, once the process has exited. */
  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  /** Everything written so far, for failure messages. */
  output(): string {
    return `--- ${this.label} stdout ---\n${this.stdoutLines.join("\n")}\n--- ${this.label} stderr ---\n${this.stderrLines.join("\n")}`;
  }

  /** Sends a signal (no-op once exited). */
  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    if (this.#exit === undefined) this.#process.kill(signal);
  }

  /**
   * Resolves with the first stdout line (from the start) for which `match` returns a value
   * other than undefined; rejects when the process exits first or `timeoutMs` passes.
   */
  waitForLine<T>(
    what: string,
    match: (line: string) => T | undefined,
    timeoutMs = 15_000,
    from = 0,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let scanned = from;
      const check = (): boolean => {
        for (; scanned < this.stdoutLines.length; scanned++) {
          const value = match(this.stdoutLines[scanned] ?? "");
          if (value !== undefined) {
            done();
            resolve(value);
            return true;
          }
        }
        if (this.#exit !== undefined) {
          done();
          reject(
            new Error(
              `${this.label} exited (${JSON.stringify(this.#exit)}) before ${what}\n${this.output()}`,
            ),
          );
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${this.output()}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
      };
      const waiter = (): void => void check();
      if (!check()) this.#waiters.add(waiter);
    });
  }

  /** Resolves with the exit once the process has exited; rejects after `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<ChildExit> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(`${this.label} did not exit within ${timeoutMs} ms\n${this.output()}`),
              ),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  #collect(stream: NodeJS.ReadableStream | null, lines: string[]): void {
    if (stream === null) return;
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      lines.push(...parts);
      this.#notify();
    });
    stream.on("end", () => {
      if (partial !== "") lines.push(partial);
      partial = "";
      this.#notify();
    });
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Runs a fixture script (`test/e2e/fixtures/<name>`) with the given environment and arguments. */
export function runFixture(
  name: string,
  env: Readonly<Record<string, string>> = {},
  args: readonly string[] = [],
): Child {
  const label = [name, ...args].join(" ");
  return new Child(label, [join(PACKAGE_ROOT, "test", "e2e", "fixtures", name), ...args], env);
}

/** A `kubekit serve` process and where to reach it. */
export interface ServeProcess {
  readonly child: Child;
  readonly url: string;
  readonly port: number;
  readonly kubeconfig: string;
}

/**
 * Starts `kubekit serve --port <port> --kubeconfig-out <file>` from `dist/` and resolves once
 * it listens (port 0 picks a free one).
 */
export async function startServe(kubeconfig: string, port = 0): Promise<ServeProcess> {
  const child = new Child("kubekit serve", [
    CLI,
    "serve",
    "--port",
    String(port),
    "--kubeconfig-out",
    kubeconfig,
  ]);
  const url = await child.waitForLine(
    "the server to listen",
    (line) => /listening on (\S+)/.exec(line)?.[1],
  );
  await child.waitForLine("the kubeconfig to be written", (line) =>
    line.startsWith("kubeconfig written to") ? true : undefined,
  );
  return { child, url, port: Number(new URL(url).port), kubeconfig };
}
