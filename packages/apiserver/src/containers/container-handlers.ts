import type { EventEmitter } from "node:events";
import type { Duplex, Readable, Writable } from "node:stream";
import type { JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";

/** Which containers a handler serves: every field given must match (an empty selector matches all). */
export interface ContainerSelector {
  /** The pod's namespace. */
  readonly namespace?: string;
  /** The pod's name, exactly or by pattern. */
  readonly pod?: string | RegExp;
  /** Pod labels: every one given must be present with that value. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The container's name (ignored for port-forward, which targets the pod). */
  readonly container?: string;
}

/**
 * One `pods/exec` (or `pods/attach`) session handed to an {@link ExecHandler}.
 *
 * The streams are those the client asked for: `stdin` is undefined unless the request had
 * `stdin=true`, likewise `stdout` and `stderr` (with `tty=true` kube merges stderr into stdout,
 * so `stderr` is undefined then). `stdin` ends when the client closes it (v5 close signal) or
 * goes away. The handler need not end `stdout`/`stderr`: the server closes the session once
 * the handler's promise settles and reports its exit code.
 */
export interface ExecRequest {
  readonly namespace: string;
  /** The pod as stored when the session started (shared: do not mutate). */
  readonly pod: JsonObject;
  readonly container: string;
  /** The argv (attach: the container's `command` followed by its `args`). */
  readonly command: readonly string[];
  readonly tty: boolean;
  readonly stdin: Readable | undefined;
  readonly stdout: Writable | undefined;
  readonly stderr: Writable | undefined;
  /** Emits `"resize"` with `{ width, height }` for every terminal size the client sends (channel 4). */
  readonly resizes: EventEmitter;
  /** The container's `env` entries with literal values (`valueFrom` entries are left out). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborted when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/**
 * Runs an exec or attach session; resolves to the exit code (0 reports `Success`, anything
 * else `NonZeroExitCode` with that code). Throwing a `StatusError` reports its Status on the
 * error channel instead (e.g. an InternalError, as a runtime failing to start a process
 * does); any other error is reported as an InternalError with its message.
 */
export type ExecHandler = (request: ExecRequest) => number | Promise<number>;

/** One forwarded connection handed to a {@link PortForwardHandler}. */
export interface PortForwardRequest {
  readonly namespace: string;
  /** The pod as stored when the connection was opened (shared: do not mutate). */
  readonly pod: JsonObject;
  readonly port: number;
  /** Aborted when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/** Serves one forwarded connection: `stream` carries the bytes both ways. */
export type PortForwardHandler = (
  stream: Duplex,
  request: PortForwardRequest,
) => void | Promise<void>;

interface Registration<H> {
  readonly selector: ContainerSelector;
  readonly port?: number;
  readonly handler: H;
}

/**
 * What runs "inside" the embedded server's simulated containers: tests register exec and
 * port-forward handlers by selector. Later registrations win over earlier ones; each
 * registration returns a function that removes it. Containers with no exec handler run the
 * server's built-in command set; a port with no handler gets the built-in answer (nginx's
 * welcome page on port 80 of an nginx image, a line naming the pod on a port a container
 * declares; `port-forward-builtin.ts`) or, with none, refuses the connection.
 */
export class ContainerHandlers {
  readonly #execs: Registration<ExecHandler>[] = [];
  readonly #portForwards: Registration<PortForwardHandler>[] = [];

  /** Serves exec and attach sessions of the matching containers with `handler`. */
  onExec(selector: ContainerSelector, handler: ExecHandler): () => void {
    return register(this.#execs, { selector, handler });
  }

  /** Serves forwarded connections to `port` of the matching pods with `handler`. */
  onPortForward(
    selector: ContainerSelector,
    port: number,
    handler: PortForwardHandler,
  ): () => void {
    return register(this.#portForwards, { selector, port, handler });
  }

  /** The handler of the latest matching registration for `container` of `pod`, if any. */
  execHandlerFor(pod: JsonObject, container: string): ExecHandler | undefined {
    return latest(this.#execs, (r) => matches(r.selector, pod, container));
  }

  /** The handler of the latest matching registration for `port` of `pod`, if any. */
  portForwardHandlerFor(pod: JsonObject, port: number): PortForwardHandler | undefined {
    return latest(this.#portForwards, (r) => r.port === port && matches(r.selector, pod));
  }
}

function register<H>(list: Registration<H>[], registration: Registration<H>): () => void {
  list.push(registration);
  return () => {
    const i = list.indexOf(registration);
    if (i >= 0) list.splice(i, 1);
  };
}

function latest<H>(
  list: readonly Registration<H>[],
  accepts: (r: Registration<H>) => boolean,
): H | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i]!;
    if (accepts(r)) return r.handler;
  }
  return undefined;
}

function matches(selector: ContainerSelector, pod: JsonObject, container?: string): boolean {
  const metadata = metadataOf(pod) ?? {};
  if (selector.namespace !== undefined && metadata["namespace"] !== selector.namespace)
    return false;
  if (selector.pod !== undefined) {
    const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
    if (typeof selector.pod === "string" ? name !== selector.pod : !testPattern(selector.pod, name))
      return false;
  }
  if (selector.labels) {
    const labels = isJsonObject(metadata["labels"]) ? metadata["labels"] : {};
    for (const [key, value] of Object.entries(selector.labels)) {
      if (labels[key] !== value) return false;
    }
  }
  if (container !== undefined && selector.container !== undefined)
    return selector.container === container;
  return true;
}

/** `RegExp.test` without the `lastIndex` state a global or sticky pattern would carry between calls. */
function testPattern(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}
