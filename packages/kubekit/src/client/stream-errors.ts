/**
 * Typed errors of the streaming subresources (exec, attach, port-forward) that are not a
 * server `Status`: an upgrade the client cannot use, a broken channel protocol, a connection
 * that ended before its result. Answers refused before the upgrade are `StatusError`s; no
 * answer at all is a `TransportError`.
 */
import { redactUrl } from "../rest/request-errors.js";
import { textExcerpt } from "./text-excerpt.js";

/**
 * The server accepted the WebSocket upgrade but not in a way the client can use: it chose
 * none of the offered subprotocols (a server or proxy that does not speak kube's streaming
 * protocols; client-go's `UpgradeFailureError` "invalid protocol"), or its handshake answer
 * was malformed (`cause` is the WebSocket library's error).
 */
export class StreamUpgradeError extends Error {
  /** The request URL, without any user name or password it had. */
  readonly url: string;
  /** The subprotocols the client offered, in order of preference. */
  readonly requestedProtocols: readonly string[];
  /** The subprotocol the server chose; `""` when it chose none. */
  readonly negotiatedProtocol: string;

  constructor(
    url: string,
    requestedProtocols: readonly string[],
    negotiatedProtocol: string,
    cause?: unknown,
  ) {
    const shown = redactUrl(url);
    const detail =
      cause instanceof Error
        ? cause.message
        : `invalid protocol, expected one of ${JSON.stringify(requestedProtocols)}, got ${JSON.stringify(negotiatedProtocol)}`;
    super(`unable to upgrade ${shown}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = "StreamUpgradeError";
    this.url = shown;
    this.requestedProtocols = [...requestedProtocols];
    this.negotiatedProtocol = negotiatedProtocol;
  }
}

/**
 * The server broke the channel protocol of an open stream: a text message where only
 * binary ones are allowed, an empty message, a message over 32 MiB, an error channel that
 * is not a `Status` or is too large for one ({@link StreamErrorChannelTooLargeError}), a
 * `NonZeroExitCode` Status without a valid `ExitCode` cause (client-go's "error stream
 * protocol error"). Text the server sent is quoted at most a few KiB long.
 */
export class StreamProtocolError extends Error {
  /** The negotiated subprotocol, e.g. `v5.channel.k8s.io`. */
  readonly protocol: string;

  constructor(protocol: string, message: string) {
    super(`${protocol} stream protocol error: ${message}`);
    this.name = "StreamProtocolError";
    this.protocol = protocol;
  }
}

/**
 * The server sent more on a stream's error channel than a Status can take: the client kept
 * the first `keptBytes`, counted the rest and dropped it, and fails the session with this
 * error once the connection closed (what was kept is not decoded). The message quotes at
 * most the first few KiB, with the total size.
 */
export class StreamErrorChannelTooLargeError extends StreamProtocolError {
  /** The error channel's number (3 for exec and attach). */
  readonly channel: number;
  /** The bytes kept: the client's limit for the channel. */
  readonly keptBytes: number;
  /** The bytes the server sent on the channel in all. */
  readonly totalBytes: number;

  /** `kept` is what the client kept of the channel's `totalBytes` bytes. */
  constructor(protocol: string, channel: number, kept: Uint8Array, totalBytes: number) {
    super(
      protocol,
      `error channel ${channel} carried ${totalBytes} bytes, more than the ${kept.length} kept; it starts with ${textExcerpt(kept, { totalBytes, quoted: true })}`,
    );
    this.name = "StreamErrorChannelTooLargeError";
    this.channel = channel;
    this.keptBytes = kept.length;
    this.totalBytes = totalBytes;
  }
}

/**
 * A stream's connection ended before the server reported its result: the connection was
 * lost (`code` 1006), the server closed it with an error code, the heartbeat went
 * unanswered, or the client closed the session itself (`closedByClient`).
 */
export class StreamClosedError extends Error {
  /** The WebSocket close code (RFC 6455 section 7.4; 1006: closed without a close frame). */
  readonly code: number;
  /** The close reason the peer sent, or what the client saw. */
  readonly reason: string;
  /** Whether the client closed the session (`close()`) rather than the server or network. */
  readonly closedByClient: boolean;

  constructor(code: number, reason: string, closedByClient: boolean, cause?: unknown) {
    const who = closedByClient ? "the client closed the stream" : "the stream closed";
    super(
      `${who} before the result arrived (code ${code}${reason === "" ? "" : `: ${reason}`})`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "StreamClosedError";
    this.code = code;
    this.reason = reason;
    this.closedByClient = closedByClient;
  }
}
