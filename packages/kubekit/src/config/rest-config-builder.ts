/**
 * Turning the selected kubeconfig context into a {@link RestConfig}, with client-go's rules
 * (`DirectClientConfig.ClientConfig` and its validation):
 * - host: the server override, else the cluster's `server`, else `KUBERNETES_MASTER`, else
 *   `http://localhost:8080`; a server without a scheme is plain http; with a path, the query
 *   and fragment are dropped;
 * - the user's credentials and the cluster's TLS settings only apply to https hosts (over
 *   plain http no `Authorization` header is sent); impersonation, proxy and compression
 *   settings always apply;
 * - `*-data` and file forms of a certificate, key or CA are mutually exclusive (kubectl rejects
 *   both being set), as are `insecure-skip-tls-verify` and a CA, and token and basic auth;
 * - credential precedence: token (with `tokenFile` recorded for refresh), token file, basic
 *   auth, exec plugin; legacy auth providers are not supported;
 * - referenced files are read now (synchronously), so a missing file fails here, naming the
 *   kubeconfig file, the entry and the field.
 */
import { sep } from "node:path";
import type { Clock } from "../core/clock.js";
import type { JsonValue } from "../core/json.js";
import { ConfigError, type ConfigEntryKind, type ConfigErrorLocation } from "./config-error.js";
import { selectContext, type KubeConfigOverrides } from "./context-selection.js";
import { envValue, type Environment } from "./environment.js";
import {
  EXEC_CLUSTER_CONFIG_EXTENSION,
  EXEC_CREDENTIAL_API_VERSIONS,
  isExecCredentialApiVersion,
  type ExecClusterInfo,
} from "./exec-credential.js";
import { ExecCredentials, type ExecPluginSettings } from "./exec-plugin.js";
import { compact } from "./kubeconfig-decode.js";
import type { AuthInfo, Cluster, ExecConfig, KubeconfigData, Located } from "./kubeconfig-types.js";
import { REDACTED, redactUrlPassword, withRedactedRendering } from "./redaction.js";
import { readReferencedFileSync, resolveReferencedPath } from "./referenced-files.js";
import {
  DEFAULT_BURST,
  DEFAULT_QPS,
  type CredentialSource,
  type Impersonation,
  type RestConfig,
  type TlsSettings,
} from "./rest-config.js";
import {
  BasicAuthCredentials,
  NoCredentials,
  StaticTokenCredentials,
} from "./static-credentials.js";
import { TokenFileCredentials } from "./token-file.js";

/** The server used when the kubeconfig names none and `KUBERNETES_MASTER` is unset. */
export const LEGACY_DEFAULT_SERVER = "http://localhost:8080";

/** The schemes a `proxy-url` may use. */
const PROXY_SCHEMES = new Set(["http:", "https:", "socks5:"]);

/** The default server: `KUBERNETES_MASTER` or {@link LEGACY_DEFAULT_SERVER}. */
export function defaultServer(env: Environment): string {
  return envValue(env, "KUBERNETES_MASTER") ?? LEGACY_DEFAULT_SERVER;
}

/** Inputs of {@link buildRestConfig}. */
export interface RestConfigBuildOptions {
  readonly data: KubeconfigData;
  readonly overrides: KubeConfigOverrides;
  readonly env: Environment;
  readonly clock: Clock;
  /** Whether exec plugins may use stdin (it is a terminal). */
  readonly stdinIsTerminal: boolean;
  /** Timeout of non-interactive exec plugin runs (default: the plugin source's). */
  readonly execTimeoutMs?: number;
  /** The selected user's token file is the in-cluster service account token. */
  readonly inCluster: boolean;
  /**
   * Credential sources by settings, shared across calls so that every client built from one
   * KubeConfig shares one exec plugin cache and one token file cache.
   */
  readonly credentialCache: Map<string, CredentialSource>;
}

/** Builds error locations for one entry. */
type Locator = (field?: string) => ConfigErrorLocation;

function locator(kind: ConfigEntryKind, name: string, origin: string | undefined): Locator {
  return (field) => ({
    ...(origin !== undefined && { file: origin }),
    ...(name !== "" && { entry: { kind, name } }),
    ...(field !== undefined && { field }),
  });
}

