/**
 * `KubeConfig`: a loaded (and merged) kubeconfig plus overrides — what kubectl's global flags
 * and client-go's `clientcmd` produce — from which clients get a {@link RestConfig}.
 */
import { resolve } from "node:path";
import { isatty } from "node:tty";
import { realClock, type Clock } from "../core/clock.js";
import type { JsonValue } from "../core/json.js";
import {
  checkOverrides,
  selectContext,
  selectedNamespace,
  type KubeConfigOverrides,
} from "./context-selection.js";
import type { Environment } from "./environment.js";
import { inClusterPossible, loadInClusterSettings, type InClusterSettings } from "./in-cluster.js";
import { decodeKubeconfig, parseKubeconfigYaml } from "./kubeconfig-decode.js";
import type { KubeconfigData, KubeconfigView } from "./kubeconfig-types.js";
import { renderKubeconfigView, type KubeconfigViewOptions } from "./kubeconfig-view.js";
import { loadKubeconfigFiles } from "./loading-rules.js";
import { INSPECT_CUSTOM, inspectSummary } from "./redaction.js";
import { buildRestConfig } from "./rest-config-builder.js";
import type { CredentialSource, RestConfig } from "./rest-config.js";

/** Settings of how credentials are obtained, shared by every way to create a KubeConfig. */
export interface KubeConfigRuntimeOptions {
  /**
   * The environment (default `process.env`): `KUBECONFIG`, `HOME`, `KUBERNETES_MASTER`,
   * in-cluster variables, and the base environment of exec plugins.
   */
  readonly env?: Environment;
  /** Decides token file refreshes and exec credential expiry (default the real clock). */
  readonly clock?: Clock;
  /** Whether exec plugins may use stdin (default: whether file descriptor 0 is a terminal). */
  readonly stdinIsTerminal?: boolean;
  /** Timeout of non-interactive exec plugin runs in ms (default 60 000; 0 disables). */
  readonly execTimeoutMs?: number;
}

/** Options of {@link KubeConfig.load}. */
export interface KubeConfigLoadOptions extends KubeConfigOverrides, KubeConfigRuntimeOptions {
  /** An explicit kubeconfig file (like `--kubeconfig`); it must exist and is the only one read. */
  readonly kubeconfig?: string;
  /** The home directory for `~/.kube/config` (default `$HOME`, else the OS home directory). */
  readonly homeDir?: string;
  /** Where the service account is mounted (default `/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly serviceAccountDir?: string;
}

/** Options of {@link KubeConfig.fromDocument} and {@link KubeConfig.fromYaml}. */
export interface KubeConfigDocumentOptions extends KubeConfigOverrides, KubeConfigRuntimeOptions {
  /**
   * The file the document stands for: relative paths in it resolve against its directory
   * (else the working directory) and errors name it. The file is not read.
   */
  readonly path?: string;
}

/** Options of {@link KubeConfig.inCluster}. */
export interface KubeConfigInClusterOptions extends KubeConfigRuntimeOptions {
  /** Where the service account is mounted (default `/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly serviceAccountDir?: string;
  /** Use this namespace instead of the pod's. */
  readonly namespace?: string;
}

/** One context of a kubeconfig, as {@link KubeConfig.contexts} lists it. */
export interface KubeContextInfo {
  readonly name: string;
  /** The cluster it names ("" when none). */
  readonly cluster: string;
  /** The user it names ("" when none). */
  readonly user: string;
  /** Its namespace, when set. */
  readonly namespace: string | undefined;
}

/** The name of the cluster, user and context of an in-cluster KubeConfig. */
export const IN_CLUSTER_NAME = "in-cluster";

interface KubeConfigInit {
  readonly data: KubeconfigData;
  readonly files: readonly string[];
  readonly overrides: KubeConfigOverrides;
  readonly runtime: KubeConfigRuntimeOptions;
  readonly inCluster: boolean;
}

/** Only the override fields of `options` (they arrive mixed with other options). */
function overridesOf(options: KubeConfigOverrides): KubeConfigOverrides {
  const { context, cluster, user, namespace, server } = options;
  return { context, cluster, user, namespace, server };
}

/** A one-context kubeconfig describing in-cluster settings. */
function inClusterKubeconfig(settings: InClusterSettings, namespace: string): KubeconfigData {
  const origin = undefined;
  return {
    clusters: new Map([
      [
        IN_CLUSTER_NAME,
        {
          value: {
            server: settings.host,
            ...(settings.caPath !== undefined && { "certificate-authority": settings.caPath }),
          },
          origin,
        },
      ],
    ]),
    users: new Map([[IN_CLUSTER_NAME, { value: { tokenFile: settings.tokenPath }, origin }]]),
    contexts: new Map([
      [
        IN_CLUSTER_NAME,
        { value: { cluster: IN_CLUSTER_NAME, user: IN_CLUSTER_NAME, namespace }, origin },
      ],
    ]),
    currentContext: IN_CLUSTER_NAME,
    preferences: { colors: false, extensions: new Map() },
    extensions: new Map(),
  };
}

/**
 * Whether client-go would fall back to in-cluster configuration: the kubeconfig selects no
 * server (none in the selected cluster, no server override), no proxy, compression setting or
 * impersonation — so its rest config would be the legacy default — and in-cluster is possible.
 * A `current-context` naming a missing context is an error, not a fallback.
 */
async function fallsBackToInCluster(
  data: KubeconfigData,
  overrides: KubeConfigOverrides,
  options: KubeConfigLoadOptions,
): Promise<boolean> {
  const selection = selectContext(data, overrides);
  if (selection.contextName !== "" && selection.context === undefined) return false;
  if (overrides.server !== undefined && overrides.server !== "") return false;
  const cluster = selection.cluster?.value ?? {};
  if (cluster.server !== undefined || cluster["proxy-url"] !== undefined) return false;
  if (cluster["disable-compression"] === true || selection.user?.value.as !== undefined)
    return false;
  return inClusterPossible({
    ...(options.env !== undefined && { env: options.env }),
    ...(options.serviceAccountDir !== undefined && {
      serviceAccountDir: options.serviceAccountDir,
    }),
  });
}

/**
 * A kubeconfig (one file, several merged files, an in-memory document, or in-cluster
 * settings) plus overrides. Immutable once created.
 *
 * Secrets: `String(kc)`, `JSON.stringify(kc)` and `util.inspect(kc)` never show a token,
 * password, key or exec environment value; {@link view} redacts like kubectl unless `raw`.
 */
export class KubeConfig {
  /** The kubeconfig files merged, in precedence order (absolute; empty for in-memory/in-cluster). */
  readonly files: readonly string[];
  /** Whether this describes in-cluster settings (no kubeconfig selected a server). */
  readonly inCluster: boolean;
  readonly #data: KubeconfigData;
  readonly #overrides: KubeConfigOverrides;
  readonly #env: Environment;
  readonly #clock: Clock;
  readonly #stdinIsTerminal: boolean;
  readonly #execTimeoutMs: number | undefined;
  readonly #credentialCache = new Map<string, CredentialSource>();

