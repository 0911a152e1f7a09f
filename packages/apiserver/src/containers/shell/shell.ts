/**
 * The simulated `sh` (BusyBox ash's behaviour for the subset {@link parseScript} accepts):
 * `sh -c SCRIPT [NAME [ARG]...]`, `sh FILE [ARG]...`, or commands read from stdin line by
 * line — with a `/dir # ` prompt when the session has a terminal, Ctrl-C stopping the
 * running command rather than the shell. Built-ins: `cd`, `exit`, `export`, `unset`, `exec`,
 * `:`. A command that is not found prints `sh: NAME: not found` and has status 127.
 */
import { BytePipe, bufferSource, type ByteSink, type ByteSource } from "./byte-streams.js";
import { print, type Command, type CommandContext } from "./command.js";
import { FileSystemError, resolvePath } from "./memory-file-system.js";
import {
  parseScript,
  ShellSyntaxError,
  type AndOrList,
  type Pipeline,
  type Redirection,
  type SimpleCommand,
  type Word,
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

/** A running shell: its variables, working directory and last status. */
class ShellSession {
  readonly #vars = new Map<string, string>();
  readonly #exported = new Set<string>();
  #cwd: string;
  #status = 0;
  readonly #ctx: CommandContext;
  readonly #arg0: string;
  readonly #positional: readonly string[];

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
    try {
      for (const list of script) await this.#andOr(list);
    } catch (err) {
      if (err instanceof ShellExit) return err.status;
      throw err;
    }
    return this.#status;
  }

  /** Reads and runs stdin line by line, prompting on a terminal, until EOF or `exit`. */
  async interactive(): Promise<number> {
    // An interactive shell ignores Ctrl-C itself (the line discipline drops the line).
    const restore = this.#ctx.onInterrupt(() => undefined);
    const lines = new LineReader(this.#ctx.stdin);
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
          for (const list of script) await this.#andOr(list);
        } catch (err) {
          if (err instanceof ShellExit) return err.status;
          throw err;
        }
        if (this.#ctx.signal.aborted) return this.#status;
      }
    } finally {
      restore();
    }
  }

  async #andOr(list: AndOrList): Promise<void> {
    this.#status = await this.#pipeline(list.first);
    for (const { op, pipeline } of list.rest) {
      if (this.#ctx.signal.aborted) return;
      if ((op === "&&") === (this.#status === 0)) this.#status = await this.#pipeline(pipeline);
    }
  }

  async #pipeline(pipeline: Pipeline): Promise<number> {
    const io: StandardStreams = this.#ctx;
    let status: number;
    if (pipeline.commands.length === 1) {
      status = await this.#simple(pipeline.commands[0]!, io);
    } else {
      const runs: Promise<number>[] = [];
      let input = io.stdin;
      pipeline.commands.forEach((command, i) => {
        const last = i === pipeline.commands.length - 1;
        const pipe = last ? undefined : new BytePipe();
        const reading = input;
        const ownPipe = i > 0 && reading instanceof BytePipe ? reading : undefined;
        runs.push(
          this.#simple(command, {
            stdin: reading,
            stdout: pipe ?? io.stdout,
            stderr: io.stderr,
          })
            // `exit` inside a pipeline ends that element only (it runs in a subshell).
            .catch((err: unknown) => {
              if (err instanceof ShellExit) return err.status;
              throw err;
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

  #expand(word: Word): string[] {
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
      if (part.name === "@" && part.quoted) {
        // "$@": one field per positional parameter.
        this.#positional.forEach((arg, i) => {
          if (i > 0) finish();
          current += arg;
          has = true;
        });
        continue;
      }
      const value = this.#parameter(part.name);
      if (part.quoted) {
        current += value;
        has = true;
        continue;
      }
      // Unquoted expansion: field splitting on blanks (the default IFS).
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
      const target = this.#expand(r.target).join(" ");
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
    const argv = command.words.flatMap((w) => this.#expand(w));
    const assigned = new Map(
      command.assignments.map(({ name, value }) => [name, this.#expand(value).join(" ")] as const),
    );
    const streams = await this.#redirect(command.redirections, io);
    if (typeof streams === "number") return streams;
    if (argv.length === 0) {
      for (const [k, v] of assigned) this.#vars.set(k, v);
      return 0;
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
      default:
        return this.#run(argv, assigned, streams);
    }
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
