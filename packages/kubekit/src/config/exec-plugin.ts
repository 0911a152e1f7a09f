/**
 * Credentials from an exec credential plugin (client-go's `plugin/pkg/client/auth/exec`):
 * kubekit runs the kubeconfig's `exec.command` with its `args`, the process environment plus
 * the configured `env` and `KUBERNETES_EXEC_INFO`, reads an `ExecCredential` from stdout and
 * uses its token or client certificate.
 *
 * Guarantees:
 * - one plugin process at a time per source, however many requests wait (single-flight);
 * - the credentials are cached until `status.expirationTimestamp` (forever when absent) or
 *   until `invalidate()` (after a 401);
 * - stdin is passed only when the run is interactive (`interactiveMode` `Always`, or
 *   `IfAvailable` with a terminal); `Always` without a terminal is an error;
 * - a run that is not interactive is killed after a timeout (default 60 s);
 * - failures are {@link ExecPluginError}s naming the command and the problem, with the
 *   last 4 KiB of the plugin's stderr, with the `exec.env` values and any token or key it
 *   printed replaced by `REDACTED`, but never its stdout.
 */
import { spawn } from "node:child_process";
import { isatty } from "node:tty";
import { realClock, type Clock } from "../core/clock.js";
import { abortable } from "./abortable.js";
import {
  ExecPluginError,
  type ConfigErrorLocation,
  type ExecPluginErrorDetails,
} from "./config-error.js";
import type { Environment } from "./environment.js";
import {
  execCredentialRequest,
  parseExecCredentialResponse,
  type ExecClusterInfo,
  type ExecCredentialApiVersion,
} from "./exec-credential.js";
import type { ExecEnvVar, ExecInteractiveMode } from "./kubeconfig-types.js";
import { INSPECT_CUSTOM, REDACTED, inspectSummary } from "./redaction.js";
import type { CredentialSource, RequestCredentials } from "./rest-config.js";

/** How long a non-interactive plugin run may take before it is killed. */
export const EXEC_PLUGIN_TIMEOUT_MS = 60_000;

/** The most stdout a plugin may print (a credential is a few KiB). */
const MAX_STDOUT_BYTES = 1024 * 1024;

/** How much of the plugin's stderr is shown in error messages (the tail). */
const MAX_STDERR_CHARS = 4096;

/**
 * How much of the plugin's stderr is kept while it runs: twice what is shown, so that a
 * secret cut by the tail is still whole when it is scrubbed.
 */
const KEPT_STDERR_CHARS = 2 * MAX_STDERR_CHARS;

/** What to run: the kubeconfig's exec settings, resolved. */
export interface ExecPluginSettings {
  /** The command; a path is used as is, a bare name is looked up in the environment's PATH. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the process environment (later entries win). */
  readonly env?: readonly ExecEnvVar[];
  readonly apiVersion: ExecCredentialApiVersion;
  readonly interactiveMode: ExecInteractiveMode;
  /** Shown when the command is not found. */
  readonly installHint?: string;
  /** Passed as `spec.cluster` (kubeconfig `provideClusterInfo: true`). */
  readonly cluster?: ExecClusterInfo;
}

/** Options of {@link ExecCredentials}. */
export interface ExecCredentialsOptions {
  /** Decides expiry and times out runs (default the real clock). */
  readonly clock?: Clock;
  /** The base environment of the plugin (default `process.env`). */
  readonly env?: Environment;
  /** Whether stdin is a terminal the plugin may use (default: whether file descriptor 0 is a terminal). */
  readonly stdinIsTerminal?: boolean;
  /** Timeout of non-interactive runs (default 60 000 ms, `EXEC_PLUGIN_TIMEOUT_MS`; 0 disables). */
  readonly timeoutMs?: number;
  /** Where the plugin is configured, for error messages (file, user, `exec`). */
  readonly location?: ConfigErrorLocation;
}

interface CachedCredentials {
  readonly credentials: RequestCredentials;
  readonly expiresAt: number | undefined;
}

/** How a plugin process ended. */
type RunOutcome =
  | { readonly kind: "spawnError"; readonly code: string | undefined; readonly message: string }
  | {
      readonly kind: "exited";
      readonly exitCode: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: string;
      readonly stderr: string;
      readonly timedOut: boolean;
      readonly stdoutTooLarge: boolean;
    };

