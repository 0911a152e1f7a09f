import { execFile, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";

/** Default bound on one kubectl invocation. */
export const KUBECTL_TIMEOUT_MS = 30_000;

/** How long `kubekit serve` may take to print its address (tsx compiles the CLI first). */
const SERVE_START_TIMEOUT_MS = 30_000;

/** How long `kubekit serve` may take to exit after SIGTERM. */
const SERVE_STOP_TIMEOUT_MS = 10_000;

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** True when an executable `kubectl` is on PATH (checked once, synchronously, at import). */
export const hasKubectl: boolean = (process.env["PATH"] ?? "")
  .split(delimiter)
  .filter((dir) => dir !== "")
  .some((dir) => {
    try {
      accessSync(join(dir, "kubectl"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

/** The outcome of one kubectl run: both streams and the exit code (null when killed). */
export interface KubectlResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of {@link KubectlSession.run}. */
export interface KubectlRunOptions {
  /** Kill kubectl after this long (default {@link KUBECTL_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Written to kubectl's stdin (for `-f -`). */
  readonly stdin?: string;
}

/**
 * A long-running kubectl (e.g. `get -w`, `wait`) whose output is collected as it arrives.
 * `waitFor` resolves once a condition on the output holds, and rejects when the deadline
 * passes or kubectl exits first; `stop` sends SIGTERM and resolves with the final result.
 */
export class KubectlStream {
  stdout = "";
  stderr = "";
  /** Settles when kubectl exits, with everything it printed. */
  readonly exited: Promise<KubectlResult>;
  private exitResult: KubectlResult | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly child: ChildProcess) {
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    child.stderr?.on("data", (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => {
        this.exitResult = { stdout: this.stdout, stderr: this.stderr, code, signal };
        this.notify();
        resolve(this.exitResult);
      });
    });
  }

  /**
   * Resolves once `condition` holds on the output collected so far. Rejects (naming `what`
   * and showing the output) after `timeoutMs`, or when kubectl exits before it holds.
   */
  waitFor(
    condition: (stream: KubectlStream) => boolean,
    what: string,
    timeoutMs = 10_000,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (condition(this)) {
          finish();
          resolve();
        } else if (this.exitResult) {
          finish();
          reject(
            new Error(`kubectl exited (${this.describeExit()}) before ${what}\n${this.dump()}`),
          );
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${this.dump()}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Sends SIGTERM (if still running) and resolves with the final result. */
  async stop(): Promise<KubectlResult> {
    if (!this.exitResult) this.child.kill("SIGTERM");
    return this.exited;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private describeExit(): string {
    return `code ${String(this.exitResult?.code)}, signal ${String(this.exitResult?.signal)}`;
  }

  private dump(): string {
    return `--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`;
  }
}

/** What `kubekit serve` reported when it stopped. */
export interface ServeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `kubekit serve` run as a child process (`node --import tsx src/cli/main.ts serve --port 0`)
 * with a private temporary directory holding the kubeconfig, kubectl's HOME and cache, and
 * manifests. Every kubectl call gets `--kubeconfig` and `--cache-dir` inside that directory,
 * HOME set to it, and a timeout, so nothing touches the real home or a real cluster.
 */
export class KubectlSession {
  private serverStdout = "";
  private serverStderr = "";
  private readonly serverExit: Promise<ServeExit>;
  /** The server's base URL, as `kubekit serve` printed it. */
  url = "";

  private constructor(
    private readonly server: ChildProcess,
    /** The temporary directory (removed by {@link stop}). */
    readonly dir: string,
    readonly kubeconfigPath: string,
  ) {
    server.stdout?.setEncoding("utf8");
    server.stderr?.setEncoding("utf8");
    server.stdout?.on("data", (chunk: string) => (this.serverStdout += chunk));
    server.stderr?.on("data", (chunk: string) => (this.serverStderr += chunk));
    this.serverExit = new Promise((resolve) => {
      server.once("close", (code, signal) =>
        resolve({ code, signal, stdout: this.serverStdout, stderr: this.serverStderr }),
      );
    });
  }

  /**
   * Starts `kubekit serve` and resolves once it has printed both its address and the
   * kubeconfig path (checked to be the one requested). Rejects with the server's output if
   * it exits or stays silent for 30 s. `serveArgs` are added to the command line (e.g.
   * `["--no-cluster"]`; the simulated cluster runs by default).
   */
  static async start(serveArgs: readonly string[] = []): Promise<KubectlSession> {
    const dir = await mkdtemp(join(tmpdir(), "kubekit-kubectl-"));
    await mkdir(join(dir, "home"));
    const kubeconfigPath = join(dir, "kubeconfig");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "packages/cluster/src/cli/main.ts",
        "serve",
        "--port",
        "0",
        "--kubeconfig-out",
        kubeconfigPath,
        ...serveArgs,
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    const session = new KubectlSession(child, dir, kubeconfigPath);
    const started = await session.waitUntilListening().catch(async (err: unknown) => {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
      throw err;
    });
    if (started.kubeconfig !== kubeconfigPath) {
      await session.stop();
      throw new Error(
        `kubekit serve wrote the kubeconfig to ${started.kubeconfig}, not ${kubeconfigPath}`,
      );
    }
    session.url = started.url;
    return session;
  }

  /** Resolves with the address and kubeconfig path once `kubekit serve` has printed both. */
  private waitUntilListening(): Promise<{ url: string; kubeconfig: string }> {
    const stdout = this.server.stdout;
    return new Promise((resolve, reject) => {
      const listening = /^kubekit API server listening on (\S+)\n/m;
      const written = /^kubeconfig written to (\S+)\n/m;
      const timer = setTimeout(() => {
        reject(
          new Error(
            `kubekit serve printed no address in ${SERVE_START_TIMEOUT_MS} ms\n${this.serverOutput()}`,
          ),
        );
      }, SERVE_START_TIMEOUT_MS);
      const check = (): void => {
        const url = listening.exec(this.serverStdout)?.[1];
        const kubeconfig = written.exec(this.serverStdout)?.[1];
        if (url !== undefined && kubeconfig !== undefined) {
          clearTimeout(timer);
          stdout?.off("data", check);
          resolve({ url, kubeconfig });
        }
      };
      stdout?.on("data", check);
      void this.serverExit.then((exit) => {
        clearTimeout(timer);
        reject(
          new Error(
            `kubekit serve exited early (code ${String(exit.code)})\n${this.serverOutput()}`,
          ),
        );
      });
    });
  }

  /** Arguments every kubectl call gets: the session's kubeconfig and cache directory. */
  private baseArgs(): string[] {
    return ["--kubeconfig", this.kubeconfigPath, "--cache-dir", join(this.dir, "cache")];
  }

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, HOME: join(this.dir, "home"), KUBECONFIG: this.kubeconfigPath };
  }

  /** Runs kubectl to completion; never rejects on a non-zero exit (see `code`). */
  run(args: readonly string[], options: KubectlRunOptions = {}): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        "kubectl",
        [...this.baseArgs(), ...args],
        { env: this.env(), timeout: options.timeoutMs ?? KUBECTL_TIMEOUT_MS, encoding: "utf8" },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve({ stdout, stderr, code: 0, signal: null });
          } else if (typeof error.code === "number" || error.signal) {
            resolve({
              stdout,
              stderr,
              code: typeof error.code === "number" ? error.code : null,
              signal: error.signal ?? null,
            });
          } else {
            reject(error);
          }
        },
      );
      child.stdin?.end(options.stdin ?? "");
    });
  }

  /** Starts a long-running kubectl (killed after `timeoutMs`, default 30 s, as a safety net). */
  stream(args: readonly string[], timeoutMs = KUBECTL_TIMEOUT_MS): KubectlStream {
    const child = spawn("kubectl", [...this.baseArgs(), ...args], {
      env: this.env(),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    return new KubectlStream(child);
  }

  /** Writes `text` to `name` inside the session directory and returns its path. */
  async writeManifest(name: string, text: string): Promise<string> {
    const path = join(this.dir, name);
    await writeFile(path, text);
    return path;
  }

  /**
   * Sends SIGTERM to `kubekit serve`, waits for it to exit (SIGKILL after 10 s), removes the
   * temporary directory, and returns how the server exited.
   */
  async stop(): Promise<ServeExit> {
    this.server.kill("SIGTERM");
    const timer = setTimeout(() => this.server.kill("SIGKILL"), SERVE_STOP_TIMEOUT_MS);
    const exit = await this.serverExit;
    clearTimeout(timer);
    await rm(this.dir, { recursive: true, force: true });
    return exit;
  }

  private serverOutput(): string {
    return `--- stdout ---\n${this.serverStdout}\n--- stderr ---\n${this.serverStderr}`;
  }
}

/**
 * Splits kubectl's tabular output into cells: one array per non-empty line, cells separated
 * by two or more spaces (kubectl pads columns with at least three). Empty cells collapse, so
 * use it only for tables whose cells are never blank.
 */
export function tableRows(stdout: string): string[][] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.trim().split(/ {2,}/));
}

