/**
 * Typed errors of the config layer. Every message names where the problem is: the file,
 * the kubeconfig entry (cluster, user or context name) and the field, then what is wrong,
 * e.g. `/home/me/.kube/config: user "alice": client-key: file /x/key.pem does not exist`.
 * Messages never contain secret values (tokens, passwords, key material).
 */

/** The three kinds of named kubeconfig entries. */
export type ConfigEntryKind = "cluster" | "user" | "context";

/** A named kubeconfig entry, e.g. `user "alice"`. */
export interface ConfigEntryRef {
  readonly kind: ConfigEntryKind;
  readonly name: string;
}

/** Where a config problem is; every part is optional. */
export interface ConfigErrorLocation {
  /** The kubeconfig file (absolute path), absent for in-memory documents. */
  readonly file?: string;
  /** The entry the field belongs to. */
  readonly entry?: ConfigEntryRef;
  /** The field (kubeconfig spelling, e.g. `client-key`, `exec.env[0].value`). */
  readonly field?: string;
}

/** Renders a location as the message prefix: `file: user "alice": client-key: `. */
function locationPrefix(location: ConfigErrorLocation): string {
  const parts: string[] = [];
  if (location.file !== undefined) parts.push(location.file);
  if (location.entry !== undefined) {
    parts.push(`${location.entry.kind} ${JSON.stringify(location.entry.name)}`);
  }
  if (location.field !== undefined) parts.push(location.field);
  return parts.length === 0 ? "" : `${parts.join(": ")}: `;
}

/**
 * A kubeconfig, in-cluster or credential problem. `message` is the location prefix followed
 * by {@link ConfigError.detail}; the parts are also available as fields.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly file: string | undefined;
  readonly entry: ConfigEntryRef | undefined;
  readonly field: string | undefined;
  /** What is wrong, without the location prefix. */
  readonly detail: string;

  constructor(detail: string, location: ConfigErrorLocation = {}, options?: { cause?: unknown }) {
    super(`${locationPrefix(location)}${detail}`, options);
    this.file = location.file;
    this.entry = location.entry;
    this.field = location.field;
    this.detail = detail;
  }
}

/**
 * In-cluster configuration was requested but the process does not run in a pod:
 * `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is unset (client-go's
 * `ErrNotInCluster`).
 */
export class NotInClusterError extends ConfigError {
  override name = "NotInClusterError";
}

/** Why an exec credential plugin failed. */
export type ExecPluginFailure =
  "notFound" | "notExecutable" | "exitCode" | "timeout" | "interactive" | "badOutput";

/** Details of an {@link ExecPluginError}. */
export interface ExecPluginErrorDetails {
  /** The plugin command as run (after path resolution). */
  readonly command: string;
  readonly reason: ExecPluginFailure;
  /** What was wrong, e.g. `exited with code 1`; never contains the plugin's output. */
  readonly problem: string;
  /** The process exit code, for `exitCode`. */
  readonly exitCode?: number;
  /** The plugin's standard error (tail, at most a few KiB; any returned token scrubbed). */
  readonly stderr?: string;
  /** The kubeconfig's install hint, added to `notFound` messages. */
  readonly installHint?: string;
}

/**
 * An exec credential plugin failed: not found, non-zero exit, timeout, or output that is not
 * a valid ExecCredential. The message names the plugin command and the problem and includes
 * the plugin's stderr, never its stdout (which may hold a token).
 */
export class ExecPluginError extends ConfigError {
  override name = "ExecPluginError";
  readonly command: string;
  readonly reason: ExecPluginFailure;
  readonly exitCode: number | undefined;
  readonly stderr: string;

  constructor(details: ExecPluginErrorDetails, location: ConfigErrorLocation = {}) {
    const stderr = (details.stderr ?? "").trim();
    let detail = `exec plugin ${JSON.stringify(details.command)}: ${details.problem}`;
    if (details.installHint !== undefined && details.installHint !== "") {
      detail += `\n${details.installHint}`;
    }
    if (stderr !== "") detail += `; stderr: ${stderr}`;
    super(detail, location);
    this.command = details.command;
    this.reason = details.reason;
    this.exitCode = details.exitCode;
    this.stderr = stderr;
  }
}
