/** Temporary directories with kubeconfig fixtures for the config tests. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A temporary directory tree; `path(...)` joins below it. */
export interface TempTree {
  readonly root: string;
  path(...parts: string[]): string;
  /** Writes files (relative path → content), creating directories; `mode` for all of them. */
  write(files: Record<string, string>, mode?: number): Promise<void>;
  remove(): Promise<void>;
}

/** Creates an empty temporary directory tree. */
export async function tempTree(prefix = "kubekit-config-"): Promise<TempTree> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  return {
    root,
    path: (...parts) => join(root, ...parts),
    async write(files, mode = 0o644) {
      for (const [relative, content] of Object.entries(files)) {
        const target = join(root, relative);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content, { mode });
      }
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** Base64 of UTF-8 text. */
export const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

export const CA_PEM = "-----BEGIN CERTIFICATE-----\nQ0EtQQ==\n-----END CERTIFICATE-----\n";
export const CA2_PEM = "-----BEGIN CERTIFICATE-----\nQ0EtMg==\n-----END CERTIFICATE-----\n";
export const CERT_PEM = "-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n";
export const KEY_PEM = "-----BEGIN PRIVATE KEY-----\nU0VDUkVULUtFWQ==\n-----END PRIVATE KEY-----\n";
