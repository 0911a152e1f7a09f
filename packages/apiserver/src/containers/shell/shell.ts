/**
 * The simulated `sh` (BusyBox ash's behaviour for the subset {@link parseScript} accepts):
 * `sh -c SCRIPT [NAME [ARG]...]`, `sh FILE [ARG]...`, or commands read from stdin line by
 * line — with a `/dir # ` prompt when the session has a terminal, Ctrl-C stopping the
 * running command rather than the shell. Built-ins: `cd`, `exit`, `export`, `unset`, `exec`,
 * `:`, `break`, `continue`, `read`, `shift`. A command that is not found prints
 * `sh: NAME: not found` and has status 127; an expansion that fails (bad arithmetic) prints
 * its error and has status 2. Loops yield to the event loop on every iteration and stop when
 * the process is killed.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  BytePipe,
  bufferSource,
  EMPTY_SOURCE,
  type ByteSink,
  type ByteSource,
} from "./byte-streams.js";
import { print, type Command, type CommandContext } from "./command.js";
import { FileSystemError, resolvePath } from "./memory-file-system.js";
import { ArithmeticError, evaluateArithmetic } from "./shell-arithmetic.js";
import {
  parseScript,
  ShellSyntaxError,
  type AndOrList,
  type CompoundCommand,
  type Pipeline,
  type Redirection,
  type Script,
  type ShellCommand,
  type SimpleCommand,
  type Word,
  type WordPart,
} from "./shell-syntax.js";

interface StandardStreams {
  readonly stdin: ByteSource;
  readonly stdout: ByteSink;
  readonly stderr: ByteSink;
}

/** Thrown by `exit` to unwind to the shell's top level. */
class ShellExit {
  constructor(readonly status: number) {}
}

/** Thrown by `break N` / `continue N` to unwind to the enclosing loop. */
class LoopControl {
  constructor(
    readonly kind: "break" | "continue",
    public levels: number,
  ) {}
}

/** An expansion that failed: the command does not run; `sh: MESSAGE`, status 2. */
class ExpansionError {
  constructor(readonly message: string) {}
}

/** The most output a command substitution keeps (more is dropped). */
const SUBSTITUTION_LIMIT = 16 * 1024 * 1024;

/** Special parameters, always set. */
const SPECIAL = new Set(["?", "#", "@", "*", "$", "!", "-", "0"]);

/** The line reader of each input a `read` consumed from (so buffered bytes are not lost). */
const lineReaders = new WeakMap<ByteSource, LineReader>();

