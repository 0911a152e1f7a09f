/**
 * The connection settings a client is built from (client-go's rest.Config): produced by
 * {@link KubeConfig.restConfig} from kubeconfig files or in-cluster settings, consumed by
 * the rest layer's transport. A plain object; its credential source is the only part with
 * behaviour (tokens that refresh, exec plugins).
 */

/**
 * client-go's default client-side rate limit in queries per second (`rest.DefaultQPS`,
 * `staging/src/k8s.io/client-go/rest/config.go`): the `qps` of configs built from a
 * kubeconfig, and what a `qps` of 0 means to a RESTClient.
 */
export const DEFAULT_QPS = 5;

/**
 * client-go's default client-side rate limit burst (`rest.DefaultBurst`,
 * `staging/src/k8s.io/client-go/rest/config.go`): the `burst` of configs built from a
 * kubeconfig, and what a `burst` <= 0 means to a RESTClient.
 */
export const DEFAULT_BURST = 10;

/**
 * The connection settings of a client (client-go's `rest.Config`): where the API server is,
 * how to trust it and authenticate, and the client-side limits. Build it with
 * `KubeConfig.restConfig()`; spread it to change a field (`{ ...rc, qps: -1 }`).
 */
export interface RestConfig {
  /**
   * Base URL, always with a scheme, e.g. `https://10.0.0.1:6443`; a path is a prefix for
   * every request. A kubeconfig server without a scheme yields `http://` (as in client-go).
   */
  readonly host: string;
  /** Empty for `http://` hosts: client-go applies TLS settings only to https. */
  readonly tls: TlsSettings;
  /**
   * Where the credentials of each request come from. Always `none` for `http://` hosts:
   * client-go sends kubeconfig credentials only over TLS.
   */
  readonly credentials: CredentialSource;
  /** Impersonation headers (Impersonate-User, -Uid, -Group, -Extra-*). */
  readonly impersonate?: Impersonation;
  /** An http, https or socks5 proxy URL. */
  readonly proxyUrl?: string;
  /** Client-side rate limit: queries per second ({@link DEFAULT_QPS} when 0; negative disables). */
  readonly qps: number;
  /** Client-side rate limit burst ({@link DEFAULT_BURST} when <= 0). */
  readonly burst: number;
  /** User-Agent override; default `kubekit/<version> (<os>/<arch>)`. */
  readonly userAgent?: string;
  /** Per-request timeout in ms (0 or absent: none). */
  readonly timeoutMs?: number;
  /** Do not ask for gzip-compressed responses. */
  readonly disableCompression?: boolean;
}

/** TLS settings of a connection; only used for https hosts. */
export interface TlsSettings {
  /** PEM of the CA bundle to trust (instead of the system roots). */
  readonly caPem?: string;
  /** PEM of a static client certificate and its key. */
  readonly certPem?: string;
  readonly keyPem?: string;
  /** Skip server certificate verification (never together with a CA). */
  readonly insecureSkipTlsVerify?: boolean;
  /** The name to verify the server certificate against (SNI), when it differs from the host. */
  readonly serverName?: string;
}

/** Impersonation of another user (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`). */
export interface Impersonation {
  readonly user?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The credentials to attach to one request. */
export interface RequestCredentials {
  /** Headers to add, e.g. `Authorization: Bearer …` or `Basic …`. */
  readonly headers: Readonly<Record<string, string>>;
  /** A client certificate that replaces the static one (exec plugins may return one). */
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
}

/**
 * A source of request credentials. Implementations: none, static token, token file
 * (re-read periodically and after a 401), basic auth, exec plugin (cached until expiry,
 * refreshed after a 401, one process at a time), in-cluster service account token.
 * `toString()`/inspection of an implementation never reveals secrets.
 */
export interface CredentialSource {
  /** What kind of source this is (for diagnostics; carries no secret). */
  readonly kind: "none" | "token" | "tokenFile" | "basic" | "exec" | "inCluster";
  /** The credentials for the next request. */
  get(signal?: AbortSignal): Promise<RequestCredentials>;
  /** Called after a 401: cached credentials are dropped so the next `get` refreshes them. */
  invalidate(): void;
}
