/**
 * kubectl's kubeconfig loading rules (client-go's `ClientConfigLoadingRules`):
 * 1. an explicit path (`--kubeconfig`): the only file used, and it must exist;
 * 2. otherwise the `KUBECONFIG` list (split on the OS path delimiter, empty items and
 *    duplicates dropped): missing files are skipped, unreadable or invalid ones are errors;
 * 3. otherwise `~/.kube/config`, skipped when missing.
 * The files found are merged with {@link mergeKubeconfigs}. (client-go's one-time migration
 * of the pre-2015 `~/.kube/.kubeconfig` is not done.)
 */
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { ConfigError } from "./config-error.js";
import { envValue, type Environment } from "./environment.js";
import {
  decodeKubeconfig,
  MAX_KUBECONFIG_BYTES,
  parseKubeconfigYaml,
} from "./kubeconfig-decode.js";
import type { KubeconfigData } from "./kubeconfig-types.js";
import { mergeKubeconfigs } from "./merge.js";
import { describeFileError } from "./referenced-files.js";

/** Inputs of the loading rules. */
export interface LoadingRulesOptions {
  /** An explicit kubeconfig path (like `--kubeconfig`); relative to the working directory. */
  readonly kubeconfig?: string;
  /** Where `KUBECONFIG` and `HOME` are read (default `process.env`). */
  readonly env?: Environment;
  /** The home directory (default `$HOME`, else the OS home directory). */
  readonly homeDir?: string;
}

/** Which files the rules consider, in precedence order (absolute paths). */
export interface KubeconfigPrecedence {
  /** True for an explicit path, which must exist. */
  readonly explicit: boolean;
  readonly paths: readonly string[];
}

/** The result of the loading rules. */
export interface LoadedKubeconfigs {
  /** The merged kubeconfig (empty when no file was found). */
  readonly data: KubeconfigData;
  /** The files that were found and merged, in precedence order (absolute paths). */
  readonly files: readonly string[];
}

/** The candidate files, in precedence order, without touching the file system. */
export function kubeconfigPrecedence(options: LoadingRulesOptions = {}): KubeconfigPrecedence {
  const env = options.env ?? process.env;
  if (options.kubeconfig !== undefined && options.kubeconfig !== "") {
    return { explicit: true, paths: [resolve(options.kubeconfig)] };
  }
  const list = envValue(env, "KUBECONFIG");
  if (list !== undefined) {
    const seen = new Set<string>();
    const paths: string[] = [];
    for (const item of list.split(delimiter)) {
      if (item === "" || seen.has(item)) continue;
      seen.add(item);
      paths.push(resolve(item));
    }
    return { explicit: false, paths };
  }
  const home = options.homeDir ?? envValue(env, "HOME") ?? homedir();
  return { explicit: false, paths: [resolve(join(home, ".kube", "config"))] };
}

/**
 * Reads, parses and decodes one kubeconfig file.
 *
 * @throws {ConfigError} naming the file when it cannot be read or is not a valid kubeconfig.
 */
export async function readKubeconfigFile(path: string): Promise<KubeconfigData> {
  let text: string;
  try {
    // Refuse a file past the parse limit before reading it into memory.
    const { size } = await stat(path);
    if (size > MAX_KUBECONFIG_BYTES) {
      throw new ConfigError(`is larger than ${MAX_KUBECONFIG_BYTES} bytes`, { file: path });
    }
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(describeFileError(error), { file: path }, { cause: error });
  }
  return decodeKubeconfig(parseKubeconfigYaml(text, path), path);
}

/** Reads `path`, or returns undefined when it does not exist. */
async function readIfPresent(path: string): Promise<KubeconfigData | undefined> {
  try {
    return await readKubeconfigFile(path);
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (error instanceof ConfigError && code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Applies the loading rules: finds, reads and merges the kubeconfig files.
 *
 * @throws {ConfigError} when the explicit file does not exist, or any found file cannot be
 *   read or is invalid (the message names the file).
 */
export async function loadKubeconfigFiles(
  options: LoadingRulesOptions = {},
): Promise<LoadedKubeconfigs> {
  const precedence = kubeconfigPrecedence(options);
  if (precedence.explicit) {
    const path = precedence.paths[0] ?? "";
    try {
      await stat(path);
    } catch (error) {
      throw new ConfigError(describeFileError(error), { file: path }, { cause: error });
    }
    return { data: await readKubeconfigFile(path), files: [path] };
  }
  const configs: KubeconfigData[] = [];
  const files: string[] = [];
  for (const path of precedence.paths) {
    const data = await readIfPresent(path);
    if (data === undefined) continue;
    configs.push(data);
    files.push(path);
  }
  return { data: mergeKubeconfigs(configs), files };
}