  private constructor(init: KubeConfigInit) {
    this.files = Object.freeze([...init.files]);
    this.inCluster = init.inCluster;
    this.#data = init.data;
    this.#overrides = init.overrides;
    this.#env = init.runtime.env ?? process.env;
    this.#clock = init.runtime.clock ?? realClock;
    this.#stdinIsTerminal = init.runtime.stdinIsTerminal ?? isatty(0);
    this.#execTimeoutMs = init.runtime.execTimeoutMs;
  }

  /**
   * Loads the kubeconfig with kubectl's rules: the explicit `kubeconfig` file, else the
   * `KUBECONFIG` list (missing files skipped), else `~/.kube/config`; merged with the first
   * definition of a name winning. When the result selects no server and the process runs in
   * a pod (`KUBERNETES_SERVICE_HOST/PORT` set, service account token present), the in-cluster
   * settings are used instead, described as a one-context kubeconfig named
   * {@link IN_CLUSTER_NAME} (the namespace: an explicit context namespace, else the pod's).
   *
   * @throws {ConfigError} when the explicit file is missing, a found file is unreadable or
   *   invalid, or an override names a missing context, cluster or user.
   *
   * @example
   * ```ts
   * import { Clientset, KubeConfig } from "kubekit";
   *
   * // As `kubectl --namespace kube-system get pods`; in a pod, the in-cluster config.
   * const kc = await KubeConfig.load({ namespace: "kube-system" });
   * console.log(kc.currentContext, kc.namespace);
   * const cs = new Clientset(kc.restConfig());
   * const pods = await cs.coreV1.pods(kc.namespace).list();
   * console.log(pods.items.map((pod) => pod.metadata?.name));
   * ```
   */
  static async load(options: KubeConfigLoadOptions = {}): Promise<KubeConfig> {
    const { data, files } = await loadKubeconfigFiles(options);
    const overrides = overridesOf(options);
    checkOverrides(data, overrides);
    if (await fallsBackToInCluster(data, overrides, options)) {
      const settings = await loadInClusterSettings(options);
      const contextNamespace = selectContext(data, overrides).context?.value.namespace;
      return new KubeConfig({
        data: inClusterKubeconfig(settings, contextNamespace ?? settings.namespace),
        files: [],
        overrides: { namespace: options.namespace },
        runtime: options,
        inCluster: true,
      });
    }
    return new KubeConfig({ data, files, overrides, runtime: options, inCluster: false });
  }

