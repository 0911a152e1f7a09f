/**
 * The simulated container's small userland, shaped after BusyBox (the shell tools of the
 * `busybox` and `alpine` images, with their messages): `echo`, `cat`, `env`, `printenv`,
 * `hostname`, `ls`, `pwd`, `mkdir`, `rm`, `touch`, `true`, `false`, `sleep`, `tail` and
 * `test`/`[`.
 * Each supports the options listed on it; others are refused with exit status 1.
 */
import { readAll } from "./byte-streams.js";
import { print, type Command, type CommandContext } from "./command.js";
import { FileSystemError, resolvePath, type FsNode } from "./memory-file-system.js";

/**
 * Splits leading `-abc` flags (up to `--`) from operands; `allowed` are the letters accepted.
 * An unknown letter is reported on stderr and gives `undefined`.
 */
export async function parseFlags(
  ctx: CommandContext,
  allowed: string,
): Promise<{ flags: Set<string>; operands: string[] } | undefined> {
  const flags = new Set<string>();
  const args = ctx.argv.slice(1);
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    for (const letter of arg.slice(1)) {
      if (!allowed.includes(letter)) {
        await print(ctx.stderr, `${ctx.argv[0]}: unrecognized option: ${letter}\n`);
        return undefined;
      }
      flags.add(letter);
    }
  }
  return { flags, operands: args.slice(i) };
}

/** The strerror text of a file-system error, else its string form. */
export function errorText(err: unknown): string {
  return err instanceof FileSystemError ? err.message : String(err);
}

/** `echo [-n] [-e] [ARG]...`: the arguments joined by spaces; `-e` reads `\n`, `\t`, `\\`, `\c`. */
const echo: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let newline = true;
  let escapes = false;
  while (args.length > 0 && /^-[neE]+$/.test(args[0]!)) {
    for (const letter of args.shift()!.slice(1)) {
      if (letter === "n") newline = false;
      else escapes = letter === "e";
    }
  }
  let text = args.join(" ");
  if (escapes) {
    const stop = text.indexOf("\\c");
    if (stop >= 0) {
      text = text.slice(0, stop);
      newline = false;
    }
    text = text.replace(/\\([\\abfnrtv0])/g, (_m, c: string) =>
      c === "\\"
        ? "\\"
        : (
            { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", 0: "\0" } as Record<
              string,
              string
            >
          )[c]!,
    );
  }
  await print(ctx.stdout, newline ? `${text}\n` : text);
  return 0;
};

/** `cat [FILE]...`: the files (`-` or none: stdin) in order. */
const cat: Command = async (ctx) => {
  const parsed = await parseFlags(ctx, "u");
  if (!parsed) return 1;
  const files = parsed.operands.length > 0 ? parsed.operands : ["-"];
  let status = 0;
  for (const file of files) {
    if (file === "-") {
      for (let chunk = await ctx.stdin.read(); chunk; chunk = await ctx.stdin.read())
        await ctx.stdout.write(chunk);
      continue;
    }
    try {
      await ctx.stdout.write(ctx.fs.readFile(resolvePath(ctx.cwd, file)));
    } catch (err) {
      const text = errorText(err);
      await print(
        ctx.stderr,
        err instanceof FileSystemError && err.code === "EISDIR"
          ? `cat: read error: ${text}\n`
          : `cat: can't open '${file}': ${text}\n`,
      );
      status = 1;
    }
  }
  return status;
};

