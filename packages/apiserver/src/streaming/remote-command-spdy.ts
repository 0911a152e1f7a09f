/**
 * The server end of kube's remote-command protocol over SPDY/3.1, as the kubelet's streaming
 * server speaks it (`pkg/kubelet/cri/streaming/remotecommand/httpstream.go`) to kubectl up to
 * 1.29 (and 1.29 without `KUBECTL_REMOTE_COMMAND_WEBSOCKETS`): `Upgrade: SPDY/3.1` with the
 * protocol negotiated in `X-Stream-Protocol-Version` (only `v4.channel.k8s.io` is served),
 * then one SPDY stream per channel, opened by the client with a `streamType` header (`error`,
 * `stdin`, `stdout`, `stderr`, `resize`). The session starts once every stream the query asked
 * for has arrived; stdin ends with the client's FIN on its stream; the error stream carries
 * the final Status. SPDY framing is `spdy/spdy-session.ts`.
 */
import { EventEmitter } from "node:events";
import type { Duplex, Readable, Writable } from "node:stream";
import { type JsonObject, type Status, REMOTE_COMMAND_PROTOCOL_V4 } from "kubekit";
import {
  endWriter,
  errorStreamBody,
  parseTerminalSize,
  type RemoteCommandStreams,
  type RequestedStreams,
} from "./remote-command-streams.js";
import { SpdySession } from "./spdy/spdy-session.js";
import type { SpdyStream } from "./spdy/spdy-stream.js";
import { writeSpdyUpgrade } from "./stream-protocol-handshake.js";

/** The protocols served over SPDY, in the kubelet's order of preference. */
export const SPDY_REMOTE_COMMAND_PROTOCOLS: readonly string[] = [REMOTE_COMMAND_PROTOCOL_V4];

/** The stream types the session waits for, from the query (`expectedStreams` in the kubelet). */
function expectedStreamTypes(streams: RequestedStreams): Set<string> {
  const types = new Set(["error"]);
  if (streams.stdin) types.add("stdin");
  if (streams.stdout) types.add("stdout");
  if (streams.stderr) types.add("stderr");
  if (streams.tty) types.add("resize");
  return types;
}

/**
 * One remote-command session over SPDY (see {@link RemoteCommandStreams}); built by
 * {@link acceptSpdyRemoteCommand} once the client's streams are there.
 */
class SpdyRemoteCommand implements RemoteCommandStreams {
  readonly stdin: Readable | undefined;
  readonly stdout: Writable | undefined;
  readonly stderr: Writable | undefined;
  readonly resizes = new EventEmitter();
  readonly #aborter = new AbortController();
  #finished = false;

  readonly #session: SpdySession;
  readonly #byType: ReadonlyMap<string, SpdyStream>;

  constructor(session: SpdySession, byType: ReadonlyMap<string, SpdyStream>) {
    this.#session = session;
    this.#byType = byType;
    this.stdin = byType.get("stdin");
    this.stdout = byType.get("stdout");
    this.stderr = byType.get("stderr");
    const resize = byType.get("resize");
    if (resize) {
      // client-go writes each size with a json.Encoder: one JSON value per line.
      let pending = "";
      resize.setEncoding("utf8");
      resize.on("data", (chunk: string) => {
        pending += chunk;
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const size = parseTerminalSize(pending.slice(0, newline));
          pending = pending.slice(newline + 1);
          if (size) this.resizes.emit("resize", size);
        }
      });
    }
  }

  get signal(): AbortSignal {
    return this.#aborter.signal;
  }

  /** The connection is gone: the session is aborted unless it had finished. */
  connectionClosed(): void {
    if (!this.#finished) this.#aborter.abort(new Error("the client closed the connection"));
  }

  /** Flushes stdout and stderr, writes the Status on the error stream, closes every stream and the session. */
  async finish(status: Status | JsonObject): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.resizes.removeAllListeners();
    await Promise.all([endWriter(this.stdout), endWriter(this.stderr)]);
    const error = this.#byType.get("error");
    if (error && !error.destroyed) {
      error.write(errorStreamBody(status));
      await endWriter(error);
    }
    this.#session.close();
  }
}

/**
 * Switches `socket` to SPDY/3.1 with `protocol` and resolves with the session once the
 * client has opened every stream `streams` calls for; `undefined` if the connection ends (or
 * `serverSignal` aborts) first. Streams of unknown or repeated types are refused.
 */
export function acceptSpdyRemoteCommand(
  socket: Duplex,
  head: Buffer,
  protocol: string,
  streams: RequestedStreams,
  serverSignal: AbortSignal,
): Promise<RemoteCommandStreams | undefined> {
  writeSpdyUpgrade(socket, head, protocol);
  const expected = expectedStreamTypes(streams);
  const byType = new Map<string, SpdyStream>();
  return new Promise((resolve) => {
    let accepted: SpdyRemoteCommand | undefined;
    const session = new SpdySession(socket, {
      onStream: (stream) => {
        const type = stream.header("streamtype") ?? "";
        if (!expected.has(type) || byType.has(type))
          throw new Error(`unexpected stream of type "${type}"`);
        // Writes after the client went away fail through their callbacks; never as an
        // uncaught error event of the server.
        stream.on("error", () => undefined);
        byType.set(type, stream);
        if (byType.size === expected.size) {
          accepted = new SpdyRemoteCommand(session, byType);
          resolve(accepted);
        }
      },
      onClose: () => {
        serverSignal.removeEventListener("abort", stop);
        if (accepted) accepted.connectionClosed();
        else resolve(undefined);
      },
    });
    const stop = (): void => session.close();
    if (serverSignal.aborted) stop();
    else serverSignal.addEventListener("abort", stop, { once: true });
  });
}
