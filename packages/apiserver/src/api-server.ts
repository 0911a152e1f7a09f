import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { KubeConfig, realClock, type Clock, type JsonObject } from "kubekit";
import { ApiHandler } from "./endpoints/api-handler.js";
import type { AuthenticationConfig, UserInfo } from "./auth/authentication.js";
import type { AuthorizationMode } from "./authorization/authorizer.js";
import { ClusterRoleAggregationController } from "./authorization/cluster-role-aggregation.js";
import { LegacyTokenController } from "./auth/service-account-token/legacy-token-controller.js";
import {
  authorizationModeOf,
  createServerAccess,
  installBootstrapPolicy,
} from "./authorization/server-access.js";
import {
  createCertificateAuthority,
  type CertificateAuthority,
  type PemKeyPair,
} from "./auth/certificates.js";
import {
  signCertificateRequest,
  type CertificateSigningOptions,
} from "./certificates/csr-signer.js";
import { ConnectionOrder } from "./server/connection-order.js";
import { ContainerHandlers } from "./containers/container-handlers.js";
import {
  BuiltInContainers,
  type ContainerProcess,
  type ContainerProcessRequest,
} from "./containers/shell/built-in-containers.js";
import { DEFAULT_EVENT_TTL_MS, EventExpiry } from "./controllers/event-expiry.js";
import { DeferredWork } from "./controllers/controller-runner.js";
import { CrdController } from "./controllers/crd-controller.js";
import { ServerFaults } from "./server/faults.js";
import { GarbageCollector } from "./controllers/garbage-collector.js";
import { KubernetesServiceController } from "./controllers/kubernetes-service.js";
import {
  buildKubeconfig,
  writeKubeconfigFile,
  type KubeconfigDocument,
} from "./auth/kubeconfig-file.js";
import { NamespaceController } from "./controllers/namespace-controller.js";
import { ValidatingAdmissionPolicyStatusController } from "./controllers/validating-admission-policy-status.js";
import { PodLogs } from "./containers/pod-logs.js";
import { ResourceRegistry } from "./registry/registry.js";
import { endpointsFor } from "./endpoints/resource-endpoints.js";
import { loadObjects } from "./store/object-loader.js";
import { ResourceOperations } from "./store/resource-operations.js";
import type { ServerBehaviour } from "./server/server-behaviour.js";
import type { ServerContext } from "./server/server-context.js";
import { Storage } from "./storage/storage.js";
import { UpgradeHandler } from "./streaming/upgrade-handler.js";
import { WatchRegistry } from "./watch/watch-registry.js";