/** Keeps the tail of a stream of text. */
function appendTail(current: string, chunk: string): string {
  const next = current + chunk;
  return next.length > KEPT_STDERR_CHARS ? next.slice(next.length - KEPT_STDERR_CHARS) : next;
}

/**
 * The stderr to show: every occurrence of each secret replaced (longest first, so a secret
 * containing another is replaced whole), then cut to its last {@link MAX_STDERR_CHARS}.
 */
function shownStderr(stderr: string, secrets: readonly string[]): string {
  let out = stderr;
  const ordered = secrets.filter((s) => s !== "").sort((a, b) => b.length - a.length);
  for (const secret of ordered) out = out.split(secret).join(REDACTED);
  return out.length > MAX_STDERR_CHARS ? out.slice(out.length - MAX_STDERR_CHARS) : out;
}

/** Credentials from an exec plugin; see the module documentation for the guarantees. */
export class ExecCredentials implements CredentialSource {
  readonly kind = "exec" as const;
  /** The plugin command (not a secret). */
  readonly command: string;
  readonly #settings: ExecPluginSettings;
  readonly #clock: Clock;
  readonly #env: Environment;
  readonly #stdinIsTerminal: boolean;
  readonly #timeoutMs: number;
  readonly #location: ConfigErrorLocation;
  #cached: CachedCredentials | undefined;
  #running: Promise<CachedCredentials> | undefined;

  constructor(settings: ExecPluginSettings, options: ExecCredentialsOptions = {}) {
    this.command = settings.command;
    this.#settings = settings;
    this.#clock = options.clock ?? realClock;
    this.#env = options.env ?? process.env;
    this.#stdinIsTerminal = options.stdinIsTerminal ?? isatty(0);
    this.#timeoutMs = options.timeoutMs ?? EXEC_PLUGIN_TIMEOUT_MS;
    this.#location = { ...options.location, field: options.location?.field ?? "exec" };
  }