/** `env [-i] [NAME=VALUE]... [COMMAND [ARG]...]`: prints the environment, or runs COMMAND with it. */
const env: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let vars: Record<string, string> = { ...ctx.env };
  if (args[0] === "-i" || args[0] === "-") {
    vars = {};
    args.shift();
  }
  while (args.length > 0 && /^[^=]+=/.test(args[0]!)) {
    const assignment = args.shift()!;
    const eq = assignment.indexOf("=");
    vars[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  if (args.length === 0) {
    await print(
      ctx.stdout,
      Object.entries(vars)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(""),
    );
    return 0;
  }
  const command = ctx.lookup(args[0]!);
  if (!command) {
    await print(ctx.stderr, `env: can't execute '${args[0]}': No such file or directory\n`);
    return 127;
  }
  return command({ ...ctx, argv: args, env: vars });
};

/** `printenv [NAME]...`: the values of the named variables (all as `NAME=VALUE` without names). */
const printenv: Command = async (ctx) => {
  const names = ctx.argv.slice(1);
  if (names.length === 0) return env({ ...ctx, argv: ["env"] });
  let status = 0;
  for (const name of names) {
    const value = ctx.env[name];
    if (value === undefined) status = 1;
    else await print(ctx.stdout, `${value}\n`);
  }
  return status;
};

/** `hostname`: the container's host name (the pod's, from `/etc/hostname`). */
const hostname: Command = async (ctx) => {
  let name: string;
  try {
    name = ctx.fs.readFile("/etc/hostname").toString("utf8").trim();
  } catch {
    name = ctx.env["HOSTNAME"] ?? "localhost";
  }
  await print(ctx.stdout, `${name}\n`);
  return 0;
};

/** `pwd`: the working directory. */
const pwd: Command = async (ctx) => {
  await print(ctx.stdout, `${ctx.cwd}\n`);
  return 0;
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `drwxr-xr-x` for a node. */
function modeString(node: FsNode): string {
  const type = { directory: "d", file: "-", symlink: "l", device: "c" }[node.type];
  let bits = "";
  for (let shift = 6; shift >= 0; shift -= 3) {
    const m = (node.mode >> shift) & 7;
    bits += `${m & 4 ? "r" : "-"}${m & 2 ? "w" : "-"}${m & 1 ? "x" : "-"}`;
  }
  return type + bits;
}

/** One `ls -l` line in BusyBox's format (`%-10s %4u %-8s %-8s %9u MMM DD HH:MM NAME`). */
function longLine(name: string, node: FsNode): string {
  const size = node.type === "file" ? node.size : node.type === "directory" ? 4096 : 0;
  const links = node.type === "directory" ? 2 : 1;
  const t = new Date(node.mtimeMs);
  const date = `${MONTHS[t.getUTCMonth()]} ${String(t.getUTCDate()).padStart(2)} ${String(t.getUTCHours()).padStart(2, "0")}:${String(t.getUTCMinutes()).padStart(2, "0")}`;
  const target = node.type === "symlink" ? ` -> ${node.target}` : "";
  return `${modeString(node)} ${String(links).padStart(4)} root     root     ${String(size).padStart(9)} ${date} ${name}${target}\n`;
}

/** `ls [-1al] [PATH]...`: directory entries sorted by name, one per line unless on a terminal. */
const ls: Command = async (ctx) => {
  const parsed = await parseFlags(ctx, "1alAd");
  if (!parsed) return 1;
  const { flags } = parsed;
  const operands = parsed.operands.length > 0 ? parsed.operands : ["."];
  const format = (entries: [string, FsNode][]): string => {
    if (flags.has("l")) return entries.map(([n, node]) => longLine(n, node)).join("");
    if (entries.length === 0) return "";
    if (ctx.tty && !flags.has("1")) return `${entries.map(([n]) => n).join("  ")}\n`;
    return entries.map(([n]) => `${n}\n`).join("");
  };
  let status = 0;
  const files: [string, FsNode][] = [];
  const dirs: [string, FsNode & { type: "directory" }][] = [];
  for (const operand of operands) {
    const node = ctx.fs.lookup(resolvePath(ctx.cwd, operand));
    if (!node) {
      await print(ctx.stderr, `ls: ${operand}: No such file or directory\n`);
      status = 1;
    } else if (node.type === "directory" && !flags.has("d")) dirs.push([operand, node]);
    else files.push([operand, node]);
  }
  let out = format(files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  for (const [name, dir] of dirs) {
    const entries = [...dir.entries].filter(
      ([n]) => flags.has("a") || flags.has("A") || !n.startsWith("."),
    );
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (flags.has("a")) entries.unshift([".", dir], ["..", dir]);
    const header = operands.length > 1 ? `${out !== "" ? "\n" : ""}${name}:\n` : "";
    out += header + format(entries);
  }
  await print(ctx.stdout, out);
  return status;
};

/** `mkdir [-p] DIR...`. */
const mkdir: Command = async (ctx) => {
  const parsed = await parseFlags(ctx, "p");
  if (!parsed) return 1;
  if (parsed.operands.length === 0) {
    await print(ctx.stderr, "mkdir: missing operand\n");
    return 1;
  }
  let status = 0;
  for (const dir of parsed.operands) {
    try {
      ctx.fs.mkdir(resolvePath(ctx.cwd, dir), { parents: parsed.flags.has("p") });
    } catch (err) {
      await print(ctx.stderr, `mkdir: can't create directory '${dir}': ${errorText(err)}\n`);
      status = 1;
    }
  }
  return status;
};

/** `rm [-rRf] PATH...`. */
const rm: Command = async (ctx) => {
  const parsed = await parseFlags(ctx, "rRfi");
  if (!parsed) return 1;
  const force = parsed.flags.has("f");
  const recursive = parsed.flags.has("r") || parsed.flags.has("R");
  let status = 0;
  for (const path of parsed.operands) {
    const absolute = resolvePath(ctx.cwd, path);
    const node = ctx.fs.lookup(absolute);
    if (!node) {
      if (!force) {
        await print(ctx.stderr, `rm: can't remove '${path}': No such file or directory\n`);
        status = 1;
      }
    } else if (node.type === "directory" && !recursive) {
      await print(ctx.stderr, `rm: '${path}' is a directory\n`);
      status = 1;
    } else {
      try {
        ctx.fs.remove(absolute, { recursive });
      } catch (err) {
        await print(ctx.stderr, `rm: can't remove '${path}': ${errorText(err)}\n`);
        status = 1;
      }
    }
  }
  return status;
};

/** `touch FILE...`: creates missing files, updates the time of existing ones. */
const touch: Command = async (ctx) => {
  const parsed = await parseFlags(ctx, "c");
  if (!parsed) return 1;
  let status = 0;
  for (const path of parsed.operands) {
    const absolute = resolvePath(ctx.cwd, path);
    try {
      if (ctx.fs.lookup(absolute)) ctx.fs.setAttributes(absolute, { mtimeMs: ctx.now() });
      else if (!parsed.flags.has("c")) ctx.fs.writeFile(absolute, "");
    } catch (err) {
      await print(ctx.stderr, `touch: ${path}: ${errorText(err)}\n`);
      status = 1;
    }
  }
  return status;
};

/** `sleep DURATION...`: seconds (fractions and `s`/`m`/`h`/`d` suffixes allowed), on the server's clock. */
const sleep: Command = async (ctx) => {
  const units: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 };
  let total = 0;
  for (const arg of ctx.argv.slice(1)) {
    const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (!match) {
      await print(ctx.stderr, `sleep: invalid number '${arg}'\n`);
      return 1;
    }
    total += Number(match[1]) * units[match[2]!]!;
  }
  if (ctx.argv.length < 2) {
    await print(ctx.stderr, "sleep: missing operand\n");
    return 1;
  }
  try {
    await ctx.sleep(total * 1000, ctx.signal);
    return 0;
  } catch {
    // Killed by SIGINT (Ctrl-C) or the session ending: 128 + 2.
    return 130;
  }
};

/**
 * `tail [-n [+]N | -c [+]N] [FILE]`: the last N lines or bytes, or from line/byte N on with
 * `+N` (what `kubectl cp --retries` runs to resume: `tar cf - SRC | tail -c+OFFSET`).
 */
const tail: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let unit: "n" | "c" = "n";
  let spec = "10";
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const match = /^-([nc])(.*)$/.exec(args[i]!);
    if (!match) {
      files.push(args[i]!);
      continue;
    }
    unit = match[1] as "n" | "c";
    spec = match[2] !== "" ? match[2]! : (args[++i] ?? "");
  }
  const count = /^\+?\d+$/.test(spec) ? Number(spec.replace("+", "")) : NaN;
  if (Number.isNaN(count)) {
    await print(ctx.stderr, `tail: invalid number '${spec}'\n`);
    return 1;
  }
  let data: Buffer;
  try {
    data =
      files.length === 0 || files[0] === "-"
        ? await readAll(ctx.stdin)
        : ctx.fs.readFile(resolvePath(ctx.cwd, files[0]!));
  } catch (err) {
    await print(ctx.stderr, `tail: can't open '${files[0]}': ${errorText(err)}\n`);
    return 1;
  }
  const fromStart = spec.startsWith("+");
  if (unit === "c") {
    await ctx.stdout.write(
      fromStart
        ? data.subarray(Math.max(0, count - 1))
        : data.subarray(Math.max(0, data.length - count)),
    );
    return 0;
  }
  const lines = data.toString("utf8").split(/(?<=\n)/);
  const kept = fromStart
    ? lines.slice(Math.max(0, count - 1))
    : lines.slice(Math.max(0, lines.length - count));
  await print(ctx.stdout, kept.join(""));
  return 0;
};

