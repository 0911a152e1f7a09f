/**
 * Rendering of a decoded kubeconfig as `kubectl config view -o json` prints it: fields in
 * client-go's order, lists sorted by name (`null` when empty), `server`, `cluster`, `user`,
 * exec `command`/`args`/`env`/`provideClusterInfo` always present, and secrets redacted
 * unless raw: `*-data` fields become `DATA+OMITTED`, `token` and `password` `REDACTED`, and a
 * password in a `server` or `proxy-url` URL `REDACTED` (stricter than kubectl, which shows it).
 * Like kubectl, the non-raw view still shows auth-provider config and exec env values.
 */
import type { JsonValue } from "../core/json.js";
import { ConfigError } from "./config-error.js";
import { compact } from "./kubeconfig-decode.js";
import type {
  AuthInfo,
  Cluster,
  Context,
  KubeconfigData,
  KubeconfigView,
  Located,
  NamedExtension,
} from "./kubeconfig-types.js";
import { DATA_OMITTED, REDACTED, redactUrlPassword } from "./redaction.js";
import { readReferencedFileSync, resolveReferencedPath } from "./referenced-files.js";

/** Options of a view (kubectl's `config view` flags). */
export interface KubeconfigViewOptions {
  /** Show secrets (`--raw`). */
  readonly raw?: boolean;
  /**
   * Keep only the current context and the cluster and user it names (`--minify`).
   * Fails when there is no current context or it names a missing entry.
   */
  readonly minify?: boolean;
  /**
   * Inline the certificate and key files as `*-data` (`--flatten`); implies raw. Token files
   * and exec commands stay references, as in kubectl.
   */
  readonly flatten?: boolean;
}

/** Inputs beyond the public options. */
export interface RenderViewOptions extends KubeconfigViewOptions {
  /** The context {@link KubeconfigViewOptions.minify} keeps (the override-aware current context). */
  readonly currentContext: string;
  /**
   * Redact more than kubectl: also auth-provider config values and exec env values (used by
   * `toJSON`/inspection of a KubeConfig). Ignored when raw or flattening.
   */
  readonly redactAll?: boolean;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map].sort(([a], [b]) => byName(a, b));
}

/** Extensions in view form: sorted by name, absent when empty. */
function renderExtensions(
  extensions: readonly NamedExtension[] | ReadonlyMap<string, JsonValue> | undefined,
): NamedExtension[] | undefined {
  if (extensions === undefined) return undefined;
  const list: NamedExtension[] =
    extensions instanceof Map
      ? [...extensions].map(([name, extension]) => ({ name, extension }))
      : [...(extensions as readonly NamedExtension[])];
  if (list.length === 0) return undefined;
  return list.sort((a, b) => byName(a.name, b.name)).map((e) => structuredClone(e));
}

interface Mode {
  readonly hide: boolean;
  readonly redactAll: boolean;
  readonly flatten: boolean;
}

/**
 * Inlines a file reference as base64 data (kubectl's `--flatten`).
 *
 * @throws {ConfigError} when both the file and the data are set, or the file cannot be read.
 */
function inline(
  path: string | undefined,
  data: string | undefined,
  located: Located<unknown>,
  entry: { kind: "cluster" | "user"; name: string },
  field: string,
): { path: string | undefined; data: string | undefined } {
  if (path === undefined) return { path, data };
  const location = {
    ...(located.origin !== undefined && { file: located.origin }),
    entry,
    field,
  };
  if (data !== undefined) {
    throw new ConfigError(`cannot be inlined: ${field}-data is also set`, location);
  }
  const resolved = resolveReferencedPath(path, located.origin);
  return { path: undefined, data: readReferencedFileSync(resolved, location).toString("base64") };
}

/** A server or proxy URL with its password redacted, unless raw. */
function hiddenUrlPassword(url: string, mode: Mode): string {
  return mode.hide ? redactUrlPassword(url) : url;
}

function renderCluster(name: string, located: Located<Cluster>, mode: Mode): Cluster {
  const c = located.value;
  let ca = { path: c["certificate-authority"], data: c["certificate-authority-data"] };
  if (mode.flatten) {
    ca = inline(ca.path, ca.data, located, { kind: "cluster", name }, "certificate-authority");
  }
  return compact<Cluster>({
    server: c.server === undefined ? "" : hiddenUrlPassword(c.server, mode),
    "tls-server-name": c["tls-server-name"],
    "insecure-skip-tls-verify": c["insecure-skip-tls-verify"],
    "certificate-authority": ca.path,
    "certificate-authority-data": ca.data !== undefined && mode.hide ? DATA_OMITTED : ca.data,
    "proxy-url": c["proxy-url"] && hiddenUrlPassword(c["proxy-url"], mode),
    "disable-compression": c["disable-compression"],
    extensions: renderExtensions(c.extensions),
  });
}

