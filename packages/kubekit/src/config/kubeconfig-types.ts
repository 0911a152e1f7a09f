/**
 * The kubeconfig file format (`apiVersion: v1`, `kind: Config`, client-go's
 * `tools/clientcmd/api/v1`) in its wire JSON spelling, and the decoded form the config layer
 * works on (named entries in maps, each remembering the file that defined it).
 */
import type { JsonValue } from "../core/json.js";

/** A named extension: arbitrary JSON attached to a config, cluster, user or context. */
export interface NamedExtension {
  name: string;
  extension: JsonValue;
}

/** A cluster: where the API server is and how to trust it. */
export interface Cluster {
  /** The API server URL (`https://host:port[/prefix]`). Always present in views ("" if unset). */
  server?: string;
  /** The name to verify the server certificate against (SNI). */
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: boolean;
  /** Path of a CA bundle file; relative paths are relative to the kubeconfig file. */
  "certificate-authority"?: string;
  /** Base64 of a PEM CA bundle; overrides `certificate-authority`. */
  "certificate-authority-data"?: string;
  /** An http, https or socks5 proxy URL. */
  "proxy-url"?: string;
  "disable-compression"?: boolean;
  extensions?: NamedExtension[];
}

/** How an exec credential plugin may interact with the user. */
export type ExecInteractiveMode = "Never" | "IfAvailable" | "Always";

/** An environment variable passed to an exec plugin. */
export interface ExecEnvVar {
  name: string;
  value: string;
}

/** An exec credential plugin (client-go's `ExecConfig`). */
export interface ExecConfig {
  /** The command; a relative path containing a separator is relative to the kubeconfig file. */
  command: string;
  args?: string[] | null;
  env?: ExecEnvVar[] | null;
  /** `client.authentication.k8s.io/v1` or `/v1beta1`. */
  apiVersion?: string;
  /** Printed when the command is not found. */
  installHint?: string;
  /** Pass the cluster's connection details in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo?: boolean;
  /** Required for v1; defaults to `IfAvailable` for v1beta1. */
  interactiveMode?: ExecInteractiveMode | string;
}

/** A legacy auth provider (oidc, gcp, azure). Not supported by kubekit beyond viewing. */
export interface AuthProviderConfig {
  name: string;
  config?: Record<string, string> | null;
}

/** A user: the credentials and impersonation settings (client-go's `AuthInfo`). */
export interface AuthInfo {
  "client-certificate"?: string;
  /** Base64 of a PEM client certificate. */
  "client-certificate-data"?: string;
  "client-key"?: string;
  /** Base64 of a PEM private key. */
  "client-key-data"?: string;
  token?: string;
  tokenFile?: string;
  /** Impersonate this user. */
  as?: string;
  "as-uid"?: string;
  "as-groups"?: string[];
  "as-user-extra"?: Record<string, string[] | null>;
  username?: string;
  password?: string;
  "auth-provider"?: AuthProviderConfig;
  exec?: ExecConfig;
  extensions?: NamedExtension[];
}

/** A context: a cluster, a user and a default namespace. */
export interface Context {
  cluster?: string;
  user?: string;
  namespace?: string;
  extensions?: NamedExtension[];
}

/** Client preferences (legacy; kept for fidelity). */
export interface Preferences {
  colors?: boolean;
  extensions?: NamedExtension[];
}

/** A `clusters[]` item. */
export interface NamedCluster {
  name: string;
  cluster: Cluster;
}

/** A `users[]` item. */
export interface NamedAuthInfo {
  name: string;
  user: AuthInfo;
}

/** A `contexts[]` item. */
export interface NamedContext {
  name: string;
  context: Context;
}

/** A kubeconfig document as written in a file; every field is optional. */
export interface KubeconfigDocument {
  kind?: string;
  apiVersion?: string;
  preferences?: Preferences;
  clusters?: NamedCluster[] | null;
  users?: NamedAuthInfo[] | null;
  contexts?: NamedContext[] | null;
  "current-context"?: string;
  extensions?: NamedExtension[];
}

/**
 * A kubeconfig as `kubectl config view -o json` prints it: every top-level field present,
 * lists sorted by name and `null` when empty (as kubectl prints them).
 */
export interface KubeconfigView {
  kind: "Config";
  apiVersion: "v1";
  preferences: Preferences;
  clusters: NamedCluster[] | null;
  users: NamedAuthInfo[] | null;
  contexts: NamedContext[] | null;
  "current-context": string;
  extensions?: NamedExtension[];
}

/** A decoded entry and the file that defined it (used to resolve its relative paths). */
export interface Located<T> {
  readonly value: T;
  /** Absolute path of the defining file; absent for in-memory documents without a path. */
  readonly origin: string | undefined;
}

/**
 * A decoded kubeconfig (one file, or several merged): client-go's internal `api.Config`.
 * Entries hold only fields that are set (empty strings, `false` and empty lists are dropped,
 * as Go's `omitempty` does), `*-data` fields hold canonical base64.
 */
export interface KubeconfigData {
  readonly clusters: ReadonlyMap<string, Located<Cluster>>;
  readonly users: ReadonlyMap<string, Located<AuthInfo>>;
  readonly contexts: ReadonlyMap<string, Located<Context>>;
  /** "" when unset. */
  readonly currentContext: string;
  readonly preferences: {
    readonly colors: boolean;
    readonly extensions: ReadonlyMap<string, JsonValue>;
  };
  readonly extensions: ReadonlyMap<string, JsonValue>;
}