  /**
   * A KubeConfig from an in-memory kubeconfig document (e.g. one the embedded API server
   * hands out), validated like a file.
   *
   * @throws {ConfigError} when the document is invalid or an override names a missing entry.
   */
  static fromDocument(document: object, options: KubeConfigDocumentOptions = {}): KubeConfig {
    const file = options.path === undefined ? undefined : resolve(options.path);
    return KubeConfig.#fromDecoded(decodeKubeconfig(document, file), file, options);
  }

  /**
   * A KubeConfig from kubeconfig YAML (or JSON) text.
   *
   * @throws {ConfigError} when the text is not a valid kubeconfig or an override names a
   *   missing entry.
   */
  static fromYaml(text: string, options: KubeConfigDocumentOptions = {}): KubeConfig {
    const file = options.path === undefined ? undefined : resolve(options.path);
    return KubeConfig.#fromDecoded(
      decodeKubeconfig(parseKubeconfigYaml(text, file), file),
      file,
      options,
    );
  }

  static #fromDecoded(
    data: KubeconfigData,
    file: string | undefined,
    options: KubeConfigDocumentOptions,
  ): KubeConfig {
    const overrides = overridesOf(options);
    checkOverrides(data, overrides);
    return new KubeConfig({
      data,
      files: file === undefined ? [] : [file],
      overrides,
      runtime: options,
      inCluster: false,
    });
  }

  /**
   * The in-cluster configuration (client-go's `rest.InClusterConfig`), whatever kubeconfig
   * files exist.
   *
   * @throws {NotInClusterError} when `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is unset.
   * @throws {ConfigError} when the service account token cannot be read.
   */
  static async inCluster(options: KubeConfigInClusterOptions = {}): Promise<KubeConfig> {
    const settings = await loadInClusterSettings(options);
    return new KubeConfig({
      data: inClusterKubeconfig(settings, settings.namespace),
      files: [],
      overrides: { namespace: options.namespace },
      runtime: options,
      inCluster: true,
    });
  }

  /** The context in use: the context override, else `current-context` ("" when none). */
  get currentContext(): string {
    const override = this.#overrides.context;
    return override !== undefined && override !== "" ? override : this.#data.currentContext;
  }

  /** The namespace in use: the override, else the context's, else `default`. */
  get namespace(): string {
    return selectedNamespace(selectContext(this.#data, this.#overrides), this.#overrides);
  }

  /** Every context, sorted by name. */
  contexts(): KubeContextInfo[] {
    return [...this.#data.contexts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, { value }]) => ({
        name,
        cluster: value.cluster ?? "",
        user: value.user ?? "",
        namespace: value.namespace,
      }));
  }

  /**
   * The merged kubeconfig shaped like `kubectl config view -o json` (with `--raw`,
   * `--minify`, `--flatten`). Paths are shown as written (relative ones relative to the file
   * that named them); `current-context` is the merged one, while `minify` keeps the context
   * in use (override-aware), as kubectl does.
   *
   * @throws {ConfigError} when minifying without a usable current context, or flattening a
   *   file that cannot be read.
   */
  view(options: KubeconfigViewOptions = {}): KubeconfigView {
    return renderKubeconfigView(this.#data, { ...options, currentContext: this.currentContext });
  }

  /**
   * The connection settings of the context in use, with client-go's precedence rules;
   * referenced files (CA, client certificate and key, token file) are read now. Credential
   * sources are shared between calls, so all clients of this KubeConfig share one exec plugin
   * cache and one token file cache. Rate limit: 5 qps, burst 10.
   *
   * @throws {ConfigError} naming the file, entry and field of the first problem.
   */
  restConfig(): RestConfig {
    return buildRestConfig({
      data: this.#data,
      overrides: this.#overrides,
      env: this.#env,
      clock: this.#clock,
      stdinIsTerminal: this.#stdinIsTerminal,
      inCluster: this.inCluster,
      credentialCache: this.#credentialCache,
      ...(this.#execTimeoutMs !== undefined && { execTimeoutMs: this.#execTimeoutMs }),
    });
  }

  #summary(): JsonValue {
    return {
      files: [...this.files],
      inCluster: this.inCluster,
      currentContext: this.currentContext,
      namespace: this.namespace,
      contexts: [...this.#data.contexts.keys()].sort(),
    };
  }

  toString(): string {
    return `KubeConfig ${JSON.stringify(this.#summary())}`;
  }

  /** The view with every secret redacted (stricter than kubectl: auth-provider and exec env values too). */
  toJSON(): KubeconfigView {
    return renderKubeconfigView(this.#data, {
      currentContext: this.currentContext,
      redactAll: true,
    });
  }

  [INSPECT_CUSTOM](
    _depth: number,
    options: object,
    inspect?: (v: unknown, o?: object) => string,
  ): string {
    return inspectSummary("KubeConfig", this.#summary(), options, inspect);
  }
}