function checkUser(user: AuthInfo, at: Locator): void {
  const hasToken = user.token !== undefined || user.tokenFile !== undefined;
  if (hasToken && (user.username !== undefined || user.password !== undefined)) {
    throw new ConfigError(
      "token and basic auth (username/password) are both set; only one authentication method is allowed",
      at(user.token !== undefined ? "token" : "tokenFile"),
    );
  }
  if (user["client-certificate"] !== undefined || user["client-certificate-data"] !== undefined) {
    if (user["client-certificate"] !== undefined && user["client-certificate-data"] !== undefined) {
      throw new ConfigError(
        "is set together with client-certificate; set only one",
        at("client-certificate-data"),
      );
    }
    if (user["client-key"] !== undefined && user["client-key-data"] !== undefined) {
      throw new ConfigError("is set together with client-key; set only one", at("client-key-data"));
    }
    if (user["client-key"] === undefined && user["client-key-data"] === undefined) {
      throw new ConfigError(
        "missing: a client certificate needs client-key or client-key-data",
        at("client-key"),
      );
    }
  }
  if (user.exec !== undefined) checkExec(user, user.exec, at);
  const asExtras =
    user["as-uid"] !== undefined ||
    user["as-groups"] !== undefined ||
    user["as-user-extra"] !== undefined;
  if (asExtras && user.as === undefined) {
    throw new ConfigError(
      "as-uid, as-groups and as-user-extra require as (the user to impersonate)",
      at("as"),
    );
  }
}

function checkExec(user: AuthInfo, exec: ExecConfig, at: Locator): void {
  if (user["auth-provider"] !== undefined) {
    throw new ConfigError("cannot be combined with auth-provider", at("exec"));
  }
  if (exec.command === "")
    throw new ConfigError("missing: the plugin command is required", at("exec.command"));
  if (exec.apiVersion === undefined) {
    throw new ConfigError("missing: the plugin apiVersion is required", at("exec.apiVersion"));
  }
  if (!isExecCredentialApiVersion(exec.apiVersion)) {
    throw new ConfigError(
      `${JSON.stringify(exec.apiVersion)} is not supported (use ${EXEC_CREDENTIAL_API_VERSIONS.join(" or ")})`,
      at("exec.apiVersion"),
    );
  }
  (exec.env ?? []).forEach((variable, i) => {
    if (variable.name === "")
      throw new ConfigError("missing: the variable name is required", at(`exec.env[${i}].name`));
  });
  const mode = exec.interactiveMode;
  if (mode === undefined) {
    throw new ConfigError(
      `missing: required for ${exec.apiVersion} (Never, IfAvailable or Always)`,
      at("exec.interactiveMode"),
    );
  }
  if (mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    throw new ConfigError(
      `${JSON.stringify(mode)} is not valid (Never, IfAvailable or Always)`,
      at("exec.interactiveMode"),
    );
  }
}

function checkCluster(cluster: Cluster, at: Locator): void {
  const proxy = cluster["proxy-url"];
  if (proxy !== undefined) {
    let scheme: string;
    try {
      scheme = new URL(proxy).protocol;
    } catch {
      throw new ConfigError("is not a valid URL", at("proxy-url"));
    }
    if (!PROXY_SCHEMES.has(scheme)) {
      throw new ConfigError(
        `unsupported scheme ${JSON.stringify(scheme.slice(0, -1))}, must be http, https, or socks5`,
        at("proxy-url"),
      );
    }
  }
  if (
    cluster["certificate-authority"] !== undefined &&
    cluster["certificate-authority-data"] !== undefined
  ) {
    throw new ConfigError(
      "is set together with certificate-authority; set only one",
      at("certificate-authority-data"),
    );
  }
}

