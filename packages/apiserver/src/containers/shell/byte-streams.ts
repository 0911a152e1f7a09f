/**
 * The byte streams simulated processes read and write: a source yields chunks until EOF, a
 * sink accepts them and resolves once they may be followed by more (backpressure). Pipes
 * between the commands of a pipeline are {@link BytePipe}s; the session's Node streams are
 * adapted with {@link readableSource} and {@link writableSink}.
 */
import type { Readable, Writable } from "node:stream";

/** Where a process reads from. */
export interface ByteSource {
  /** The next chunk, or `undefined` at end of input. */
  read(): Promise<Buffer | undefined>;
}

/** Where a process writes to. */
export interface ByteSink {
  /** Resolves when the sink can take more. Writes to a closed sink are discarded. */
  write(data: Buffer | string): Promise<void>;
}

/** A source at end of input (`< /dev/null`, or no stdin). */
export const EMPTY_SOURCE: ByteSource = { read: () => Promise.resolve(undefined) };

/** A sink that discards everything (`> /dev/null`, or an output the client did not ask for). */
export const DISCARD_SINK: ByteSink = { write: () => Promise.resolve() };

/** Bytes a pipe buffers before its writer waits (the pipe buffer of Linux is 64 KiB). */
const PIPE_CAPACITY = 64 * 1024;

/**
 * A one-way pipe: what is written is read in order. A writer waits while more than 64 KiB are
 * unread; after {@link close} by the reader, writes are discarded (the writer is not
 * stopped, as a shell ignoring SIGPIPE would not be).
 */
export class BytePipe implements ByteSource, ByteSink {
  readonly #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #closed = false;
  #readerWaiting: (() => void) | undefined;
  readonly #writersWaiting: (() => void)[] = [];

  async write(data: Buffer | string): Promise<void> {
    if (this.#closed || this.#ended) return;
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    this.#wakeReader();
    while (this.#buffered > PIPE_CAPACITY && !this.#closed) {
      await new Promise<void>((resolve) => this.#writersWaiting.push(resolve));
    }
  }

  /** The writer is done: the reader gets EOF after the buffered bytes. */
  end(): void {
    this.#ended = true;
    this.#wakeReader();
  }

  /** The reader is done: buffered and future bytes are dropped, waiting writers resume. */
  close(): void {
    this.#closed = true;
    this.#chunks.length = 0;
    this.#buffered = 0;
    this.#wakeWriters();
  }

  async read(): Promise<Buffer | undefined> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk) {
        this.#buffered -= chunk.length;
        if (this.#buffered <= PIPE_CAPACITY) this.#wakeWriters();
        return chunk;
      }
      if (this.#ended || this.#closed) return undefined;
      await new Promise<void>((resolve) => (this.#readerWaiting = resolve));
    }
  }

  #wakeReader(): void {
    const wake = this.#readerWaiting;
    this.#readerWaiting = undefined;
    wake?.();
  }

  #wakeWriters(): void {
    for (const wake of this.#writersWaiting.splice(0)) wake();
  }
}

/** Reads a Node stream as a {@link ByteSource}; a stream error counts as end of input. */
export function readableSource(readable: Readable): ByteSource {
  const iterator = readable[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  return {
    async read() {
      try {
        const next = await iterator.next();
        if (next.done) return undefined;
        return typeof next.value === "string" ? Buffer.from(next.value) : next.value;
      } catch {
        return undefined;
      }
    },
  };
}

/** Writes to a Node stream, waiting for `drain` when its buffer is full. */
export function writableSink(writable: Writable): ByteSink {
  return {
    write(data) {
      if (writable.destroyed || writable.writableEnded) return Promise.resolve();
      if (writable.write(data)) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          writable.off("drain", done);
          writable.off("close", done);
          resolve();
        };
        writable.once("drain", done);
        writable.once("close", done);
      });
    },
  };
}

/** Everything a source yields until EOF. */
export async function readAll(source: ByteSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let chunk = await source.read(); chunk; chunk = await source.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A source yielding `data` once. */
export function bufferSource(data: Buffer): ByteSource {
  let done = data.length === 0;
  return {
    read() {
      if (done) return Promise.resolve(undefined);
      done = true;
      return Promise.resolve(data);
    },
  };
}
