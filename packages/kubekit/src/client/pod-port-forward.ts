/**
 * Forwarding local TCP ports to a pod: `kubectl port-forward` (client-go's
 * `tools/portforward.PortForwarder`) over kube's WebSocket port-forward protocol, one
 * WebSocket per accepted local connection.
 */
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { RESTClient } from "../rest/rest-client.js";
import { forwardLocalConnection } from "./port-forward-connection.js";
import type { ForwardedPort, ListenAddress, PortForwardSpec } from "./port-forward-ports.js";
import { parseListenAddresses, parsePortForwardSpecs } from "./port-forward-ports.js";
import { errorMessage } from "../core/error-message.js";

/** Options of `portForward`. */
export interface PortForwardOptions {
  /**
   * The local addresses to listen on: `localhost` (the default: 127.0.0.1 and ::1, where
   * either may be unavailable) or IP addresses (each must work), as kubectl's `--address`.
   */
  readonly address?: string | readonly string[];
  /** Aborting it closes the forward, as {@link PortForwardSession.close}. */
  readonly signal?: AbortSignal;
}

/** A running port forward. */
export interface PortForwardSession {
  /** The forwarded ports in the order asked for, with the local ports actually bound. */
  readonly ports: readonly ForwardedPort[];
  /** Settles once the forward is closed and every forwarded connection has ended. */
  readonly closed: Promise<void>;
  /**
   * Stops listening and ends every forwarded connection at once (local connections are
   * reset, WebSockets closed); resolves as {@link closed}. Idempotent.
   */
  close(): Promise<void>;
}

/** The pod is not `Running`, so there is nothing to forward to (kubectl checks this first). */
export class PodNotRunningError extends Error {
  /** The pod's `status.phase` (`""` when it has none yet). */
  readonly phase: string;

  constructor(
    readonly namespace: string,
    readonly pod: string,
    phase: string | undefined,
  ) {
    super(
      `unable to forward port because pod ${namespace}/${pod} is not running. Current status=${phase ?? ""}`,
    );
    this.name = "PodNotRunningError";
    this.phase = phase ?? "";
  }
}

/** Listening on a local port failed on an address it had to work on. */
export class PortForwardListenError extends Error {
  constructor(
    /** The address listened on. */
    readonly address: string,
    /** The local port asked for (0: any free one). */
    readonly localPort: number,
    cause: unknown,
  ) {
    super(`unable to listen on ${address}:${localPort}: ${errorMessage(cause)}`, { cause });
    this.name = "PortForwardListenError";
  }
}

/**
 * Forwards local ports to the pod `pod` in `namespace`, like `kubectl port-forward`, and
 * resolves once every local listener is bound (`session.ports` tells the local ports, also
 * those chosen for `0`). First the pod is read, and must be `Running`. Each local port then
 * listens on every address (a port asked as 0 takes the free port the first address got on
 * the others too). Every connection accepted locally gets its own WebSocket to
 * `pods/NAME/portforward?ports=REMOTE`, opened like every request of `client` (credentials,
 * TLS, impersonation, User-Agent, one token of its rate limiter); an error on a connection
 * (an upgrade the server refuses, an error text on the error channel such as nothing
 * listening on the pod's port) ends that connection only and is logged through the client's
 * logger (warn; at most the first few KiB of an error text, with its size), never thrown.
 * A server message over 32 MiB ends its connection the same way. Local listeners stay open
 * until `close()` or the signal.
 *
 * @throws {TypeError} for invalid ports or addresses.
 * @throws {StatusError} when reading the pod fails (404 for a missing pod, 403, ...).
 * @throws {PodNotRunningError} when the pod's phase is not `Running`.
 * @throws {PortForwardListenError} when a port cannot be listened on (e.g. in use).
 * @throws the signal's reason when it is aborted before the forward is ready.
 */