  /**
   * The cached credentials, or (when none are cached or they expired) the result of one
   * plugin run shared by every concurrent caller. An aborted `signal` stops this caller's
   * wait, not the run.
   *
   * @throws {ExecPluginError} when the run fails; nothing is cached, so the next call runs again.
   */
  async get(signal?: AbortSignal): Promise<RequestCredentials> {
    signal?.throwIfAborted();
    const cached = this.#cached;
    if (cached !== undefined && !this.#expired(cached)) return cached.credentials;
    if (this.#running === undefined) {
      const run = this.#run().finally(() => {
        if (this.#running === run) this.#running = undefined;
      });
      // Waiters may all abort; the run's failure must not become an unhandled rejection.
      run.catch(() => undefined);
      this.#running = run;
    }
    return (await abortable(this.#running, signal)).credentials;
  }

  /** Drops the cached credentials (after a 401): the next {@link get} runs the plugin again. */
  invalidate(): void {
    this.#cached = undefined;
  }

  #expired(cached: CachedCredentials): boolean {
    return cached.expiresAt !== undefined && this.#clock.now() > cached.expiresAt;
  }

  #error(details: ExecPluginErrorDetails): ExecPluginError {
    return new ExecPluginError(details, this.#location);
  }

  #interactive(): boolean {
    switch (this.#settings.interactiveMode) {
      case "Never":
        return false;
      case "IfAvailable":
        return this.#stdinIsTerminal;
      case "Always":
        if (!this.#stdinIsTerminal) {
          throw this.#error({
            command: this.command,
            reason: "interactive",
            problem: "interactiveMode is Always but standard input is not a terminal",
          });
        }
        return true;
    }
  }

  async #run(): Promise<CachedCredentials> {
    const interactive = this.#interactive();
    const outcome = await this.#spawn(interactive);
    const command = this.command;
    if (outcome.kind === "spawnError") {
      const notFound = outcome.code === "ENOENT";
      throw this.#error({
        command,
        reason: notFound ? "notFound" : "notExecutable",
        problem: notFound
          ? "executable not found"
          : `cannot be run (${outcome.code ?? outcome.message})`,
        ...(notFound &&
          this.#settings.installHint !== undefined && { installHint: this.#settings.installHint }),
      });
    }
    if (outcome.timedOut) {
      throw this.#error({
        command,
        reason: "timeout",
        problem: `did not finish within ${this.#timeoutMs} ms and was killed`,
        stderr: shownStderr(outcome.stderr, this.#secrets(outcome.stdout)),
      });
    }
    if (outcome.stdoutTooLarge) {
      throw this.#error({
        command,
        reason: "badOutput",
        problem: `printed more than ${MAX_STDOUT_BYTES} bytes on stdout`,
        stderr: shownStderr(outcome.stderr, this.#secrets(outcome.stdout)),
      });
    }
    if (outcome.exitCode !== 0) {
      const how =
        outcome.exitCode === null
          ? `was killed by ${outcome.signal ?? "a signal"}`
          : `exited with code ${outcome.exitCode}`;
      throw this.#error({
        command,
        reason: "exitCode",
        problem: how,
        ...(outcome.exitCode !== null && { exitCode: outcome.exitCode }),
        stderr: shownStderr(outcome.stderr, this.#secrets(outcome.stdout)),
      });
    }
    const parsed = parseExecCredentialResponse(outcome.stdout, this.#settings.apiVersion);
    if (!parsed.ok) {
      throw this.#error({
        command,
        reason: "badOutput",
        problem: parsed.problem,
        stderr: shownStderr(outcome.stderr, this.#secrets(outcome.stdout)),
      });
    }
    const status = parsed.status;
    const credentials: RequestCredentials = {
      headers: status.token === undefined ? {} : { Authorization: `Bearer ${status.token}` },
      ...(status.clientCertificateData !== undefined &&
        status.clientKeyData !== undefined && {
          clientCertificate: {
            certPem: status.clientCertificateData,
            keyPem: status.clientKeyData,
          },
        }),
    };
    const cached: CachedCredentials = { credentials, expiresAt: status.expiresAt };
    this.#cached = cached;
    return cached;
  }

  /**
   * The values never to show: the configured `exec.env` values and the token and key the
   * plugin printed on stdout (when they can be read from it).
   */
  #secrets(stdout: string): string[] {
    const parsed = parseExecCredentialResponse(stdout, this.#settings.apiVersion);
    const printed = parsed.ok
      ? [parsed.status.token ?? "", parsed.status.clientKeyData ?? ""]
      : parsed.secrets;
    return [...(this.#settings.env ?? []).map((variable) => variable.value), ...printed];
  }

  #spawn(interactive: boolean): Promise<RunOutcome> {
    const settings = this.#settings;
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.#env))
      if (value !== undefined) env[name] = value;
    for (const variable of settings.env ?? []) env[variable.name] = variable.value;
    env["KUBERNETES_EXEC_INFO"] = execCredentialRequest(
      settings.apiVersion,
      interactive,
      settings.cluster,
    );

    return new Promise<RunOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: RunOutcome): void => {
        if (settled) return;
        settled = true;
        timer?.cancel();
        resolve(outcome);
      };
      const child = spawn(settings.command, [...(settings.args ?? [])], {
        env,
        stdio: [interactive ? "inherit" : "ignore", "pipe", "pipe"],
      });
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stdoutTooLarge = false;
      let stderr = "";
      let timedOut = false;
      const timer =
        !interactive && this.#timeoutMs > 0
          ? this.#clock.setTimer(this.#timeoutMs, () => {
              timedOut = true;
              child.kill("SIGKILL");
            })
          : undefined;
      child.stdout?.on("data", (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes > MAX_STDOUT_BYTES) {
          stdoutTooLarge = true;
          child.kill("SIGKILL");
          return;
        }
        stdout.push(chunk);
      });
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => {
        if (interactive) process.stderr.write(chunk);
        stderr = appendTail(stderr, chunk);
      });
      child.on("error", (error: NodeJS.ErrnoException) => {
        settle({ kind: "spawnError", code: error.code, message: error.message });
      });
      child.on("close", (exitCode, signal) => {
        settle({
          kind: "exited",
          exitCode,
          signal,
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr,
          timedOut,
          stdoutTooLarge,
        });
      });
    });
  }

  toString(): string {
    return `ExecCredentials { command: ${JSON.stringify(this.command)} }`;
  }

  toJSON(): { kind: "exec"; command: string; apiVersion: string; cached: boolean } {
    return {
      kind: this.kind,
      command: this.command,
      apiVersion: this.#settings.apiVersion,
      cached: this.#cached !== undefined,
    };
  }

  [INSPECT_CUSTOM](
    _depth: number,
    options: object,
    inspect?: (v: unknown, o?: object) => string,
  ): string {
    return inspectSummary("ExecCredentials", this.toJSON(), options, inspect);
  }
}
