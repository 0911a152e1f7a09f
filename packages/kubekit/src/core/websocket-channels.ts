/**
 * The channel framing of kube's WebSocket stream protocols, shared by the client (exec,
 * attach, port-forward) and the embedded server that serves them.
 *
 * Remote command (exec and attach): `v4.channel.k8s.io` and `v5.channel.k8s.io`. Every
 * message is binary; its first byte names the channel and the rest is that channel's data
 * (`staging/src/k8s.io/apiserver/pkg/util/wsstream/conn.go`): 0 stdin, 1 stdout, 2 stderr,
 * 3 error (the command's result as a JSON metav1.Status), 4 resize (JSON
 * `{"Width":W,"Height":H}`). v5 adds channel 255, "close": its second byte is the channel
 * the sender is done writing to, e.g. `[255, 0]` for the end of stdin
 * (`staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go`, KEP-4006).
 *
 * Port forwarding (`pods/portforward`, the kubelet's
 * `pkg/kubelet/cri/streaming/portforward/websocket.go`): the same framing under
 * `v4.channel.k8s.io`, port i of the `ports` query on channels 2i (data, both ways) and
 * 2i+1 (error, server to client), each starting with the port ({@link encodePortPrefix}).
 */

/**
 * The largest message a peer of these protocols may send: kube-apiserver's wsstream
 * (`staging/src/k8s.io/apiserver/pkg/util/wsstream/conn.go`) reads with
 * `golang.org/x/net/websocket`, whose `DefaultMaxPayloadBytes` is 32 MiB.
 */
export const MAX_CHANNEL_MESSAGE_BYTES = 32 * 1024 * 1024;

/** The remote command protocol with the close signal (kube-apiserver 1.30+, KEP-4006). */
export const REMOTE_COMMAND_PROTOCOL_V5 = "v5.channel.k8s.io";

/** The remote command protocol without the close signal (the end of stdin cannot be sent). */
export const REMOTE_COMMAND_PROTOCOL_V4 = "v4.channel.k8s.io";

/** What exec and attach offer, most preferred first. */
export const REMOTE_COMMAND_PROTOCOLS: readonly string[] = [
  REMOTE_COMMAND_PROTOCOL_V5,
  REMOTE_COMMAND_PROTOCOL_V4,
];

/** The channel numbers of the remote command protocols. */
export const RemoteCommandChannel = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  error: 3,
  resize: 4,
  /** v5 only: "this side is done writing to channel `data[0]`". */
  close: 255,
} as const;

/** The size of a terminal in character cells (core/v1 TerminalSize). */
export interface TerminalSize {
  /** Columns, an integer 0..65535. */
  readonly width: number;
  /** Rows, an integer 0..65535. */
  readonly height: number;
}

/** One decoded message: its channel and that channel's data. */
export interface ChannelMessage {
  readonly channel: number;
  /** A view into the received message (no copy). */
  readonly data: Buffer;
}

/**
 * A message for `channel` carrying `data`.
 *
 * @throws {RangeError} when `channel` is not an integer 0..255.
 */
export function encodeChannelMessage(channel: number, data: Uint8Array): Buffer {
  if (!Number.isInteger(channel) || channel < 0 || channel > 255) {
    throw new RangeError(`channel must be an integer 0..255, got ${channel}`);
  }
  const message = Buffer.allocUnsafe(data.length + 1);
  message[0] = channel;
  message.set(data, 1);
  return message;
}

/** v5's close signal for `channel`: `[255, channel]`. */
export function encodeCloseMessage(channel: number): Buffer {
  return encodeChannelMessage(RemoteCommandChannel.close, Uint8Array.of(channel));
}

/**
 * A resize message: channel 4 with `{"Width":W,"Height":H}`, the JSON of core/v1
 * TerminalSize as kubectl sends it (field names capitalized: the Go struct has no JSON tags).
 *
 * @throws {RangeError} when a dimension is not an integer 0..65535 (Go's uint16).
 */
export function encodeResizeMessage(size: TerminalSize): Buffer {
  for (const [name, value] of [
    ["width", size.width],
    ["height", size.height],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
      throw new RangeError(`terminal ${name} must be an integer 0..65535, got ${value}`);
    }
  }
  const json = JSON.stringify({ Width: size.width, Height: size.height });
  return encodeChannelMessage(RemoteCommandChannel.resize, Buffer.from(json));
}

/**
 * Splits a received message into channel and data, or undefined for an empty message
 * (which names no channel: a protocol error).
 */
export function decodeChannelMessage(message: Buffer): ChannelMessage | undefined {
  const channel = message[0];
  if (channel === undefined) return undefined;
  return { channel, data: message.subarray(1) };
}

/** The subprotocol of port forwarding over a WebSocket: v4's channel framing. */
export const PORT_FORWARD_CHANNEL_PROTOCOL = "v4.channel.k8s.io";

/**
 * What the server sends first on each port-forward channel: the port as a 16-bit
 * little-endian integer (`pkg/kubelet/cri/streaming/portforward/websocket.go`).
 *
 * @throws {RangeError} when `port` is outside 0..65535.
 */
export function encodePortPrefix(port: number): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16LE(port);
  return prefix;
}