function renderAuthInfo(name: string, located: Located<AuthInfo>, mode: Mode): AuthInfo {
  const u = located.value;
  const entry = { kind: "user", name } as const;
  let cert = { path: u["client-certificate"], data: u["client-certificate-data"] };
  let key = { path: u["client-key"], data: u["client-key-data"] };
  if (mode.flatten) {
    cert = inline(cert.path, cert.data, located, entry, "client-certificate");
    key = inline(key.path, key.data, located, entry, "client-key");
  }
  const hidden = (value: string | undefined, placeholder: string): string | undefined =>
    value !== undefined && mode.hide ? placeholder : value;
  const provider = u["auth-provider"];
  const exec = u.exec;
  return compact<AuthInfo>({
    "client-certificate": cert.path,
    "client-certificate-data": hidden(cert.data, DATA_OMITTED),
    "client-key": key.path,
    "client-key-data": hidden(key.data, DATA_OMITTED),
    token: hidden(u.token, REDACTED),
    tokenFile: u.tokenFile,
    as: u.as,
    "as-uid": u["as-uid"],
    "as-groups": u["as-groups"] && [...u["as-groups"]],
    "as-user-extra": u["as-user-extra"] && structuredClone(u["as-user-extra"]),
    username: u.username,
    password: hidden(u.password, REDACTED),
    "auth-provider": provider && {
      name: provider.name,
      config:
        provider.config === undefined || provider.config === null
          ? null
          : Object.fromEntries(
              Object.entries(provider.config).map(([k, v]) => [k, mode.redactAll ? REDACTED : v]),
            ),
    },
    exec:
      exec &&
      compact({
        command: exec.command,
        args: exec.args === undefined || exec.args === null ? null : [...exec.args],
        env:
          exec.env === undefined || exec.env === null
            ? null
            : exec.env.map((e) => ({ name: e.name, value: mode.redactAll ? REDACTED : e.value })),
        apiVersion: exec.apiVersion,
        installHint: exec.installHint,
        provideClusterInfo: exec.provideClusterInfo === true,
        interactiveMode: exec.interactiveMode,
      }),
    extensions: renderExtensions(u.extensions),
  });
}

function renderContext(located: Located<Context>): Context {
  const c = located.value;
  return compact<Context>({
    cluster: c.cluster ?? "",
    user: c.user ?? "",
    namespace: c.namespace,
    extensions: renderExtensions(c.extensions),
  });
}

/** `data` reduced to the current context and what it references (kubectl's `MinifyConfig`). */
function minified(data: KubeconfigData, current: string): KubeconfigData {
  if (current === "") throw new ConfigError("current-context must be set to minify");
  const context = data.contexts.get(current);
  if (context === undefined) {
    throw new ConfigError(`cannot minify: context ${JSON.stringify(current)} does not exist`);
  }
  const pick = <V>(map: ReadonlyMap<string, V>, name: string | undefined, what: string) => {
    const out = new Map<string, V>();
    if (name === undefined) return out;
    const value = map.get(name);
    if (value === undefined) {
      throw new ConfigError(
        `cannot minify: ${what} ${JSON.stringify(name)} of context ${JSON.stringify(current)} does not exist`,
      );
    }
    out.set(name, value);
    return out;
  };
  return {
    ...data,
    currentContext: current,
    contexts: new Map([[current, context]]),
    clusters: pick(data.clusters, context.value.cluster, "cluster"),
    users: pick(data.users, context.value.user, "user"),
  };
}

/**
 * Renders `data` like `kubectl config view -o json [--raw] [--minify] [--flatten]`.
 *
 * @throws {ConfigError} when minifying without a usable current context, or flattening a file
 *   reference that cannot be read (or that has data too).
 */
export function renderKubeconfigView(
  data: KubeconfigData,
  options: RenderViewOptions,
): KubeconfigView {
  const source = options.minify === true ? minified(data, options.currentContext) : data;
  const flatten = options.flatten === true;
  const hide = !flatten && options.raw !== true;
  const mode: Mode = { hide, flatten, redactAll: hide && options.redactAll === true };
  const list = <T>(items: T[]): T[] | null => (items.length === 0 ? null : items);
  const preferences = compact({
    colors: source.preferences.colors ? true : undefined,
    extensions: renderExtensions(source.preferences.extensions),
  });
  return compact<KubeconfigView>({
    kind: "Config",
    apiVersion: "v1",
    preferences,
    clusters: list(
      sortedEntries(source.clusters).map(([name, c]) => ({
        name,
        cluster: renderCluster(name, c, mode),
      })),
    ),
    users: list(
      sortedEntries(source.users).map(([name, u]) => ({
        name,
        user: renderAuthInfo(name, u, mode),
      })),
    ),
    contexts: list(
      sortedEntries(source.contexts).map(([name, c]) => ({ name, context: renderContext(c) })),
    ),
    "current-context": source.currentContext,
    extensions: renderExtensions(source.extensions),
  });
}