/** Options of {@link ApiServer.start}. */
export interface ApiServerOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Serve HTTPS with a freshly generated CA and serving certificate. */
  readonly tls?: boolean;
  /**
   * Authentication. Tokens map bearer tokens to users; `clientCertificates` accepts client
   * certificates signed by the server's CA (needs `tls`); service-account tokens (TokenRequest,
   * legacy token Secrets) are accepted whenever `auth` is given. Requests without credentials
   * are `system:anonymous` unless `anonymous: false` (401); under AlwaysAllow an anonymous
   * request may then only `GET /version`, `/healthz`, `/livez` and `/readyz` (403 otherwise,
   * as with a real cluster's RBAC policy), unless `anonymous: true` is given explicitly.
   * Without `auth` every request is anonymous and allowed.
   */
  readonly auth?: {
    readonly tokens?: Readonly<Record<string, UserInfo | string>>;
    readonly clientCertificates?: boolean;
    readonly anonymous?: boolean;
  };
  /**
   * The authorizer, as kube-apiserver's `--authorization-mode` (default "AlwaysAllow"). "RBAC"
   * enforces Roles, ClusterRoles and their bindings, starting from kube's bootstrap policy
   * (cluster-admin for `system:masters`, admin/edit/view aggregated, ...). RBAC implies
   * `tls: true` (clients send credentials only over HTTPS; `tls: false` is refused) and client
   * certificates: the kubeconfig carries an admin certificate in `system:masters`.
   */
  readonly authorization?: AuthorizationMode;
  /** Changes kept for watch replay and consistent pagination (default 10 000). */
  readonly historySize?: number;
  /** Interval of watch bookmarks (default 60 000 ms, like kube-apiserver). */
  readonly bookmarkIntervalMs?: number;
  /** Unsent bytes after which a slow watcher is dropped (default 16 MiB). */
  readonly maxWatchBacklogBytes?: number;
  /**
   * Unsent bytes of all watches together past which the most backlogged watchers are dropped,
   * with an ERROR event, until the total is within it again (default 128 MiB: eight watchers
   * at the per-watcher limit). kube-apiserver has no byte budget; its cacher terminates a
   * watcher whose event buffer stays full, which likewise bounds what slow readers can hold.
   */
  readonly maxTotalWatchBacklogBytes?: number;
  /**
   * How long a request body may take to arrive in full before the request is answered with
   * kube-apiserver's 504 Timeout and its connection closed (default 60 000 ms, kube-apiserver's
   * `--request-timeout`). Runs on `clock`.
   */
  readonly requestBodyTimeoutMs?: number;
  /** How long a read at a future resourceVersion waits before 504 (default 3 000 ms). */
  readonly tooLargeResourceVersionWaitMs?: number;
  /** Serve `sendInitialEvents` (WatchList); false rejects it with 422 (default true). */
  readonly watchList?: boolean;
  /** The Kubernetes minor version reported at /version (default "32"; picks the kubectl the dispatcher runs). */
  readonly minorVersion?: string;
  /**
   * How long an Event lives after its last create or update before the server removes it, as
   * kube-apiserver's `--event-ttl` (default 3 600 000 ms, one hour; `Infinity` keeps Events
   * forever). Applies to core/v1 and events.k8s.io Events alike and runs on `clock`.
   */
  readonly eventTtlMs?: number;
  /** Time source for timestamps, watch timeouts and bookmarks (default: the real clock). */
  readonly clock?: Clock;
}

/** What `/version` reports: kube's `version.Info`, the fields kubectl and clients read. */
export interface ServerVersion {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
}

/** kube-apiserver's `ReadHeaderTimeout` (`staging/src/k8s.io/apiserver/pkg/server/secure_serving.go`). */
const READ_HEADER_TIMEOUT_MS = 32_000;

/** The namespaces kube-apiserver creates at start-up. */
const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/**
 * An in-process, kubectl-compatible Kubernetes API server over real HTTP(S) on 127.0.0.1,
 * for tests and the demo: every built-in resource and CRDs, discovery, OpenAPI v3 for
 * kubectl's validation, the verbs with kube-apiserver's rules, watch with history replay
 * and bookmarks, Tables for kubectl, and fault injection (`faults`).
 *
 * Nothing acts on stored objects but the namespace controller, the CRD controller and the
 * garbage collector, as in kube-apiserver itself: pods are scheduled, run and reconciled only
 * when a control plane runs against the server (`startCluster({ server })` of
 * `@kubekit/cluster`, or your own controllers). A pod bound to an existing Node is deleted
 * gracefully, for its kubelet to finish (kube's CheckGracefulDelete); any other pod at once.
 *
 * Caveats (documented simplifications): no admission webhooks, RBAC or quota; custom
 * resources keep unknown fields (no structural pruning or schema defaults); kube-apiserver's
 * validation and defaulting cover the common built-in kinds (the README's table), the others
 * get the generic rules only.
 */
export class ApiServer {
  /** Fault injection: cut or stall watches, compact history, failing responses, latency, restart. */
  readonly faults: ServerFaults;
  /**
   * What runs inside the simulated containers: `containers.onExec(selector, handler)` serves
   * `pods/exec` and `pods/attach`, `containers.onPortForward(selector, port, handler)` serves
   * `pods/portforward`. Without an exec handler a container runs the built-in command set.
   */
  readonly containers: ContainerHandlers;
  readonly #sockets = new Set<Socket>();
  readonly #upgrades: UpgradeHandler;
  readonly #builtIns: BuiltInContainers;
  readonly #watches: WatchRegistry;
  readonly #work = new DeferredWork();
  readonly #eventExpiry: EventExpiry;
  #server: HttpServer | undefined;
  #boundPort = 0;
  readonly #preShutdownHooks = new Map<string, () => Promise<void>>();
  readonly #kubernetesService: KubernetesServiceController;

