/**
 * What an exec or attach session needs from its transport, whichever it is: kube's
 * remote-command protocol over WebSocket (`remote-command-websocket.ts`) or over SPDY/3.1
 * (`remote-command-spdy.ts`). Both carry the same streams — stdin, stdout, stderr, an error
 * stream with one JSON `metav1.Status` at the end, and terminal sizes — framed differently.
 */
import type { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";
import type { JsonObject, Status, TerminalSize } from "kubekit";

/** Which streams the client asked for (the `stdin`, `stdout`, `stderr`, `tty` query). */
export interface RequestedStreams {
  readonly stdin: boolean;
  readonly stdout: boolean;
  /** Already false with a TTY: the kubelet drops stderr then (the terminal carries both). */
  readonly stderr: boolean;
  readonly tty: boolean;
}

/**
 * The streams of one accepted session. `stdin` ends when the client closes it or goes away;
 * writes to `stdout`/`stderr` complete once handed to the connection; `signal` is aborted
 * when the connection closes before {@link finish}.
 */
export interface RemoteCommandStreams {
  readonly stdin: Readable | undefined;
  readonly stdout: Writable | undefined;
  readonly stderr: Writable | undefined;
  /** Emits `"resize"` with a {@link TerminalSize} for each size the client sends. */
  readonly resizes: EventEmitter;
  readonly signal: AbortSignal;
  /**
   * Ends the session: stops reading, flushes the output, writes `status` on the error stream
   * (without `kind`/`apiVersion`, as kube's `json.Marshal(status.Status())` writes it) and
   * closes the connection cleanly.
   */
  finish(status: Status | JsonObject): Promise<void>;
}

/**
 * A resize message: `{"Width":80,"Height":24}` as client-go marshals `TerminalSize`;
 * `undefined` when malformed (ignored, as kube's decoder loop stops at garbage).
 */
export function parseTerminalSize(text: string): TerminalSize | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { Width: width, Height: height } = value as Record<string, unknown>;
  if (typeof width !== "number" || typeof height !== "number") return undefined;
  return { width, height };
}

/** The body of a Status as written on the error stream: without `kind` and `apiVersion`. */
export function errorStreamBody(status: Status | JsonObject): string {
  const { kind: _kind, apiVersion: _apiVersion, ...body } = status as JsonObject;
  return JSON.stringify(body);
}

/** Ends a writer and resolves once everything written before has been flushed. */
export function endWriter(writer: Writable | undefined): Promise<void> {
  if (!writer || writer.writableFinished || writer.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    writer.once("finish", resolve);
    writer.once("close", resolve);
    writer.end();
  });
}
