/**
 * Files a kubeconfig refers to (certificate authorities, client certificates and keys, token
 * files, exec commands): resolving their paths against the kubeconfig that named them, and
 * reading them with errors that say which file, entry and field.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError, type ConfigErrorLocation } from "./config-error.js";

/**
 * `path` resolved against the directory of `origin` (the kubeconfig file that named it), or
 * against the working directory for in-memory kubeconfigs. Absolute paths are unchanged;
 * `~` is not expanded (client-go does not either).
 */
export function resolveReferencedPath(path: string, origin: string | undefined): string {
  if (isAbsolute(path)) return path;
  return origin === undefined ? resolve(path) : resolve(dirname(origin), path);
}

/** A short description of a file system error: `does not exist`, `is a directory`, … */
export function describeFileError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "does not exist";
    case "EISDIR":
      return "is a directory";
    case "EACCES":
    case "EPERM":
      return "cannot be read (permission denied)";
    case "ENOTDIR":
      return "does not exist (a parent is not a directory)";
    default:
      return `cannot be read (${typeof code === "string" ? code : String(error)})`;
  }
}

/**
 * Reads a referenced file synchronously (used when building a rest config, which client-go
 * also does synchronously).
 *
 * @throws {ConfigError} `<location>: file <path> does not exist` and the like.
 */
export function readReferencedFileSync(path: string, location: ConfigErrorLocation): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`file ${path} ${describeFileError(error)}`, location, { cause: error });
  }
}