  readonly #ctx: ServerContext;
  readonly #options: ApiServerOptions;
  readonly #certificates:
    { authority: CertificateAuthority; serving: PemKeyPair; client?: PemKeyPair } | undefined;
  readonly #authConfig: AuthenticationConfig | undefined;
  readonly #adminToken: string | undefined;

  private constructor(
    ctx: ServerContext,
    options: ApiServerOptions,
    certificates:
      { authority: CertificateAuthority; serving: PemKeyPair; client?: PemKeyPair } | undefined,
    authConfig: AuthenticationConfig | undefined,
    adminToken: string | undefined,
  ) {
    this.#ctx = ctx;
    this.#options = options;
    this.#certificates = certificates;
    this.#authConfig = authConfig;
    this.#adminToken = adminToken;
    this.#eventExpiry = new EventExpiry(ctx, options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS);
    this.#kubernetesService = new KubernetesServiceController(
      ctx,
      this.#work,
      () => this.#boundPort,
    );
    this.#watches = new WatchRegistry(ctx.behaviour.maxTotalWatchBacklogBytes);
    this.containers = ctx.containers;
    this.faults = new ServerFaults({
      closeWatches: () => {
        for (const w of [...this.#watches.streams]) w.end();
      },
      stallWatches: () => {
        for (const w of this.#watches.streams) w.stall();
      },
      compactHistory: () => this.#ctx.storage.compact(),
      restart: () => this.#restart(),
    });
    this.#builtIns = new BuiltInContainers(ctx);
    this.#upgrades = new UpgradeHandler(ctx, this.faults, this.#builtIns);
  }

  /**
   * Starts a server and resolves once it listens on 127.0.0.1 (a free port unless
   * `options.port` is given). Stop it with {@link stop} when done: it closes every
   * connection and watch.
   *
   * @example
   * ```ts
   * import { ApiServer } from "@kubekit/apiserver";
   * import { Clientset } from "kubekit";
   *
   * const server = await ApiServer.start();
   * try {
   *   const clientset = new Clientset(server.kubeConfig().restConfig());
   *   await clientset.coreV1.namespaces().create({ metadata: { name: "demo" } });
   *   const ns = await clientset.coreV1.namespaces().get("demo");
   *   console.log(ns.status?.phase); // "Active"
   * } finally {
   *   await server.stop();
   * }
   * ```
   */
  static async start(requested: ApiServerOptions = {}): Promise<ApiServer> {
    const options = withAuthorizationDefaults(requested);
    const authorization = authorizationModeOf(options.authorization);
    const clock = options.clock ?? realClock;
    const behaviour: ServerBehaviour = {
      historySize: options.historySize ?? 10_000,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      maxWatchBacklogBytes: options.maxWatchBacklogBytes ?? 16 * 1024 * 1024,
      maxTotalWatchBacklogBytes: options.maxTotalWatchBacklogBytes ?? 128 * 1024 * 1024,
      requestBodyTimeoutMs: options.requestBodyTimeoutMs ?? 60_000,
      tooLargeResourceVersionWaitMs: options.tooLargeResourceVersionWaitMs ?? 3_000,
      watchList: options.watchList ?? true,
      version: {
        major: "1",
        minor: options.minorVersion ?? "32",
        gitVersion: `v1.${options.minorVersion ?? "32"}.0-kubekit`,
      },
    };
    const storage = new Storage(behaviour.historySize);
    const { access, firstToken } = createServerAccess(storage, clock, options.auth, authorization);
    const ctx: ServerContext = {
      storage,
      registry: new ResourceRegistry(),
      clock,
      behaviour,
      podLogs: new PodLogs(),
      containers: new ContainerHandlers(),
      access,
    };
    let certificates:
      { authority: CertificateAuthority; serving: PemKeyPair; client?: PemKeyPair } | undefined;
    if (options.tls) {
      const authority = await createCertificateAuthority();
      const serving = await authority.issueServing({
        dnsNames: ["localhost"],
        ipAddresses: ["127.0.0.1"],
      });
      const client = options.auth?.clientCertificates
        ? await authority.issueClient({ user: "kubekit-admin", groups: ["system:masters"] })
        : undefined;
      certificates = { authority, serving, ...(client ? { client } : {}) };
    }
    // With RBAC the kubeconfig carries the admin certificate (system:masters), not a token.
    const adminToken = authorization === "RBAC" ? undefined : firstToken;
    const server = new ApiServer(ctx, options, certificates, access.authentication, adminToken);
    server.#installControllers();
    const ops = new ResourceOperations(ctx);
    for (const name of SYSTEM_NAMESPACES) {
      ops.create(
        ctx.registry.lookup("", "v1", "namespaces")!,
        "",
        { metadata: { name } },
        {
          dryRun: false,
          fieldManager: "kube-apiserver",
          fieldValidation: "Ignore",
          warnings: [],
        },
      );
    }
    if (authorization === "RBAC") installBootstrapPolicy(ctx);
    await server.#listen(options.port ?? 0);
    server.#kubernetesService.ensure();
    return server;
  }

  /** The base URL, e.g. `https://127.0.0.1:43210`. */
  get url(): string {
    return `${this.#options.tls ? "https" : "http"}://127.0.0.1:${this.#boundPort}`;
  }

  /** The clock the server runs on (timestamps, watch timeouts, bookmarks): `options.clock`. */
  get clock(): Clock {
    return this.#ctx.clock;
  }

  /** What `/version` reports (`minor` from `options.minorVersion`, default "32"). */
  get version(): ServerVersion {
    return this.#ctx.behaviour.version;
  }

  /** The port the server listens on. */
  get port(): number {
    return this.#boundPort;
  }

  /** The CA certificate (PEM) that signed the serving certificate, when TLS is on. */
  get caPem(): string | undefined {
    return this.#certificates?.authority.ca.certPem;
  }

  /** The current global resourceVersion (the revision of the last write). */
  get resourceVersion(): string {
    return String(this.#ctx.storage.currentRevision);
  }

  /** Issues a client certificate for `user` signed by the server's CA (TLS only). */
  async issueClientCertificate(user: string, groups: readonly string[] = []): Promise<PemKeyPair> {
    if (!this.#certificates)
      throw new Error("issueClientCertificate needs a server started with tls: true");
    return this.#certificates.authority.issueClient({ user, groups });
  }

  /**
   * Issues the certificate a CertificateSigningRequest asks for, from the server's CA (the CA
   * client certificates are verified against, so the certificate authenticates to this
   * server): what the simulated cluster's `csrsigning` controller calls for approved CSRs of
   * the `kubernetes.io/kube-apiserver-client` and `kubernetes.io/kube-apiserver-client-kubelet`
   * signers. Returns the certificate PEM.
   *
   * @throws {Error} when the server was not started with `tls: true` (there is no CA).
   * @throws {CertificateSigningError} for a request the signer refuses (kube's messages).
   */
  async signClientCertificate(csrPem: string, options: CertificateSigningOptions): Promise<string> {
    if (!this.#certificates)
      throw new Error("signClientCertificate needs a server started with tls: true");
    return signCertificateRequest(this.#certificates.authority.ca, csrPem, options);
  }

  /**
   * A kubeconfig document (v1 Config) pointing at this server, with the CA and the first
   * configured token or the admin client certificate.
   */
  kubeconfigDocument(options: { namespace?: string } = {}): KubeconfigDocument {
    return buildKubeconfig({
      server: this.url,
      ...(this.#certificates ? { caPem: this.#certificates.authority.ca.certPem } : {}),
      ...(this.#adminToken
        ? { credentials: { token: this.#adminToken } }
        : this.#certificates?.client
          ? { credentials: { clientCertificate: this.#certificates.client } }
          : {}),
      ...(options.namespace ? { namespace: options.namespace } : {}),
    });
  }

  /**
   * A {@link KubeConfig} pointing at this server (its CA, and the first configured token or
   * the admin client certificate): `new Clientset(server.kubeConfig().restConfig())`.
   */
  kubeConfig(options: { namespace?: string } = {}): KubeConfig {
    return KubeConfig.fromDocument(this.kubeconfigDocument(options));
  }

  /** Writes {@link kubeconfigDocument} as YAML (mode 0600) for kubectl: `kubectl --kubeconfig FILE`. */
  async writeKubeconfig(path: string, options: { namespace?: string } = {}): Promise<void> {
    await writeKubeconfigFile(path, this.kubeconfigDocument(options));
  }

  /** The stored object at a key (`ns/name` or `name`) of a resource, for test assertions. */
  storedObject(group: string, plural: string, key: string): JsonObject | undefined {
    return this.#ctx.storage.get(`${group}/${plural}`, key);
  }

  /**
   * Creates objects in bulk, as a preloaded store (kwok, an etcd restore): each object goes
   * through the server's in-process write path — the kind's defaults and validation, Go
   * zero-field fill, system metadata, managedFields (manager `kubekit-load`), a
   * resourceVersion — without admission webhooks, synchronously, in iteration order. Watchers
   * see an ADDED event per object. Objects name their kind with `apiVersion` and `kind`; a
   * namespaced object without `metadata.namespace` goes to "default".
   *
   * Returns how many objects were created.
   *
   * @throws {StatusError} for the first object that fails, as a POST of it would answer (400
   *   when its `apiVersion`/`kind` name no creatable resource); the objects before it stay.
   */
  loadObjects(objects: Iterable<JsonObject>): number {
    return loadObjects(this.#ctx, objects);
  }

  /**
   * Appends lines to a container's log, served by `GET pods/NAME/log` (followers see them
   * live): what the container printed. The simulated kubelet writes its containers' output
   * here too; tests add their own lines.
   */
  appendPodLog(namespace: string, pod: string, container: string, text: string): void {
    this.#ctx.podLogs.append(
      namespace,
      pod,
      container,
      text,
      new Date(this.#ctx.clock.now()).toISOString(),
    );
  }

  /**
   * Starts a container's main process in the built-in userland, as the simulated kubelet does
   * when a container starts: its `command` + `args` (or the image's default command) run on
   * the server's clock, with the container's environment (its `env`, the Service variables)
   * and its file system (the one `exec` sessions see); what it prints goes to the container's
   * log. `undefined` when the executable is not in the built-in userland (an application
   * binary): the caller simulates that container otherwise. See `BuiltInContainers.startProcess`.
   */
  startContainerProcess(request: ContainerProcessRequest): ContainerProcess | undefined {
    return this.#builtIns.startProcess(request);
  }

  /**
   * Registers work to finish before the server shuts down, as kube's generic API server's
   * `AddPreShutdownHook` (`staging/src/k8s.io/apiserver/pkg/server/hooks.go`): {@link stop}
   * runs every hook, in the order added, while the server still answers, so components
   * running against it (a simulated control plane, a controller under test) stop cleanly
   * instead of reconnecting to a closed port. A hook that rejects does not stop the others;
   * {@link stop} rejects with the first rejection once the server has stopped.
   *
   * @throws {Error} when a hook of that name is registered already.
   */
  addPreShutdownHook(name: string, hook: () => Promise<void>): void {
    if (this.#preShutdownHooks.has(name)) {
      throw new Error(`a pre-shutdown hook named "${name}" is registered already`);
    }
    this.#preShutdownHooks.set(name, hook);
  }

  /** Removes a pre-shutdown hook (no-op when none has that name). */
  removePreShutdownHook(name: string): void {
    this.#preShutdownHooks.delete(name);
  }

  /**
   * Stops the server: runs the pre-shutdown hooks, then closes every watch and connection.
   * Idempotent.
   */
  async stop(): Promise<void> {
    const hooks = [...this.#preShutdownHooks.values()];
    this.#preShutdownHooks.clear();
    const failures: unknown[] = [];
    for (const hook of hooks) await hook().catch((err: unknown) => failures.push(err));
    this.#work.stop();
    this.#builtIns.stopAll();
    this.#eventExpiry.stop();
    for (const w of [...this.#watches.streams]) w.destroy();
    await this.#close();
    if (failures.length > 0) throw failures[0];
  }

  #installControllers(): void {
    const ns = new NamespaceController(this.#ctx, this.#work);
    const crd = new CrdController(this.#ctx, this.#work);
    const gc = new GarbageCollector(this.#ctx, this.#work);
    const aggregation = new ClusterRoleAggregationController(this.#ctx, this.#work);
    const access = this.#ctx.access;
    const legacyTokens = access
      ? new LegacyTokenController(this.#ctx, this.#work, access.serviceAccountTokens)
      : undefined;
    const vapStatus = new ValidatingAdmissionPolicyStatusController(this.#ctx, this.#work);
    const kubernetesService = this.#kubernetesService;
    this.#ctx.storage.subscribe((e) => {
      ns.onEvent(e);
      kubernetesService.onEvent(e);
      crd.onEvent(e);
      gc.onEvent(e);
      aggregation.onEvent(e);
      legacyTokens?.onEvent(e);
      vapStatus.onEvent(e);
      this.#eventExpiry.onEvent(e);
      if (e.type === "DELETED") {
        const entry = this.#ctx.registry.entriesFor(e.resource)[0];
        if (entry) endpointsFor(entry.info).afterRemoved?.(e.object, this.#ctx);
      }
    });
  }

  async #listen(port: number): Promise<void> {
    const handler = new ApiHandler(
      this.#ctx,
      this.#watches,
      this.faults,
      () => `127.0.0.1:${this.#boundPort}`,
    );
    const order = new ConnectionOrder();
    const onRequest = (
      req: Parameters<ApiHandler["handle"]>[0],
      res: Parameters<ApiHandler["handle"]>[1],
    ): void => {
      order.run(req, res, (q, r) => handler.handle(q, r));
    };
    const server = this.#certificates
      ? createHttpsServer(
          {
            cert: this.#certificates.serving.certPem,
            key: this.#certificates.serving.keyPem,
            ca: [this.#certificates.authority.ca.certPem],
            requestCert: Boolean(this.#authConfig?.clientCertificates),
            rejectUnauthorized: false,
          },
          onRequest,
        )
      : createHttpServer(onRequest);
    server.keepAliveTimeout = 30_000;
    // kube-apiserver's http.Server: ReadHeaderTimeout 32 s (`secure_serving.go`). Node's
    // requestTimeout (receiving the whole request, not answering it: watches are unaffected)
    // backs up the body timeout for bodies no handler reads.
    server.headersTimeout = READ_HEADER_TIMEOUT_MS;
    server.requestTimeout = READ_HEADER_TIMEOUT_MS + this.#ctx.behaviour.requestBodyTimeoutMs;
    server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    server.on("secureConnection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    // pods/exec, pods/attach and pods/portforward; their sockets are in `sockets` already.
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrades.handle(req, socket, head, (q, r) => void handler.handle(q, r)),
    );
    server.on("clientError", (_err, socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    this.#boundPort = typeof address === "object" && address ? address.port : port;
    this.#server = server;
  }

  async #close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    this.#upgrades.abortSessions();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  async #restart(): Promise<void> {
    for (const w of [...this.#watches.streams]) w.destroy();
    await this.#close();
    await this.#listen(this.#boundPort);
  }
}

/**
 * The options RBAC implies: HTTPS (clients send credentials only over TLS) and client
 * certificates, so that the kubeconfig's admin certificate (`system:masters`) authenticates.
 *
 * @throws {TypeError} for `authorization: "RBAC"` with `tls: false`.
 */
function withAuthorizationDefaults(options: ApiServerOptions): ApiServerOptions {
  if (options.authorization !== "RBAC") return options;
  if (options.tls === false)
    throw new TypeError('authorization "RBAC" needs tls: clients send credentials only over HTTPS');
  return { ...options, tls: true, auth: { ...options.auth, clientCertificates: true } };
}
