/**
 * The pseudo-terminal of a `tty=true` session, reduced to what a user at `kubectl exec -it`
 * notices: canonical-mode input (typed bytes are echoed; a line is delivered on Enter;
 * Backspace erases; Ctrl-U kills the line; Ctrl-D on an empty line is end of input; Ctrl-C
 * discards the line and interrupts the foreground process) and output post-processing (`\n`
 * becomes `\r\n`, termios `ONLCR`). kubectl puts the local terminal in raw mode, so all of
 * this is the remote side's job, as a kernel pty's line discipline does it (termios(3)).
 */
import { BytePipe, type ByteSink, type ByteSource } from "./byte-streams.js";

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = 0x08;
const CTRL_U = 0x15;
const DELETE = 0x7f;
const CR = 0x0d;
const LF = 0x0a;

/** A terminal between the client's raw streams and the processes of one session. */
export class Terminal {
  /** What processes write: `\n` is sent as `\r\n`. */
  readonly output: ByteSink;
  /** What processes read: whole lines, as typed and edited. */
  readonly input: ByteSource;
  readonly #cooked = new BytePipe();
  readonly #interruptListeners: (() => void)[] = [];
  #line: number[] = [];

  readonly #raw: ByteSink;

  constructor(raw: ByteSink, rawInput: ByteSource | undefined) {
    this.#raw = raw;
    this.output = { write: (data) => raw.write(onlcr(Buffer.from(data))) };
    this.input = this.#cooked;
    if (rawInput) void this.#pump(rawInput);
    else this.#cooked.end();
  }

  /** Makes `listener` the receiver of Ctrl-C (the foreground process); returns its removal. */
  onInterrupt(listener: () => void): () => void {
    this.#interruptListeners.push(listener);
    return () => {
      const i = this.#interruptListeners.lastIndexOf(listener);
      if (i >= 0) this.#interruptListeners.splice(i, 1);
    };
  }

  async #pump(rawInput: ByteSource): Promise<void> {
    for (let chunk = await rawInput.read(); chunk; chunk = await rawInput.read()) {
      for (const byte of chunk) {
        if (!(await this.#key(byte))) {
          this.#cooked.end();
          return;
        }
      }
    }
    if (this.#line.length > 0) await this.#deliver(false);
    this.#cooked.end();
  }

  /** Handles one typed byte; false at end of input (Ctrl-D on an empty line). */
  async #key(byte: number): Promise<boolean> {
    switch (byte) {
      case CTRL_C:
        this.#line = [];
        await this.#raw.write("^C\r\n");
        this.#interruptListeners.at(-1)?.();
        return true;
      case CTRL_D:
        if (this.#line.length === 0) return false;
        await this.#deliver(false);
        return true;
      case DELETE:
      case BACKSPACE:
        if (this.#line.length > 0) {
          // Erase one character: its UTF-8 continuation bytes (10xxxxxx) and its lead byte.
          while (this.#line.length > 0 && ((this.#line.pop() ?? 0) & 0xc0) === 0x80);
          await this.#raw.write("\b \b");
        }
        return true;
      case CTRL_U:
        await this.#raw.write("\b \b".repeat(Buffer.from(this.#line).toString("utf8").length));
        this.#line = [];
        return true;
      case CR:
      case LF:
        await this.#raw.write("\r\n");
        await this.#deliver(true);
        return true;
      default:
        this.#line.push(byte);
        await this.#raw.write(Buffer.of(byte));
        return true;
    }
  }

  async #deliver(newline: boolean): Promise<void> {
    const line = Buffer.from(this.#line);
    this.#line = [];
    await this.#cooked.write(newline ? Buffer.concat([line, Buffer.of(LF)]) : line);
  }
}

/** `\n` → `\r\n` (ONLCR), byte by byte so that any encoding passes through. */
function onlcr(data: Buffer): Buffer {
  const out: number[] = [];
  for (const byte of data) {
    if (byte === LF) out.push(CR);
    out.push(byte);
  }
  return Buffer.from(out);
}
