import type { ByteSink, ByteSource } from "./byte-streams.js";
import type { MemoryFileSystem } from "./memory-file-system.js";

/**
 * What a simulated process gets: its argv, standard streams, environment, working directory,
 * the container's file system, and a way to find the other commands (for `sh`). Nothing runs
 * on the host.
 */
export interface CommandContext {
  readonly argv: readonly string[];
  readonly stdin: ByteSource;
  readonly stdout: ByteSink;
  readonly stderr: ByteSink;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly fs: MemoryFileSystem;
  /** Whether the session has a terminal (`tty=true`): `sh` then prompts and `ls` prints columns. */
  readonly tty: boolean;
  /** The server clock's time in ms. */
  readonly now: () => number;
  /** When the container started, in ms on the clock (`uptime`); unknown: now. */
  readonly startedAtMs?: number;
  /** Sleeps on the server's clock; rejects when `signal` aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted when the process is killed (the client went away, or Ctrl-C on a terminal). */
  readonly signal: AbortSignal;
  /**
   * The command a name runs (`echo`, `/bin/echo`), or `undefined` (`sh: X: not found`);
   * the set is the container's `PATH` (`/bin`, `/usr/bin`, …).
   */
  readonly lookup: (name: string) => Command | undefined;
  /**
   * Makes `listener` the receiver of Ctrl-C on the session's terminal (the foreground
   * process): only the latest registered listener is called; the returned function removes it.
   * Never called without a terminal.
   */
  readonly onInterrupt: (listener: () => void) => () => void;
}

/** A simulated executable: resolves to its exit status. */
export type Command = (ctx: CommandContext) => Promise<number>;

/** Writes `text` to a sink. */
export function print(sink: ByteSink, text: string): Promise<void> {
  return sink.write(Buffer.from(text));
}