/** A glob pattern word of `case` as a RegExp (`*`, `?`, `[…]` unquoted; quoted text literal). */
function globPattern(parts: readonly { text: string; quoted: boolean }[]): RegExp {
  let source = "";
  for (const { text, quoted } of parts) {
    if (quoted) {
      source += text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      continue;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === "*") source += "[\\s\\S]*";
      else if (c === "?") source += "[\\s\\S]";
      else if (c === "[" && text.indexOf("]", i + 2) > 0) {
        const close = text.indexOf("]", i + 2);
        source += `[${text
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = close;
      } else if (c === "\\" && i + 1 < text.length) source += `\\${text[++i]}`;
      else source += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

/** A running shell: its variables, working directory and last status. */
class ShellSession {
  readonly #vars = new Map<string, string>();
  readonly #exported = new Set<string>();
  #cwd: string;
  #status = 0;
  readonly #ctx: CommandContext;
  readonly #arg0: string;
  #positional: readonly string[];
  /** The status of the last command substitution of the simple command being expanded. */
  #substitutionStatus: number | undefined;
  /** How many loops enclose the running command (`break` outside one is ignored). */
  #loopDepth = 0;

  constructor(ctx: CommandContext, arg0: string, positional: readonly string[]) {
    this.#ctx = ctx;
    this.#arg0 = arg0;
    this.#positional = positional;
    for (const [k, v] of Object.entries(ctx.env)) {
      this.#vars.set(k, v);
      this.#exported.add(k);
    }
    this.#cwd = ctx.cwd;
  }

  /** A subshell: a copy of this session's state, changes to it stay in it. */
  #fork(): ShellSession {
    const child = new ShellSession(this.#ctx, this.#arg0, this.#positional);
    child.#vars.clear();
    for (const [k, v] of this.#vars) child.#vars.set(k, v);
    for (const k of this.#exported) child.#exported.add(k);
    child.#cwd = this.#cwd;
    child.#status = this.#status;
    return child;
  }

  /** Runs a whole script; a syntax error prints and gives status 2 before anything runs. */
  async runScript(text: string): Promise<number> {
    let script;
    try {
      script = parseScript(text);
    } catch (err) {
      if (!(err instanceof ShellSyntaxError)) throw err;
      await print(this.#ctx.stderr, `sh: ${err.message}\n`);
      return 2;
    }
    return this.#runTopLevel(script, this.#ctx);
  }

  /** Runs a parsed script until its end or `exit`; the status. */
  async #runTopLevel(script: Script, io: StandardStreams): Promise<number> {
    try {
      await this.#list(script, io);
    } catch (err) {
      if (err instanceof ShellExit) return err.status;
      if (err instanceof LoopControl) return this.#status;
      throw err;
    }
    return this.#status;
  }

  /** Reads and runs stdin line by line, prompting on a terminal, until EOF or `exit`. */
  async interactive(): Promise<number> {
    // An interactive shell ignores Ctrl-C itself (the line discipline drops the line).
    const restore = this.#ctx.onInterrupt(() => undefined);
    const lines = readerOf(this.#ctx.stdin);
    try {
      for (;;) {
        if (this.#ctx.tty) await print(this.#ctx.stdout, `${this.#cwd} # `);
        const line = await lines.next();
        if (line === undefined) return this.#status;
        let script;
        try {
          script = parseScript(line);
        } catch (err) {
          if (!(err instanceof ShellSyntaxError)) throw err;
          await print(this.#ctx.stderr, `sh: ${err.message}\n`);
          this.#status = 2;
          continue;
        }
        try {
          await this.#list(script, this.#ctx);
        } catch (err) {
          if (err instanceof ShellExit) return err.status;
          if (!(err instanceof LoopControl)) throw err;
        }
        if (this.#ctx.signal.aborted) return this.#status;
      }
    } finally {
      restore();
    }
  }

  async #list(script: Script, io: StandardStreams): Promise<void> {
    for (const list of script) {
      if (this.#ctx.signal.aborted) return;
      await this.#andOr(list, io);
    }
  }

  async #andOr(list: AndOrList, io: StandardStreams): Promise<void> {
    this.#status = await this.#pipeline(list.first, io);
    for (const { op, pipeline } of list.rest) {
      if (this.#ctx.signal.aborted) return;
      if ((op === "&&") === (this.#status === 0)) this.#status = await this.#pipeline(pipeline, io);
    }
  }

  async #pipeline(pipeline: Pipeline, io: StandardStreams): Promise<number> {
    let status: number;
    if (pipeline.commands.length === 1) {
      status = await this.#command(pipeline.commands[0]!, io);
    } else {
      const runs: Promise<number>[] = [];
      let input = io.stdin;
      pipeline.commands.forEach((command, i) => {
        const last = i === pipeline.commands.length - 1;
        const pipe = last ? undefined : new BytePipe();
        const reading = input;
        const ownPipe = i > 0 && reading instanceof BytePipe ? reading : undefined;
        // Each element runs in a subshell: `exit`, `break` and assignments end there.
        const sub = this.#fork();
        sub.#loopDepth = 0;
        runs.push(
          sub
            .#runTopLevel([{ first: { negated: false, commands: [command] }, rest: [] }], {
              stdin: reading,
              stdout: pipe ?? io.stdout,
              stderr: io.stderr,
            })
            .finally(() => {
              pipe?.end();
              ownPipe?.close();
            }),
        );
        if (pipe) input = pipe;
      });
      status = (await Promise.all(runs)).at(-1)!;
    }
    return pipeline.negated ? (status === 0 ? 1 : 0) : status;
  }

  /** Runs one command of a pipeline; an expansion error prints and gives status 2. */
  async #command(command: ShellCommand, io: StandardStreams): Promise<number> {
    try {
      if (command.kind === "simple") return await this.#simple(command, io);
      const streams = await this.#redirect(command.redirections, io);
      if (typeof streams === "number") return streams;
      return await this.#compound(command, streams);
    } catch (err) {
      if (!(err instanceof ExpansionError)) throw err;
      await print(io.stderr, `sh: ${err.message}\n`);
      return 2;
    }
  }

  async #compound(command: CompoundCommand, io: StandardStreams): Promise<number> {
    switch (command.kind) {
      case "if":
        for (const { condition, body } of command.clauses) {
          await this.#list(condition, io);
          if (this.#status === 0) {
            await this.#list(body, io);
            return this.#status;
          }
        }
        if (command.otherwise) {
          await this.#list(command.otherwise, io);
          return this.#status;
        }
        return 0;
      case "group":
        if (!command.subshell) {
          await this.#list(command.body, io);
          return this.#status;
        }
        return this.#fork().#runTopLevel(command.body, io);
      case "case": {
        const subject = (await this.#expand(command.subject, false)).join(" ");
        for (const item of command.items) {
          for (const pattern of item.patterns) {
            if (!globPattern(await this.#patternParts(pattern)).test(subject)) continue;
            await this.#list(item.body, io);
            return item.body.length > 0 ? this.#status : 0;
          }
        }
        return 0;
      }
      case "for": {
        const values = command.words
          ? (await Promise.all(command.words.map((w) => this.#expand(w)))).flat()
          : [...this.#positional];
        return this.#loop(
          io,
          async (iteration) => {
            if (iteration >= values.length) return false;
            this.#vars.set(command.name, values[iteration]!);
            return true;
          },
          command.body,
        );
      }
      case "while":
        return this.#loop(
          io,
          async () => {
            await this.#list(command.condition, io);
            return (this.#status === 0) !== command.until;
          },
          command.body,
        );
    }
  }

  /**
   * Runs `body` while `next(iteration)` says so, handling `break`/`continue`; yields to the
   * event loop every iteration and stops when the process is killed. The status of the last
   * body run, 0 when none ran.
   */
  async #loop(
    io: StandardStreams,
    next: (iteration: number) => Promise<boolean>,
    body: Script,
  ): Promise<number> {
    let status = 0;
    this.#loopDepth++;
    try {
      for (let i = 0; !this.#ctx.signal.aborted; i++) {
        await nextTurn();
        if (!(await next(i))) break;
        try {
          await this.#list(body, io);
          status = this.#status;
        } catch (err) {
          if (!(err instanceof LoopControl)) throw err;
          status = 0;
          if (err.levels > 1) {
            err.levels--;
            throw err;
          }
          if (err.kind === "break") break;
        }
      }
    } finally {
      this.#loopDepth--;
    }
    return status;
  }

  /** A `case` pattern word's expanded parts, with their quoting. */
  async #patternParts(word: Word): Promise<{ text: string; quoted: boolean }[]> {
    const parts: { text: string; quoted: boolean }[] = [];
    for (const part of word) {
      if (part.kind === "literal") parts.push({ text: part.text, quoted: part.quoted });
      else parts.push({ text: await this.#value(part), quoted: part.quoted });
    }
    return parts;
  }

  /** The value of an expansion part (not field-split). */
  async #value(part: Exclude<WordPart, { kind: "literal" }>): Promise<string> {
    switch (part.kind) {
      case "command":
        return this.#substitute(part.script);
      case "arithmetic": {
        const text = (await this.#expand(part.expression, false)).join("");
        try {
          return String(evaluateArithmetic(text, this.#vars));
        } catch (err) {
          if (err instanceof ArithmeticError) throw new ExpansionError(err.message);
          throw err;
        }
      }
      case "parameter":
        return this.#parameterExpansion(part);
    }
  }

  /** `${NAME…}` with its operator, if any. */
  async #parameterExpansion(part: Extract<WordPart, { kind: "parameter" }>): Promise<string> {
    const value = this.#parameter(part.name);
    const set = this.#isSet(part.name);
    const operand = async (): Promise<string> =>
      part.operand ? (await this.#expand(part.operand, false)).join("") : "";
    switch (part.operator) {
      case undefined:
        return value;
      case "length":
        return String([...value].length);
      case "-":
        return set ? value : operand();
      case ":-":
        return value !== "" ? value : operand();
      case "+":
        return set ? operand() : "";
      case ":+":
        return value !== "" ? operand() : "";
      case "=":
      case ":=": {
        if (part.operator === "=" ? set : value !== "") return value;
        const assigned = await operand();
        this.#vars.set(part.name, assigned);
        return assigned;
      }
    }
  }

  #isSet(name: string): boolean {
    if (/^\d+$/.test(name)) return Number(name) <= this.#positional.length;
    return SPECIAL.has(name) || this.#vars.has(name);
  }

  /** Runs `script` in a subshell and gives what it printed, trailing newlines removed. */
  async #substitute(script: Script): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    const capture: ByteSink = {
      write: (data) => {
        const chunk = typeof data === "string" ? Buffer.from(data) : data;
        if (size + chunk.length <= SUBSTITUTION_LIMIT) chunks.push(chunk);
        size += chunk.length;
        return Promise.resolve();
      },
    };
    const sub = this.#fork();
    this.#substitutionStatus = await sub.#runTopLevel(script, {
      stdin: EMPTY_SOURCE,
      stdout: capture,
      stderr: this.#ctx.stderr,
    });
    return Buffer.concat(chunks).toString("utf8").replace(/\n+$/, "");
  }

  /** A word's fields (`split`: unquoted expansions are split on blanks, the default IFS). */
  async #expand(word: Word, split = true): Promise<string[]> {
    const fields: string[] = [];
    let current = "";
    let has = false;
    const finish = (): void => {
      if (has) fields.push(current);
      current = "";
      has = false;
    };
    for (const part of word) {
      if (part.kind === "literal") {
        current += part.text;
        has ||= part.quoted || part.text !== "";
        continue;
      }
      if (part.kind === "parameter" && part.name === "@" && part.quoted && !part.operator) {
        // "$@": one field per positional parameter.
        this.#positional.forEach((arg, i) => {
          if (i > 0) finish();
          current += arg;
          has = true;
        });
        continue;
      }
      const value = await this.#value(part);
      if (part.quoted || !split) {
        current += value;
        has = true;
        continue;
      }
      const pieces = value.split(/[ \t\n]+/);
      pieces.forEach((piece, i) => {
        if (i > 0) finish();
        current += piece;
        has ||= piece !== "";
      });
    }
    finish();
    return fields;
  }

  #parameter(name: string): string {
    switch (name) {
      case "?":
        return String(this.#status);
      case "#":
        return String(this.#positional.length);
      case "@":
      case "*":
        return this.#positional.join(" ");
      case "$":
        return "1";
      case "!":
      case "-":
        return "";
      case "0":
        return this.#arg0;
      default:
        if (/^\d+$/.test(name)) return this.#positional[Number(name) - 1] ?? "";
        return this.#vars.get(name) ?? "";
    }
  }

  #environment(extra: ReadonlyMap<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of this.#exported) {
      const value = this.#vars.get(name);
      if (value !== undefined) env[name] = value;
    }
    for (const [k, v] of extra) env[k] = v;
    return env;
  }

  /** Applies redirections to `io`; prints and returns a status when one cannot be opened. */
  async #redirect(
    redirections: readonly Redirection[],
    io: StandardStreams,
  ): Promise<StandardStreams | number> {
    const fds: (ByteSource | ByteSink | undefined)[] = [io.stdin, io.stdout, io.stderr];
    for (const r of redirections) {
      const target = (await this.#expand(r.target)).join(" ");
      if (r.op === ">&" || r.op === "<&") {
        const from = /^\d$/.test(target) ? fds[Number(target)] : undefined;
        if (from === undefined) {
          await print(io.stderr, `sh: ${target}: bad file descriptor\n`);
          return 1;
        }
        fds[r.fd] = from;
        continue;
      }
      const special = { "/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2 }[target] as
        number | undefined;
      if (special !== undefined) {
        fds[r.fd] = fds[special];
        continue;
      }
      const path = resolvePath(this.#cwd, target);
      try {
        if (r.op === "<") {
          fds[r.fd] = bufferSource(this.#ctx.fs.readFile(path));
        } else {
          const append = this.#ctx.fs.openForWrite(path, { append: r.op === ">>" });
          fds[r.fd] = {
            write: (data) => {
              append(typeof data === "string" ? Buffer.from(data) : data);
              return Promise.resolve();
            },
          };
        }
      } catch (err) {
        const text = err instanceof FileSystemError ? err.message : String(err);
        await print(
          io.stderr,
          r.op === "<"
            ? `sh: can't open '${target}': ${text}\n`
            : `sh: can't create ${target}: ${text}\n`,
        );
        return 1;
      }
    }
    const [stdin, stdout, stderr] = fds;
    return {
      stdin: isSource(stdin) ? stdin : io.stdin,
      stdout: isSink(stdout) ? stdout : io.stdout,
      stderr: isSink(stderr) ? stderr : io.stderr,
    };
  }

  async #simple(command: SimpleCommand, io: StandardStreams): Promise<number> {
    this.#substitutionStatus = undefined;
    const argv: string[] = [];
    for (const word of command.words) argv.push(...(await this.#expand(word)));
    const assigned = new Map<string, string>();
    for (const { name, value } of command.assignments)
      assigned.set(name, (await this.#expand(value, false)).join(""));
    const streams = await this.#redirect(command.redirections, io);
    if (typeof streams === "number") return streams;
    if (argv.length === 0) {
      // Assignments only: the status of the last command substitution, else 0.
      for (const [k, v] of assigned) this.#vars.set(k, v);
      return this.#substitutionStatus ?? 0;
    }
    const [name, ...args] = argv as [string, ...string[]];
    switch (name) {
      case ":":
        return 0;
      case "exit": {
        const status = args[0] === undefined ? this.#status : Number(args[0]);
        if (!Number.isInteger(status)) {
          await print(streams.stderr, `sh: exit: Illegal number: ${args[0]}\n`);
          throw new ShellExit(2);
        }
        throw new ShellExit(status & 0xff);
      }
      case "cd": {
        const target = resolvePath(this.#cwd, args[0] ?? this.#vars.get("HOME") ?? "/");
        const node = this.#ctx.fs.lookup(target);
        if (node?.type !== "directory") {
          await print(
            streams.stderr,
            `sh: cd: can't cd to ${args[0]}: ${node ? "Not a directory" : "No such file or directory"}\n`,
          );
          return 2;
        }
        this.#cwd = target;
        this.#vars.set("PWD", target);
        return 0;
      }
      case "export":
        for (const arg of args) {
          const eq = arg.indexOf("=");
          const key = eq < 0 ? arg : arg.slice(0, eq);
          if (eq >= 0) this.#vars.set(key, arg.slice(eq + 1));
          this.#exported.add(key);
        }
        return 0;
      case "unset":
        for (const arg of args) {
          this.#vars.delete(arg);
          this.#exported.delete(arg);
        }
        return 0;
      case "exec":
        if (args.length === 0) return 0;
        throw new ShellExit(await this.#run(args, assigned, streams));
      case "break":
      case "continue": {
        const levels = Number(args[0] ?? "1");
        if (!Number.isInteger(levels) || levels < 1) {
          await print(streams.stderr, `sh: ${name}: Illegal number: ${args[0]}\n`);
          return 1;
        }
        if (this.#loopDepth === 0) return 0;
        throw new LoopControl(name, Math.min(levels, this.#loopDepth));
      }
      case "shift": {
        const n = Number(args[0] ?? "1");
        if (!Number.isInteger(n) || n < 0 || n > this.#positional.length) return 1;
        this.#positional = this.#positional.slice(n);
        return 0;
      }
      case "read":
        return this.#read(args, streams);
      default:
        return this.#run(argv, assigned, streams);
    }
  }

  /** `read [-r] NAME...`: one line of stdin split on blanks into the names; 1 at end of input. */
  async #read(args: readonly string[], streams: StandardStreams): Promise<number> {
    const raw = args[0] === "-r";
    const names = raw ? args.slice(1) : args;
    const line = await readerOf(streams.stdin).next();
    if (line === undefined) {
      for (const name of names) this.#vars.set(name, "");
      return 1;
    }
    const text = raw ? line : line.replace(/\\(.)/g, "$1");
    const targets = names.length > 0 ? names : ["REPLY"];
    const fields = text.trim().split(/[ \t]+/);
    targets.forEach((name, i) => {
      const value = i === targets.length - 1 ? fields.slice(i).join(" ") : (fields[i] ?? "");
      this.#vars.set(name, value);
    });
    return 0;
  }

  /** Runs an external command as the foreground process: Ctrl-C and the shell's end stop it. */
  async #run(
    argv: readonly string[],
    assigned: ReadonlyMap<string, string>,
    streams: StandardStreams,
  ): Promise<number> {
    const command = this.#ctx.lookup(argv[0]!);
    if (!command) {
      await print(streams.stderr, `sh: ${argv[0]}: not found\n`);
      return 127;
    }
    const foreground = new AbortController();
    const stop = (): void => foreground.abort(this.#ctx.signal.reason);
    this.#ctx.signal.addEventListener("abort", stop, { once: true });
    const restore = this.#ctx.onInterrupt(() => foreground.abort(new Error("interrupted")));
    try {
      return await command({
        ...this.#ctx,
        ...streams,
        argv,
        env: this.#environment(assigned),
        cwd: this.#cwd,
        signal: foreground.signal,
      });
    } finally {
      restore();
      this.#ctx.signal.removeEventListener("abort", stop);
    }
  }
}

function isSource(value: unknown): value is ByteSource {
  return typeof (value as ByteSource | undefined)?.read === "function";
}

function isSink(value: unknown): value is ByteSink {
  return typeof (value as ByteSink | undefined)?.write === "function";
}

/** The line reader of `source`, shared by every `read` of it. */
function readerOf(source: ByteSource): LineReader {
  let reader = lineReaders.get(source);
  if (!reader) lineReaders.set(source, (reader = new LineReader(source)));
  return reader;
}

/** Splits a source into lines (without their `\n`); a last line without one still counts. */
class LineReader {
  #buffer = "";
  #ended = false;
  readonly #source: ByteSource;

  constructor(source: ByteSource) {
    this.#source = source;
  }

  async next(): Promise<string | undefined> {
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return line;
      }
      if (this.#ended) {
        if (this.#buffer === "") return undefined;
        const line = this.#buffer;
        this.#buffer = "";
        return line;
      }
      const chunk = await this.#source.read();
      if (chunk) this.#buffer += chunk.toString("utf8");
      else this.#ended = true;
    }
  }
}

/** `sh` (also `ash`, `bash`): see the module comment. */
export const shell: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  while (args[0] === "-i" || args[0] === "-s" || args[0] === "-l" || args[0] === "--login")
    args.shift();
  if (args[0] === "-c") {
    if (args.length < 2) {
      await print(ctx.stderr, "sh: -c requires an argument\n");
      return 2;
    }
    return new ShellSession(ctx, args[2] ?? ctx.argv[0]!, args.slice(3)).runScript(args[1]!);
  }
  if (args[0] !== undefined && args[0].startsWith("-")) {
    await print(ctx.stderr, `sh: illegal option ${args[0]}\n`);
    return 2;
  }
  if (args[0] !== undefined) {
    let text: string;
    try {
      text = ctx.fs.readFile(resolvePath(ctx.cwd, args[0])).toString("utf8");
    } catch (err) {
      const reason = err instanceof FileSystemError ? err.message : String(err);
      await print(ctx.stderr, `sh: can't open '${args[0]}': ${reason}\n`);
      return 2;
    }
    return new ShellSession(ctx, args[0], args.slice(1)).runScript(text);
  }
  return new ShellSession(ctx, ctx.argv[0]!, []).interactive();
};
