import { randomUUID } from "node:crypto";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { stringify } from "yaml";
import type { PemKeyPair } from "./certificates.js";

/** How the kubeconfig's user authenticates; both may be given (client-go then sends both). */
export interface KubeconfigCredentials {
  /** A bearer token, written as `user.token`. */
  readonly token?: string;
  /** A client certificate and key, written base64-encoded as `client-certificate-data` / `client-key-data`. */
  readonly clientCertificate?: PemKeyPair;
}

/** Options of {@link buildKubeconfig}. */
export interface KubeconfigOptions {
  /** The API server URL, `https://127.0.0.1:PORT` or `http://…`. */
  readonly server: string;
  /** The CA that signed the server's certificate, written base64-encoded as `certificate-authority-data`. */
  readonly caPem?: string;
  readonly credentials?: KubeconfigCredentials;
  /** Default `"kubekit"`. */
  readonly clusterName?: string;
  /** Default: the cluster name. */
  readonly userName?: string;
  /** Default: the cluster name. */
  readonly contextName?: string;
  /** The context's default namespace; omitted (kubectl then uses "default") when not given. */
  readonly namespace?: string;
}

/** A `clusters[]` entry of a kubeconfig. */
export interface KubeconfigNamedCluster {
  readonly name: string;
  readonly cluster: { readonly server: string; readonly "certificate-authority-data"?: string };
}

/** A `users[]` entry of a kubeconfig. */
export interface KubeconfigNamedUser {
  readonly name: string;
  readonly user: {
    readonly token?: string;
    readonly "client-certificate-data"?: string;
    readonly "client-key-data"?: string;
  };
}

/** A `contexts[]` entry of a kubeconfig. */
export interface KubeconfigNamedContext {
  readonly name: string;
  readonly context: {
    readonly cluster: string;
    readonly user: string;
    readonly namespace?: string;
  };
}

/** A kubeconfig document (`apiVersion: v1`, `kind: Config`) with one cluster, one user and one context. */
export interface KubeconfigDocument {
  readonly apiVersion: "v1";
  readonly kind: "Config";
  readonly preferences: Readonly<Record<string, never>>;
  readonly clusters: readonly KubeconfigNamedCluster[];
  readonly users: readonly KubeconfigNamedUser[];
  readonly contexts: readonly KubeconfigNamedContext[];
  readonly "current-context": string;
}

const DEFAULT_CLUSTER_NAME = "kubekit";

/**
 * Builds the kubeconfig that points kubectl (or kubekit) at a server: one
 * cluster, one user and one context joining them, which is the current context.
 *
 * Guarantees: PEM data is embedded (base64 of the PEM text, as kubectl expects
 * for the `-data` fields), so the document is self-contained; optional fields
 * are omitted rather than written empty; a user without credentials is `{}`.
 * Caveat: the result holds secrets (token, private key) in clear text.
 *
 * @throws TypeError when `server` is not an absolute http(s) URL, or a name is empty.
 */
export function buildKubeconfig(options: KubeconfigOptions): KubeconfigDocument {
  const url = URL.canParse(options.server) ? new URL(options.server) : undefined;
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new TypeError(
      `kubeconfig server must be an http:// or https:// URL, got ${JSON.stringify(options.server)}`,
    );
  }
  const clusterName = options.clusterName ?? DEFAULT_CLUSTER_NAME;
  const userName = options.userName ?? clusterName;
  const contextName = options.contextName ?? clusterName;
  for (const [field, value] of [
    ["clusterName", clusterName],
    ["userName", userName],
    ["contextName", contextName],
  ] as const) {
    if (value.length === 0) throw new TypeError(`kubeconfig ${field} must not be empty`);
  }

  const cluster: KubeconfigNamedCluster["cluster"] =
    options.caPem === undefined
      ? { server: options.server }
      : { server: options.server, "certificate-authority-data": base64(options.caPem) };
  const credentials = options.credentials ?? {};
  const user: KubeconfigNamedUser["user"] = {
    ...(credentials.token === undefined ? {} : { token: credentials.token }),
    ...(credentials.clientCertificate === undefined
      ? {}
      : {
          "client-certificate-data": base64(credentials.clientCertificate.certPem),
          "client-key-data": base64(credentials.clientCertificate.keyPem),
        }),
  };
  const context: KubeconfigNamedContext["context"] =
    options.namespace === undefined
      ? { cluster: clusterName, user: userName }
      : { cluster: clusterName, user: userName, namespace: options.namespace };

  return {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name: clusterName, cluster }],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context }],
    "current-context": contextName,
  };
}

/** Serializes a kubeconfig (or any plain object) as YAML, without folding long lines. */
export function kubeconfigYaml(config: object): string {
  return stringify(config, { lineWidth: 0 });
}

/**
 * Writes a kubeconfig as YAML to `path`.
 *
 * Guarantees: the file has mode 0600 (also when it already existed with another
 * mode) and is replaced atomically (written to a temporary file in the same
 * folder, then renamed), so readers never see a partial file. A missing parent
 * folder is created, with its missing ancestors, with mode 0700 (less umask
 * bits). Caveats: an existing symlink at `path` is replaced, not followed;
 * modes are POSIX notions and mostly ignored on Windows.
 */
export async function writeKubeconfigFile(path: string, config: object): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = join(folder, `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, kubeconfigYaml(config), { mode: 0o600, flag: "wx" });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function base64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}