export async function portForwardPod(
  client: RESTClient,
  namespace: string,
  pod: string,
  ports: readonly PortForwardSpec[],
  options: PortForwardOptions = {},
): Promise<PortForwardSession> {
  const forwarded = parsePortForwardSpecs(ports);
  const addressList = options.address ?? "localhost";
  const addresses = parseListenAddresses(
    typeof addressList === "string" ? [addressList] : addressList,
  );
  const signal = options.signal;
  signal?.throwIfAborted();
  const request = client.get().version("v1").namespace(namespace).resource("pods").name(pod);
  if (signal) request.signal(signal);
  const { body } = await request.do<Pod>();
  const phase = body?.status?.phase;
  if (phase !== "Running") throw new PodNotRunningError(namespace, pod, phase);

  const session = new ListeningSession(client, namespace, pod, signal);
  try {
    for (const [i, port] of forwarded.entries()) {
      const bound = await listenOnAddresses(addresses, port, (socket, server) =>
        session.accept(socket, { local: listeningPort(server), remote: port.remote }),
      );
      session.servers.push(...bound.servers.map(({ server }) => server));
      forwarded[i] = { local: bound.port, remote: port.remote };
      for (const { host } of bound.servers)
        client.logger.debug(
          `port-forward: forwarding from ${hostPort(host, bound.port)} -> ${port.remote}`,
        );
    }
    signal?.throwIfAborted();
  } catch (err) {
    await session.close();
    throw err;
  }
  session.start(forwarded);
  return session;
}

/** {@link PortForwardSession} over its listeners (added while they are bound). */
class ListeningSession implements PortForwardSession {
  ports: readonly ForwardedPort[] = [];
  readonly closed: Promise<void>;
  /** The listeners, each already accepting (connections go to {@link accept}). */
  readonly servers: Server[] = [];
  readonly #client: RESTClient;
  readonly #namespace: string;
  readonly #pod: string;
  readonly #signal: AbortSignal | undefined;
  readonly #stop = new AbortController();
  readonly #connections = new Set<Promise<void>>();
  #resolveClosed: () => void = () => undefined;
  readonly #onAbort = (): void => void this.close();

  constructor(client: RESTClient, namespace: string, pod: string, signal: AbortSignal | undefined) {
    this.#client = client;
    this.#namespace = namespace;
    this.#pod = pod;
    this.#signal = signal;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Every listener is bound: reports the ports, and closes with the signal from now on. */
  start(ports: readonly ForwardedPort[]): void {
    this.ports = ports;
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  close(): Promise<void> {
    if (this.#stop.signal.aborted) return this.closed;
    this.#stop.abort();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    void Promise.all(this.servers.map(closeServer))
      .then(() => Promise.all(this.#connections))
      .then(() => this.#resolveClosed());
    return this.closed;
  }

  /** Forwards one accepted local connection (reset when the session is closing). */
  accept(socket: Socket, port: ForwardedPort): void {
    if (this.#stop.signal.aborted) {
      socket.destroy();
      return;
    }
    this.#client.logger.debug(`port-forward: handling connection for ${port.local}`, {
      namespace: this.#namespace,
      pod: this.#pod,
    });
    const done = forwardLocalConnection(socket, {
      client: this.#client,
      namespace: this.#namespace,
      pod: this.#pod,
      port,
      signal: this.#stop.signal,
    });
    this.#connections.add(done);
    void done.then(() => this.#connections.delete(done));
  }
}

/**
 * Listens on `port` on every address; 0 takes a free port on the first address that binds
 * and the same port on the others. Fails as kubectl's `listenOnPort`: when an `any` address
 * failed, or every `all` address failed.
 */
async function listenOnAddresses(
  addresses: readonly ListenAddress[],
  port: ForwardedPort,
  onConnection: (socket: Socket, server: Server) => void,
): Promise<{ port: number; servers: { host: string; server: Server }[] }> {
  const servers: { host: string; server: Server }[] = [];
  let chosen = port.local;
  let allFailure: PortForwardListenError | undefined;
  let allSucceeded = false;
  try {
    for (const address of addresses) {
      try {
        const server = await listen(address.host, chosen, onConnection);
        chosen = listeningPort(server);
        servers.push({ host: address.host, server });
        if (address.failureMode === "all") allSucceeded = true;
      } catch (err) {
        const error = new PortForwardListenError(address.host, chosen, err);
        if (address.failureMode === "any") throw error;
        allFailure ??= error;
      }
    }
    if (allFailure && !allSucceeded) throw allFailure;
    return { port: chosen, servers };
  } catch (err) {
    await Promise.all(servers.map(({ server }) => closeServer(server)));
    throw err;
  }
}

/** A listener on `host`:`port` handing every connection (paused) to `onConnection`. */
function listen(
  host: string,
  port: number,
  onConnection: (socket: Socket, server: Server) => void,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({ pauseOnConnect: true }, (socket) => onConnection(socket, server));
    server.once("error", reject);
    server.listen({ host, port, ipv6Only: host.includes(":") }, () => {
      server.off("error", reject);
      server.on("error", () => undefined); // a listening server reports nothing we could act on
      resolve(server);
    });
  });
}

function listeningPort(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : 0;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
