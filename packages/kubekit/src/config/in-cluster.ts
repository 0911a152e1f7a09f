/**
 * In-cluster configuration (client-go's `rest.InClusterConfig`): a pod reaches its API server
 * at `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` (IPv6 hosts bracketed),
 * authenticates with the service account token (re-read as the kubelet rotates it), trusts
 * the service account's `ca.crt` (skipped when unreadable, as client-go only logs it), and
 * uses the namespace from `POD_NAMESPACE` or the service account's `namespace` file.
 */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigError, NotInClusterError } from "./config-error.js";
import { envValue, type Environment } from "./environment.js";
import { describeFileError } from "./referenced-files.js";

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Inputs of in-cluster detection (injectable for tests). */
export interface InClusterOptions {
  /** Where `KUBERNETES_SERVICE_HOST/PORT` and `POD_NAMESPACE` are read (default `process.env`). */
  readonly env?: Environment;
  /**
   * The directory holding `token`, `ca.crt` and `namespace` (default
   * `/var/run/secrets/kubernetes.io/serviceaccount`).
   */
  readonly serviceAccountDir?: string;
}

/** What in-cluster configuration uses. */
export interface InClusterSettings {
  /** `https://host:port`, IPv6 hosts in brackets. */
  readonly host: string;
  /** The service account token file (absolute). */
  readonly tokenPath: string;
  /** The CA bundle file, when it is readable. */
  readonly caPath: string | undefined;
  /** `POD_NAMESPACE`, else the `namespace` file, else `default`. */
  readonly namespace: string;
}

/** `https://host:port`, bracketing IPv6 literals (Go's `net.JoinHostPort`). */
export function inClusterHost(host: string, port: string): string {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `https://${bracketed}:${port}`;
}

function serviceAccountFile(options: InClusterOptions, name: string): string {
  return resolve(join(options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, name));
}

/**
 * Whether in-cluster configuration is possible: `KUBERNETES_SERVICE_HOST` and
 * `KUBERNETES_SERVICE_PORT` are set and the token file exists (client-go's `Possible()`).
 */
export async function inClusterPossible(options: InClusterOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  if (envValue(env, "KUBERNETES_SERVICE_HOST") === undefined) return false;
  if (envValue(env, "KUBERNETES_SERVICE_PORT") === undefined) return false;
  try {
    return !(await stat(serviceAccountFile(options, "token"))).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` can be read. */
async function readable(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the in-cluster settings.
 *
 * @throws {NotInClusterError} when `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is unset.
 * @throws {ConfigError} when the token file cannot be read.
 */
export async function loadInClusterSettings(
  options: InClusterOptions = {},
): Promise<InClusterSettings> {
  const env = options.env ?? process.env;
  const host = envValue(env, "KUBERNETES_SERVICE_HOST");
  const port = envValue(env, "KUBERNETES_SERVICE_PORT");
  if (host === undefined || port === undefined) {
    throw new NotInClusterError(
      "unable to load in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined",
    );
  }
  const tokenPath = serviceAccountFile(options, "token");
  try {
    await readFile(tokenPath);
  } catch (error) {
    throw new ConfigError(
      `in-cluster service account token ${tokenPath} ${describeFileError(error)}`,
      {},
      { cause: error },
    );
  }
  const caPath = serviceAccountFile(options, "ca.crt");
  let namespace = envValue(env, "POD_NAMESPACE");
  if (namespace === undefined) {
    try {
      const text = (await readFile(serviceAccountFile(options, "namespace"), "utf8")).trim();
      if (text !== "") namespace = text;
    } catch {
      // No namespace file: use "default", as client-go does.
    }
  }
  return {
    host: inClusterHost(host, port),
    tokenPath,
    caPath: (await readable(caPath)) ? caPath : undefined,
    namespace: namespace ?? "default",
  };
}
