/**
 * The default `User-Agent` of kubekit's requests, shaped like client-go's:
 * `kubekit/<version> (<os>/<arch>)`, with Go's names for the OS and architecture.
 */
import { createRequire } from "node:module";
import { endianness } from "node:os";

let cachedVersion: string | undefined;

/**
 * kubekit's version from its package.json ("unknown" when it cannot be read), read once,
 * without top-level await.
 */
export function packageVersion(): string {
  if (cachedVersion === undefined) {
    // src/rest/ and dist/rest/ are both two levels below the package root.
    const manifest: unknown = createRequire(import.meta.url)("../../package.json");
    const version =
      typeof manifest === "object" && manifest !== null
        ? (manifest as { version?: unknown }).version
        : undefined;
    cachedVersion = typeof version === "string" && version !== "" ? version : "unknown";
  }
  return cachedVersion;
}

/** Node's `process.platform` as Go's GOOS. */
function goOs(platform: string): string {
  return platform === "win32" ? "windows" : platform;
}

/** Node's `process.arch` as Go's GOARCH. */
function goArch(arch: string): string {
  switch (arch) {
    case "x64":
      return "amd64";
    case "ia32":
      return "386";
    case "ppc64":
      return endianness() === "LE" ? "ppc64le" : "ppc64";
    default:
      return arch;
  }
}

/**
 * `kubekit/<version> (<os>/<arch>)`, e.g. `kubekit/0.1.0 (linux/amd64)`. The version comes
 * from kubekit's package.json, read on first use.
 */
export function defaultUserAgent(): string {
  return `kubekit/${packageVersion()} (${goOs(process.platform)}/${goArch(process.arch)})`;
}