/** The host as client-go normalizes it; see the module documentation. */
function normalizeHost(server: string, at: ConfigErrorLocation): { host: string; tls: boolean } {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(server) ? server : `http://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigError(`${JSON.stringify(redactUrlPassword(server))} is not a valid URL`, at);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(
      `${JSON.stringify(redactUrlPassword(server))} must be an http or https URL`,
      at,
    );
  }
  let host = withScheme;
  if (url.pathname.length > 1) host = host.replace(/[?#].*$/, "");
  return { host, tls: url.protocol === "https:" };
}

/** A PEM from base64 data or a file (resolved against the defining kubeconfig). */
function pem(
  data: string | undefined,
  file: string | undefined,
  origin: string | undefined,
  at: ConfigErrorLocation,
): string | undefined {
  if (data !== undefined) return Buffer.from(data, "base64").toString("utf8");
  if (file === undefined) return undefined;
  return readReferencedFileSync(resolveReferencedPath(file, origin), at).toString("utf8");
}

/** Caches a credential source under `key` (see {@link RestConfigBuildOptions.credentialCache}). */
function cached(
  cache: Map<string, CredentialSource>,
  key: readonly unknown[],
  create: () => CredentialSource,
): CredentialSource {
  const k = JSON.stringify(key);
  let source = cache.get(k);
  if (source === undefined) {
    source = create();
    cache.set(k, source);
  }
  return source;
}

interface CredentialInputs {
  readonly options: RestConfigBuildOptions;
  readonly user: AuthInfo;
  readonly userName: string;
  readonly origin: string | undefined;
  readonly at: Locator;
  readonly cluster: ExecClusterInfo;
  readonly clusterExtension: JsonValue | undefined;
}

function execSettings(exec: ExecConfig, inputs: CredentialInputs): ExecPluginSettings {
  const command =
    exec.command.includes(sep) || exec.command.includes("/")
      ? resolveReferencedPath(exec.command, inputs.origin)
      : exec.command;
  const cluster =
    inputs.clusterExtension === undefined
      ? inputs.cluster
      : { ...inputs.cluster, config: inputs.clusterExtension };
  return {
    command,
    args: exec.args ?? [],
    env: exec.env ?? [],
    apiVersion: exec.apiVersion as ExecPluginSettings["apiVersion"],
    interactiveMode: exec.interactiveMode as ExecPluginSettings["interactiveMode"],
    ...(exec.installHint !== undefined && { installHint: exec.installHint }),
    ...(exec.provideClusterInfo === true && { cluster }),
  };
}

/** The credential source of an https connection; see the module documentation for precedence. */
function credentialSource(inputs: CredentialInputs): CredentialSource {
  const { options, user, at } = inputs;
  const cache = options.credentialCache;
  if (user.tokenFile !== undefined) {
    const path = resolveReferencedPath(user.tokenFile, inputs.origin);
    let fallbackToken = user.token;
    if (fallbackToken === undefined) {
      fallbackToken = readReferencedFileSync(path, at("tokenFile")).toString("utf8").trim();
      if (fallbackToken === "") throw new ConfigError(`file ${path} is empty`, at("tokenFile"));
    }
    const kind = options.inCluster ? "inCluster" : "tokenFile";
    const seed = fallbackToken;
    return cached(cache, [kind, path, inputs.userName, user.token ?? null], () => {
      return new TokenFileCredentials({
        path,
        kind,
        fallbackToken: seed,
        clock: options.clock,
        location: at("tokenFile"),
      });
    });
  }
  if (user.token !== undefined) return new StaticTokenCredentials(user.token);
  if (user.username !== undefined || user.password !== undefined) {
    return new BasicAuthCredentials(user.username ?? "", user.password ?? "");
  }
  if (user.exec !== undefined) {
    const settings = execSettings(user.exec, inputs);
    return cached(cache, ["exec", inputs.userName, settings], () => {
      return new ExecCredentials(settings, {
        clock: options.clock,
        env: options.env,
        stdinIsTerminal: options.stdinIsTerminal,
        location: at("exec"),
        ...(options.execTimeoutMs !== undefined && { timeoutMs: options.execTimeoutMs }),
      });
    });
  }
  const provider = user["auth-provider"];
  if (provider !== undefined) {
    throw new ConfigError(
      `auth provider ${JSON.stringify(provider.name)} is not supported; use an exec credential plugin instead`,
      at("auth-provider"),
    );
  }
  return new NoCredentials();
}

function impersonation(user: AuthInfo): Impersonation | undefined {
  if (user.as === undefined) return undefined;
  const extra = user["as-user-extra"];
  return compact<Impersonation>({
    user: user.as,
    uid: user["as-uid"],
    groups: user["as-groups"] && [...user["as-groups"]],
    extra:
      extra &&
      Object.fromEntries(Object.entries(extra).map(([key, values]) => [key, [...(values ?? [])]])),
  });
}

function tlsSummary(tls: TlsSettings): JsonValue {
  return compact({
    caPem: tls.caPem === undefined ? undefined : "(PEM)",
    certPem: tls.certPem === undefined ? undefined : "(PEM)",
    keyPem: tls.keyPem === undefined ? undefined : REDACTED,
    insecureSkipTlsVerify: tls.insecureSkipTlsVerify,
    serverName: tls.serverName,
  }) as JsonValue;
}

/**
 * Builds the rest config of the selected context; see the module documentation.
 *
 * @throws {ConfigError} naming the file, entry and field of the first problem.
 */
export function buildRestConfig(options: RestConfigBuildOptions): RestConfig {
  const { data, overrides } = options;
  const selection = selectContext(data, overrides);
  if (selection.contextName !== "" && selection.context === undefined) {
    throw new ConfigError(`context ${JSON.stringify(selection.contextName)} does not exist`, {
      field: "current-context",
    });
  }
  const userEntry: Located<AuthInfo> | undefined = selection.user;
  const user = userEntry?.value ?? {};
  const atUser = locator("user", selection.userName, userEntry?.origin);
  const clusterEntry: Located<Cluster> | undefined = selection.cluster;
  const cluster = clusterEntry?.value ?? {};
  const atCluster = locator("cluster", selection.clusterName, clusterEntry?.origin);
  checkUser(user, atUser);
  checkCluster(cluster, atCluster);

  const serverOverride = overrides.server === "" ? undefined : overrides.server;
  const { host, tls: isTls } = normalizeHost(
    serverOverride ?? cluster.server ?? defaultServer(options.env),
    serverOverride === undefined ? atCluster("server") : { field: "server (override)" },
  );

  // Read every referenced file now, even for plain http, so a missing file always fails.
  const caPem = pem(
    cluster["certificate-authority-data"],
    cluster["certificate-authority"],
    clusterEntry?.origin,
    atCluster("certificate-authority"),
  );
  const certPem = pem(
    user["client-certificate-data"],
    user["client-certificate"],
    userEntry?.origin,
    atUser("client-certificate"),
  );
  const keyPem =
    certPem === undefined
      ? undefined
      : pem(user["client-key-data"], user["client-key"], userEntry?.origin, atUser("client-key"));
  const insecure = cluster["insecure-skip-tls-verify"] === true;
  const serverName = serverOverride === undefined ? cluster["tls-server-name"] : undefined;

  let tls: TlsSettings = {};
  let credentials: CredentialSource = new NoCredentials();
  if (isTls) {
    if (insecure && caPem !== undefined) {
      throw new ConfigError(
        "cannot be combined with a certificate authority (certificate-authority or certificate-authority-data)",
        atCluster("insecure-skip-tls-verify"),
      );
    }
    tls = compact<TlsSettings>({
      caPem,
      certPem,
      keyPem,
      insecureSkipTlsVerify: insecure ? true : undefined,
      serverName,
    });
    const clusterExtension = cluster.extensions?.find(
      (e) => e.name === EXEC_CLUSTER_CONFIG_EXTENSION,
    );
    credentials = credentialSource({
      options,
      user,
      userName: selection.userName,
      origin: userEntry?.origin,
      at: atUser,
      cluster: compact<ExecClusterInfo>({
        server: host,
        "tls-server-name": serverName,
        "insecure-skip-tls-verify": insecure ? true : undefined,
        "certificate-authority-data":
          caPem === undefined ? undefined : Buffer.from(caPem, "utf8").toString("base64"),
        "proxy-url": cluster["proxy-url"],
        "disable-compression": cluster["disable-compression"],
      }),
      clusterExtension: clusterExtension?.extension,
    });
  }

  const impersonate = impersonation(user);
  const proxyUrl = cluster["proxy-url"];
  const config: RestConfig = {
    host,
    tls: Object.freeze(withRedactedRendering(tls, "TlsSettings", () => tlsSummary(tls))),
    credentials,
    ...(impersonate !== undefined && { impersonate }),
    ...(proxyUrl !== undefined && { proxyUrl }),
    qps: DEFAULT_QPS,
    burst: DEFAULT_BURST,
    ...(cluster["disable-compression"] === true && { disableCompression: true }),
  };
  return Object.freeze(
    withRedactedRendering(config, "RestConfig", () => restConfigSummary(config, tls)),
  );
}

/** What a rendered RestConfig shows: credentials by kind only, passwords in URLs redacted. */
function restConfigSummary(config: RestConfig, tls: TlsSettings): JsonValue {
  return compact({
    host: redactUrlPassword(config.host),
    tls: tlsSummary(tls),
    credentials: config.credentials.kind,
    impersonate:
      config.impersonate === undefined
        ? undefined
        : (JSON.parse(JSON.stringify(config.impersonate)) as JsonValue),
    proxyUrl: config.proxyUrl === undefined ? undefined : redactUrlPassword(config.proxyUrl),
    qps: config.qps,
    burst: config.burst,
    disableCompression: config.disableCompression,
  }) as JsonValue;
}