/** The `test` expression grammar (POSIX `test`, without -a/-o): unary file and string tests, binary comparisons, `!`. */
function evaluateTest(ctx: CommandContext, args: string[]): boolean | string {
  if (args[0] === "!") {
    const inner = evaluateTest(ctx, args.slice(1));
    return typeof inner === "string" ? inner : !inner;
  }
  const node = (path: string): FsNode | undefined => ctx.fs.lookup(resolvePath(ctx.cwd, path));
  switch (args.length) {
    case 0:
      return false;
    case 1:
      return args[0] !== "";
    case 2: {
      const [op, operand] = args as [string, string];
      switch (op) {
        case "-d":
          return node(operand)?.type === "directory";
        case "-f":
          return node(operand)?.type === "file";
        case "-e":
          return node(operand) !== undefined;
        case "-s": {
          const n = node(operand);
          return n?.type === "file" && n.size > 0;
        }
        case "-L":
        case "-h":
          return node(operand)?.type === "symlink";
        case "-z":
          return operand === "";
        case "-n":
          return operand !== "";
        default:
          return `${op}: unknown operand`;
      }
    }
    case 3: {
      const [a, op, b] = args as [string, string, string];
      const numeric = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
      if (op === "=" || op === "==") return a === b;
      if (op === "!=") return a !== b;
      if (numeric.includes(op)) {
        if (!/^-?\d+$/.test(a.trim()) || !/^-?\d+$/.test(b.trim()))
          return `invalid number '${/^-?\d+$/.test(a.trim()) ? b : a}'`;
        const x = Number(a);
        const y = Number(b);
        return {
          "-eq": x === y,
          "-ne": x !== y,
          "-lt": x < y,
          "-le": x <= y,
          "-gt": x > y,
          "-ge": x >= y,
        }[op]!;
      }
      return `${op}: unknown operand`;
    }
    default:
      return "too many arguments";
  }
}

/** `test EXPRESSION` and `[ EXPRESSION ]`: 0 when true, 1 when false, 2 on a malformed expression. */
const test: Command = async (ctx) => {
  let args = ctx.argv.slice(1);
  if (ctx.argv[0] === "[") {
    if (args[args.length - 1] !== "]") {
      await print(ctx.stderr, "[: missing ]\n");
      return 2;
    }
    args = args.slice(0, -1);
  }
  const result = evaluateTest(ctx, args);
  if (typeof result === "string") {
    await print(ctx.stderr, `${ctx.argv[0] === "[" ? "[" : "test"}: ${result}\n`);
    return 2;
  }
  return result ? 0 : 1;
};

/** The core commands by name. */
export const CORE_COMMANDS: Readonly<Record<string, Command>> = {
  echo,
  cat,
  env,
  printenv,
  hostname,
  pwd,
  ls,
  mkdir,
  rm,
  touch,
  true: () => Promise.resolve(0),
  false: () => Promise.resolve(1),
  sleep,
  tail,
  test,
  "[": test,
};