/**
 * Parses a stream of concatenated JSON values (what `kubectl get -w -o json` prints, one
 * object after another, indented or not). A trailing incomplete value is ignored.
 */
export function parseJsonStream(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return values;
}

/**
 * Tells the run that kubectl is missing, so skipped conformance tests are visible; `what`
 * names them (`"the kubectl jobs conformance tests"`). Does nothing when kubectl is there.
 */
export function warnIfNoKubectl(what: string): void {
  if (!hasKubectl) console.warn(`kubectl is not on PATH: skipping ${what}`);
}

/** Asserts kubectl exited 0 (showing how it ended and its output otherwise); returns its stdout. */
export function succeeded(result: KubectlResult): string {
  expect(
    result.code,
    `kubectl failed (signal ${String(result.signal)}):\n${result.stderr}\n${result.stdout}`,
  ).toBe(0);
  return result.stdout;
}

/** Asserts kubectl exited 1 (showing its stdout otherwise); returns its stderr. */
export function failed(result: KubectlResult): string {
  expect(result.code, `kubectl unexpectedly exited ${String(result.code)}:\n${result.stdout}`).toBe(
    1,
  );
  return result.stderr;
}

/**
 * Starts a {@link KubectlSession} (`kubekit serve` with `serveArgs`) before the tests of the
 * enclosing `describe` and stops it after them; the returned function gives the session
 * (call it inside hooks and tests only). `beforeAll` hooks registered after this one see the
 * session started.
 */
export function useKubectlSession(serveArgs: readonly string[] = []): () => KubectlSession {
  let session: KubectlSession | undefined;
  beforeAll(async () => {
    session = await KubectlSession.start(serveArgs);
  }, 60_000);
  afterAll(async () => {
    await session?.stop();
  });
  return () => {
    if (session === undefined) throw new Error("the kubectl session is not started");
    return session;
  };
}
