/**
 * The part of `@kubernetes/client-node` (1.4 and 2.0) the informer benchmark uses, typed
 * structurally, and its loader. The package is a dependency of `bench/package.json` only (`npm ci --prefix
 * bench`), so it is imported by a specifier TypeScript does not resolve: the root typecheck
 * (which includes bench/) passes without bench/node_modules, and these declarations stand in
 * for the package's own. They were checked against client-node 1.4.0's `.d.ts` files
 * (`KubeConfig.loadFromClusterAndUser`, `makeApiClient`, `CoreV1Api.listPodForAllNamespaces`,
 * `makeInformer`, `Informer.on/start/stop`, `ObjectCache.list`), and 2.0.1's declare the same
 * shapes; see bench/README.md.
 */

/**
 * The two releases, as bench/package.json names them: 1.4.0, the newest that runs on Node
 * 20, and 2.0.1 (an npm alias), which needs Node >= 22.19.
 */
const CLIENT_NODE: Readonly<Record<ClientNodeRelease, string>> = {
  "1.4": "@kubernetes/client-node",
  "2.0": "client-node-2",
};

/** Which release of client-node. */
export type ClientNodeRelease = "1.4" | "2.0";

/** An object as client-node hands it out (only what the benchmark reads). */
export interface ClientNodeObject {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

/** A list as `listPodForAllNamespaces` resolves it. */
export interface ClientNodeList {
  readonly items: ClientNodeObject[];
  readonly metadata?: { readonly resourceVersion?: string };
}

/** `CoreV1Api` (the object-parameter API client), only the call the benchmark makes. */
export interface ClientNodeCoreV1Api {
  listPodForAllNamespaces(): Promise<ClientNodeList>;
}

/** The `CoreV1Api` class, opaque: it is only handed to `KubeConfig.makeApiClient`. */
export type ClientNodeCoreV1ApiClass = abstract new (...args: never[]) => ClientNodeCoreV1Api;

/** `KubeConfig`, only what the benchmark calls. */
export interface ClientNodeKubeConfig {
  loadFromClusterAndUser(
    cluster: { readonly name: string; readonly server: string; readonly skipTLSVerify: boolean },
    user: { readonly name: string },
  ): void;
  makeApiClient(api: ClientNodeCoreV1ApiClass): ClientNodeCoreV1Api;
}

/** The informer `makeInformer` returns (a `ListWatch`). */
export interface ClientNodeInformer {
  on(verb: "add" | "update" | "delete", callback: (obj: ClientNodeObject) => void): void;
  on(verb: "error" | "connect", callback: (err?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Every cached object (of one namespace when given). */
  list(namespace?: string): readonly ClientNodeObject[];
}

/** The module's exports the benchmark uses. */
export interface ClientNodeModule {
  readonly KubeConfig: new () => ClientNodeKubeConfig;
  readonly CoreV1Api: ClientNodeCoreV1ApiClass;
  makeInformer(
    kubeconfig: ClientNodeKubeConfig,
    path: string,
    list: () => Promise<ClientNodeList>,
  ): ClientNodeInformer;
}

/**
 * Imports `@kubernetes/client-node` of `release` (resolved from bench/node_modules).
 *
 * @throws {Error} saying to run `npm ci --prefix bench` when it is not installed (or, for
 *   2.0, when it cannot load on this Node).
 */
export async function loadClientNode(release: ClientNodeRelease): Promise<ClientNodeModule> {
  const specifier = CLIENT_NODE[release];
  try {
    return (await import(specifier)) as ClientNodeModule;
  } catch (err) {
    throw new Error(
      `cannot load ${specifier} (client-node ${release}) on Node ${process.version}: run \`npm ci --prefix bench\` first (it is a dependency of bench/package.json only; 2.0 needs Node >= 22.19)`,
      { cause: err },
    );
  }
}
