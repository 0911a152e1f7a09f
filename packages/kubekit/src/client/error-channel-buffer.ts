/**
 * The content of a streaming connection's error channel, bounded. kube writes one short
 * text there and closes: the command's metav1.Status for exec and attach (the kubelet's
 * `v4WriteStatusFunc`, `pkg/kubelet/cri/streaming/remotecommand/httpstream.go`), the
 * failure of a forwarded port for port-forward (`pkg/kubelet/cri/streaming/portforward/
 * websocket.go`). Whatever a server sends beyond {@link MAX_ERROR_CHANNEL_BYTES} is counted
 * and dropped, so a peer flooding the channel costs the client no memory.
 */

/**
 * Most bytes of an error channel kept: a Status there is well under 1 KiB (a message and an
 * exit-code cause), a port-forward failure one line.
 */
export const MAX_ERROR_CHANNEL_BYTES = 64 * 1024;

/** An error channel's first {@link MAX_ERROR_CHANNEL_BYTES} bytes, and how many came in all. */
export class ErrorChannelBuffer {
  /** Allocated with the first byte (most connections never see one). */
  #kept: Buffer | undefined;
  #keptBytes = 0;
  #totalBytes = 0;
  #received = false;

  /** Appends one message's data: copied while there is room (never kept as a view), counted. */
  push(data: Uint8Array): void {
    this.#received = true;
    const room = MAX_ERROR_CHANNEL_BYTES - this.#keptBytes;
    if (room > 0 && data.length > 0) {
      this.#kept ??= Buffer.allocUnsafe(MAX_ERROR_CHANNEL_BYTES);
      const taken = data.subarray(0, room);
      this.#kept.set(taken, this.#keptBytes);
      this.#keptBytes += taken.length;
    }
    this.#totalBytes += data.length;
  }

  /** Whether any message arrived on the channel, even an empty one. */
  get received(): boolean {
    return this.#received;
  }

  /** The bytes received on the channel in all, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Whether bytes were dropped: the channel carried more than {@link MAX_ERROR_CHANNEL_BYTES}. */
  get truncated(): boolean {
    return this.#totalBytes > this.#keptBytes;
  }

  /** The kept bytes (a view, valid until the next {@link push}). */
  content(): Buffer {
    return this.#kept === undefined ? Buffer.alloc(0) : this.#kept.subarray(0, this.#keptBytes);
  }
}
