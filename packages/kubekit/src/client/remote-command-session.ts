/**
 * A running remote command (exec or attach) over kube's channel WebSocket protocols: the
 * handle with the command's standard streams, terminal resizing and its result.
 */
import { Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type WebSocket from "ws";
import type { Clock } from "../core/clock.js";
import type { RESTClient } from "../rest/rest-client.js";
import { openApiWebSocket } from "./api-websocket.js";
import type { ExecResult } from "./exec-result.js";
import { decodeExecResult } from "./exec-result.js";
import { ErrorChannelBuffer } from "./error-channel-buffer.js";
import {
  StreamClosedError,
  StreamErrorChannelTooLargeError,
  StreamProtocolError,
} from "./stream-errors.js";
import type { TerminalSize } from "../core/websocket-channels.js";
import {
  decodeChannelMessage,
  encodeChannelMessage,
  encodeCloseMessage,
  encodeResizeMessage,
  MAX_CHANNEL_MESSAGE_BYTES,
  REMOTE_COMMAND_PROTOCOL_V5,
  REMOTE_COMMAND_PROTOCOLS,
  RemoteCommandChannel,
} from "../core/websocket-channels.js";
import { startHeartbeat } from "./websocket-heartbeat.js";

/** The WebSocket close code of a normal closure (RFC 6455 section 7.4.1). */
const NORMAL_CLOSURE = 1000;

/**
 * Which standard streams a remote command gets and where its output goes (the streams part
 * of core/v1 PodExecOptions and PodAttachOptions).
 */
export interface RemoteCommandOptions {
  /** The container; may be omitted when the pod has exactly one. */
  readonly container?: string;
  /**
   * The command's standard input: `true` gives the session a {@link RemoteCommandSession.stdin}
   * Writable; a Readable is piped into it (its end ends stdin, see the session's caveats);
   * `false` (the default) requests none.
   */
  readonly stdin?: boolean | Readable;
  /**
   * The command's standard output: `true` (the default) gives the session a
   * {@link RemoteCommandSession.stdout} Readable; a Writable receives the output (with
   * backpressure; it is not ended, like `process.stdout` under `kubectl exec`); `false`
   * requests none.
   */
  readonly stdout?: boolean | Writable;
  /**
   * The command's standard error, as `stdout`. Default: `true` without a TTY, `false` with
   * one (a terminal merges both into stdout, as kubectl does).
   */
  readonly stderr?: boolean | Writable;
  /** Run the command with a terminal (then {@link RemoteCommandSession.resize} applies). */
  readonly tty?: boolean;
  /**
   * Aborting it before the session is open rejects the call; afterwards it drops the
   * connection and the session's `status` rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
}

/**
 * A remote command running in a container (client-go's `remotecommand` stream, client-node's
 * `Exec`/`Attach` WebSocket).
 *
 * - `stdout`/`stderr` are present when requested with `true`; they end when the server
 *   ends them (v5) or the connection closes. Read them while awaiting `status` (or pass
 *   Writables): output not consumed applies backpressure to the whole connection, as a
 *   child process's pipes do, so awaiting `status` first can stall a chatty command.
 * - `stdin` is present when requested with `true`. Ending it sends v5's close signal, so
 *   the command sees end of file. Under v4 (a server that does not speak v5) there is no
 *   such signal: ending stdin sends nothing, and a command reading to end of file (e.g.
 *   `cat`) only stops when the session is closed ({@link close}) or the signal aborts.
 *   After the session ended, `stdin` is destroyed: later writes are dropped (their callbacks
 *   get `ERR_STREAM_DESTROYED`; no `error` event).
 * - `status` settles once the connection closed (and output passed to Writables was handed
 *   to them): with the exit code (a non-zero exit is a result, not an error), or rejects
 *   with a `StatusError` (the server reported a Failure other than a non-zero exit code),
 *   {@link StreamProtocolError}, {@link StreamClosedError} (connection lost, heartbeat
 *   unanswered, {@link close} before a result), or the abort signal's reason. A result the
 *   server sent stands even if the connection then closed abnormally. Nobody has to
 *   await it: an unobserved rejection is not reported as unhandled.
 * - Problems never surface as `error` events on the streams: outputs end cleanly and
 *   `status` tells what happened.
 * - Bounds against a hostile or broken server: a message longer than 32 MiB ends the
 *   session with a {@link StreamProtocolError} as soon as its length shows; of the error
 *   channel the first 64 KiB are kept and the rest counted and dropped, and `status` then
 *   rejects with a {@link StreamErrorChannelTooLargeError} once the connection closed.
 *   Error messages quote at most a few KiB of what the server sent.
 */
export interface RemoteCommandSession {
  /** The negotiated protocol: `v5.channel.k8s.io` or `v4.channel.k8s.io`. */
  readonly protocol: string;
  /** Whether the command runs with a terminal. */
  readonly tty: boolean;
  /** The command's stdin, when requested with `stdin: true`. */
  readonly stdin: Writable | undefined;
  /** The command's stdout, when requested with `stdout: true` (the default). */
  readonly stdout: Readable | undefined;
  /** The command's stderr, when requested with `stderr: true` (the default without a TTY). */
  readonly stderr: Readable | undefined;
  /** How the command ended; see the interface documentation. */
  readonly status: Promise<ExecResult>;
  /**
   * Tells the command's terminal its new size (`SIGWINCH` in the container).
   *
   * @throws {TypeError} when the session has no TTY.
   * @throws {RangeError} when a dimension is not an integer 0..65535.
   */
  resize(size: TerminalSize): void;
  /**
   * Closes the connection (a normal WebSocket close). Unless the result already arrived,
   * `status` rejects with a {@link StreamClosedError} whose `closedByClient` is true.
   * Idempotent.
   */
  close(): void;
}

/**
 * Opens the remote command WebSocket of `pods/POD/SUBRESOURCE` in `namespace` (`exec` or
 * `attach`) offering v5 then v4, and returns the running session. The query carries
 * `command` (one `command` parameter per element, exec only) then the stream parameters of
 * `options`: `container`, and `stdin`, `stdout`, `stderr`, `tty` when true (client-go omits
 * false ones: the fields of PodExecOptions/PodAttachOptions are `omitempty`), with the
 * defaults applied (stdout on, stderr on unless tty).
 *
 * @throws {TypeError} when the namespace or pod is not a valid path segment.
 * @throws as `openApiWebSocket` (StatusError, StreamUpgradeError, TransportError,
 *   RequestTimeoutError, the signal's reason).
 */
export async function openPodRemoteCommand(
  client: RESTClient,
  namespace: string,
  pod: string,
  subresource: "exec" | "attach",
  options: RemoteCommandOptions,
  command: readonly string[] = [],
): Promise<RemoteCommandSession> {
  const request = client
    .get()
    .version("v1")
    .namespace(namespace)
    .resource("pods")
    .name(pod)
    .subresource(subresource);
  for (const argument of command) request.param("command", argument);
  if (options.container !== undefined) request.param("container", options.container);
  const tty = options.tty === true;
  if (isRequested(options.stdin, false)) request.param("stdin", true);
  if (isRequested(options.stdout, true)) request.param("stdout", true);
  if (isRequested(options.stderr, !tty)) request.param("stderr", true);
  if (tty) request.param("tty", true);
  const { socket, protocol } = await openApiWebSocket(client, request.url(), {
    protocols: REMOTE_COMMAND_PROTOCOLS,
    signal: options.signal,
    errorTarget: { resource: "pods", name: pod },
  });
  return new ChannelSession(socket, protocol, client.clock, options);
}

/** Whether `ws` refused a message over its `maxPayload` (see `openApiWebSocket`). */
function isMessageTooLong(err: Error): boolean {
  return (err as NodeJS.ErrnoException).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";
}

function isRequested(option: boolean | object | undefined, byDefault: boolean): boolean {
  return option === undefined ? byDefault : option !== false;
}

/** One output channel: the Readable carrying it and, when it is piped, the Writable it feeds. */
interface Output {
  readonly readable: Readable;
  /** Settles once a piped output has been handed to its Writable (undefined: not piped). */
  readonly delivered: Promise<void> | undefined;
}

/** How a session ended: its result, or why it has none. */
type Outcome =
  | { readonly ok: true; readonly result: ExecResult }
  | { readonly ok: false; readonly error: unknown };

/** {@link RemoteCommandSession} over an upgraded channel WebSocket. */
class ChannelSession implements RemoteCommandSession {
  readonly protocol: string;
  readonly tty: boolean;
  readonly stdin: Writable | undefined;
  readonly stdout: Readable | undefined;
  readonly stderr: Readable | undefined;
  readonly status: Promise<ExecResult>;
  readonly #socket: WebSocket;
  readonly #outputs = new Map<number, Output>();
  /** Outputs whose buffer is full: the socket stays paused while any is. */
  readonly #blocked = new Set<Readable>();
  readonly #errorChannel = new ErrorChannelBuffer();
  /** Outputs whose end was pushed: pushing more would be an error. */
  readonly #endedOutputs = new WeakSet<Readable>();
  #ended = false;
  #closedByClient = false;
  /** Why the session failed on the client side (abort, protocol error, heartbeat), first wins. */
  #failure: unknown;
  #socketError: Error | undefined;

  constructor(socket: WebSocket, protocol: string, clock: Clock, options: RemoteCommandOptions) {
    this.#socket = socket;
    this.protocol = protocol;
    this.tty = options.tty === true;
    this.stdout = this.#output(RemoteCommandChannel.stdout, options.stdout, true);
    this.stderr = this.#output(RemoteCommandChannel.stderr, options.stderr, !this.tty);
    this.stdin = this.#input(options.stdin);

    const signal = options.signal;
    const onAbort = (): void => this.#fail(signal?.reason);
    const heartbeat = startHeartbeat(socket, clock, () =>
      this.#fail(new StreamClosedError(1006, "no heartbeat answer from the server", false)),
    );
    this.status = new Promise<ExecResult>((resolve, reject) => {
      socket.on("message", (data, isBinary) => this.#onMessage(data, isBinary));
      socket.on("error", (err) => {
        this.#socketError ??= err;
        if (isMessageTooLong(err)) {
          const limit = `${MAX_CHANNEL_MESSAGE_BYTES} bytes, the most a message may carry`;
          this.#fail(new StreamProtocolError(this.protocol, `a message longer than ${limit}`));
        }
      });
      socket.once("close", (code, reason) => {
        heartbeat.stop();
        signal?.removeEventListener("abort", onAbort);
        this.#end();
        const delivered = [...this.#outputs.values()].map((o) => o.delivered);
        const outcome = this.#outcome(code, reason.toString());
        void Promise.all(delivered).then(() =>
          outcome.ok ? resolve(outcome.result) : reject(outcome.error),
        );
      });
    });
    // The caller may never look at the status: its rejection is not "unhandled".
    this.status.catch(() => undefined);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    socket.resume();
  }

  resize(size: TerminalSize): void {
    if (!this.tty) throw new TypeError("resize needs a TTY: the session was opened without tty");
    const message = encodeResizeMessage(size);
    if (!this.#ended) this.#socket.send(message);
  }

  close(): void {
    if (this.#ended || this.#closedByClient) return;
    this.#closedByClient = true;
    // Output arriving from now on is dropped; the socket must read on to see the server's
    // answer to the close frame, even if a full output buffer had paused it.
    this.#blocked.clear();
    this.#socket.resume();
    this.#socket.close(NORMAL_CLOSURE);
  }

  /** Creates the Readable of an output channel; returns it when the caller reads it itself. */
  #output(
    channel: number,
    option: boolean | Writable | undefined,
    byDefault: boolean,
  ): Readable | undefined {
    if (!isRequested(option, byDefault)) return undefined;
    const readable: Readable = new Readable({ read: () => this.#unblock(readable) });
    readable.once("close", () => this.#unblock(readable));
    if (typeof option !== "object") {
      this.#outputs.set(channel, { readable, delivered: undefined });
      return readable;
    }
    // When the destination goes away (error, close), the pipe is cut: drain the rest so
    // the connection never stalls on output nobody can take.
    const onUnpipe = (source: Readable): void => {
      if (source === readable && !readable.readableEnded) readable.resume();
    };
    option.on("unpipe", onUnpipe);
    readable.pipe(option, { end: false });
    const delivered = finished(readable).then(
      () => undefined,
      () => undefined,
    );
    void delivered.then(() => option.off("unpipe", onUnpipe));
    this.#outputs.set(channel, { readable, delivered });
    return undefined;
  }

  /** Creates the stdin Writable; returns it when the caller writes to it itself. */
  #input(option: boolean | Readable | undefined): Writable | undefined {
    if (!isRequested(option, false)) return undefined;
    const writable = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        if (this.#ended || chunk.length === 0) {
          callback();
          return;
        }
        // Transport failures surface through `status`, not as stream errors.
        this.#socket.send(encodeChannelMessage(RemoteCommandChannel.stdin, chunk), () =>
          callback(),
        );
      },
      final: (callback) => {
        if (this.#ended || this.protocol !== REMOTE_COMMAND_PROTOCOL_V5) {
          callback();
          return;
        }
        this.#socket.send(encodeCloseMessage(RemoteCommandChannel.stdin), () => callback());
      },
    });
    if (typeof option !== "object") return writable;
    option.pipe(writable);
    return undefined;
  }

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (!isBinary) {
      this.#fail(new StreamProtocolError(this.protocol, "unexpected text message"));
      return;
    }
    const bytes = Buffer.isBuffer(data)
      ? data
      : Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.from(data);
    const message = decodeChannelMessage(bytes);
    if (message === undefined) {
      this.#fail(new StreamProtocolError(this.protocol, "empty message"));
      return;
    }
    switch (message.channel) {
      case RemoteCommandChannel.error:
        this.#errorChannel.push(message.data);
        return;
      case RemoteCommandChannel.close:
        // v5: the server is done writing to a channel (v4 servers never send 255).
        if (this.protocol === REMOTE_COMMAND_PROTOCOL_V5) {
          const output = this.#outputs.get(message.data[0] ?? -1);
          if (output !== undefined) this.#endOutput(output.readable);
        }
        return;
      default: {
        // stdout, stderr; data for a channel not requested is dropped as client-go does.
        const output = this.#outputs.get(message.channel);
        if (output === undefined || this.#closedByClient) return;
        const { readable } = output;
        if (readable.destroyed || this.#endedOutputs.has(readable)) return;
        if (!readable.push(message.data)) {
          this.#blocked.add(readable);
          this.#socket.pause();
        }
      }
    }
  }

  #unblock(readable: Readable): void {
    if (!this.#blocked.delete(readable)) return;
    if (this.#blocked.size === 0 && !this.#ended) this.#socket.resume();
  }

  /** Ends the session from the client side: the first failure is the session's outcome. */
  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#failure ??= error;
    this.#socket.terminate();
  }

  /** The connection is gone: outputs end, stdin stops. */
  #end(): void {
    this.#ended = true;
    for (const { readable } of this.#outputs.values()) this.#endOutput(readable);
    this.stdin?.destroy();
    this.#blocked.clear();
  }

  /** Ends an output once, unless it was destroyed. */
  #endOutput(readable: Readable): void {
    if (this.#endedOutputs.has(readable)) return;
    this.#endedOutputs.add(readable);
    if (!readable.destroyed) readable.push(null);
  }

  #outcome(code: number, reason: string): Outcome {
    if (this.#failure !== undefined) return { ok: false, error: this.#failure };
    const errorChannel = this.#errorChannel;
    if (errorChannel.truncated) {
      const error = new StreamErrorChannelTooLargeError(
        this.protocol,
        RemoteCommandChannel.error,
        errorChannel.content(),
        errorChannel.totalBytes,
      );
      return { ok: false, error };
    }
    if (errorChannel.received) {
      try {
        const result = decodeExecResult(this.protocol, errorChannel.content());
        return { ok: true, result };
      } catch (err) {
        return { ok: false, error: err };
      }
    }
    if (this.#closedByClient) {
      return { ok: false, error: new StreamClosedError(code, reason, true) };
    }
    if (code === NORMAL_CLOSURE) return { ok: true, result: { exitCode: 0, status: undefined } };
    return { ok: false, error: new StreamClosedError(code, reason, false, this.#socketError) };
  }
}
