/**
 * The text filters of the simulated userland, shaped after BusyBox's: `wc`, `head`, `grep`
 * and `sed` (basics). Patterns are JavaScript regular expressions read from POSIX basic or
 * extended syntax for the common cases (`\(`, `\)`, `\{`, `\}`, `\|`, `\+`, `\?` of a basic
 * expression become their extended meaning); bracket classes such as `[[:digit:]]` are
 * translated. Anything else is taken as JavaScript reads it.
 */
import { readAll } from "./byte-streams.js";
import { print, type Command, type CommandContext } from "./command.js";
import { errorText } from "./core-commands.js";
import { resolvePath } from "./memory-file-system.js";

/** POSIX character classes inside brackets, as JavaScript classes. */
const CLASSES: Record<string, string> = {
  alnum: "A-Za-z0-9",
  alpha: "A-Za-z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
};

/** A POSIX regular expression (basic unless `extended`) as a JavaScript RegExp source. */
export function posixPattern(pattern: string, extended: boolean): string {
  let out = pattern.replace(/\[:([a-z]+):\]/g, (m, name: string) => CLASSES[name] ?? m);
  if (!extended) {
    // In a basic expression `( ) { } | + ?` are literal and their escaped forms special.
    out = out.replace(/\\([(){}|+?])|([(){}|+?])/g, (_m, escaped?: string, plain?: string) =>
      escaped !== undefined ? escaped : `\\${plain}`,
    );
  }
  return out;
}

/** The contents of FILE operands (stdin for none or `-`), each with its name; errors printed. */
async function inputs(
  ctx: CommandContext,
  files: readonly string[],
  name: string,
): Promise<{ files: { name: string; text: string }[]; failed: boolean }> {
  const out: { name: string; text: string }[] = [];
  let failed = false;
  for (const file of files.length > 0 ? files : ["-"]) {
    try {
      const data =
        file === "-" ? await readAll(ctx.stdin) : ctx.fs.readFile(resolvePath(ctx.cwd, file));
      out.push({ name: file, text: data.toString("utf8") });
    } catch (err) {
      await print(ctx.stderr, `${name}: ${file}: ${errorText(err)}\n`);
      failed = true;
    }
  }
  return { files: out, failed };
}

/** The lines of a text, each without its `\n` (a last line without one still counts). */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `wc [-lwc] [FILE]...`: line, word and byte counts (a single count of stdin prints bare). */
const wc: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  const flags = new Set<string>();
  const files: string[] = [];
  for (const arg of args) {
    if (/^-[lwcm]+$/.test(arg)) for (const f of arg.slice(1)) flags.add(f === "m" ? "c" : f);
    else if (arg.startsWith("-") && arg !== "-") {
      await print(ctx.stderr, `wc: unrecognized option: ${arg.slice(1)}\n`);
      return 1;
    } else files.push(arg);
  }
  const wanted = flags.size > 0 ? ["l", "w", "c"].filter((f) => flags.has(f)) : ["l", "w", "c"];
  const { files: read, failed } = await inputs(ctx, files, "wc");
  const totals = { l: 0, w: 0, c: 0 };
  let out = "";
  for (const { name, text } of read) {
    const counts = {
      l: (text.match(/\n/g) ?? []).length,
      w: text.split(/\s+/).filter((w) => w !== "").length,
      c: Buffer.byteLength(text),
    };
    for (const k of ["l", "w", "c"] as const) totals[k] += counts[k];
    const bare = wanted.length === 1 && files.length === 0;
    const columns = wanted.map((f) => String(counts[f as "l"]).padStart(bare ? 0 : 7));
    out += `${columns.join(" ")}${name === "-" ? "" : ` ${name}`}\n`;
  }
  if (read.length > 1)
    out += `${wanted.map((f) => String(totals[f as "l"]).padStart(7)).join(" ")} total\n`;
  await print(ctx.stdout, out);
  return failed ? 1 : 0;
};

/** `head [-n N | -N | -c N] [FILE]...`: the first N lines (default 10) or bytes. */
const head: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let count = 10;
  let bytes = false;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^-([nc])(.*)$/.exec(arg) ?? /^-()(\d+)$/.exec(arg);
    if (!match) {
      files.push(arg);
      continue;
    }
    bytes = match[1] === "c";
    const spec = match[2] !== "" ? match[2]! : (args[++i] ?? "");
    if (!/^\d+$/.test(spec)) {
      await print(ctx.stderr, `head: invalid number '${spec}'\n`);
      return 1;
    }
    count = Number(spec);
  }
  const { files: read, failed } = await inputs(ctx, files, "head");
  for (const [i, { name, text }] of read.entries()) {
    if (read.length > 1) await print(ctx.stdout, `${i > 0 ? "\n" : ""}==> ${name} <==\n`);
    if (bytes) await ctx.stdout.write(Buffer.from(text).subarray(0, count));
    else
      await print(
        ctx.stdout,
        text
          .split(/(?<=\n)/)
          .slice(0, count)
          .join(""),
      );
  }
  return failed ? 1 : 0;
};

/**
 * `grep [-vicqnEFwxhos] [-e PATTERN]... PATTERN [FILE]...`: the matching lines; status 0 when
 * a line matched, 1 when none did, 2 on an error.
 */
const grep: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  const flags = new Set<string>();
  const patterns: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-e") patterns.push(args[++i] ?? "");
    else if (/^-[vicqnEFwxhosl]+$/.test(arg)) for (const f of arg.slice(1)) flags.add(f);
    else if (arg.startsWith("-") && arg !== "-") {
      await print(ctx.stderr, `grep: unrecognized option: ${arg.slice(1)}\n`);
      return 2;
    } else operands.push(arg);
  }
  if (patterns.length === 0) {
    const first = operands.shift();
    if (first === undefined) {
      await print(
        ctx.stderr,
        "BusyBox v1.36.1 multi-call binary.\n\nUsage: grep [-vicqnEF] PATTERN [FILE]...\n",
      );
      return 2;
    }
    patterns.push(first);
  }
  let regexp: RegExp;
  try {
    const sources = patterns.map((p) =>
      flags.has("F") ? p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : posixPattern(p, flags.has("E")),
    );
    let source = sources.map((s) => `(?:${s})`).join("|");
    if (flags.has("w")) source = `(?<![\\w])(?:${source})(?![\\w])`;
    if (flags.has("x")) source = `^(?:${source})$`;
    regexp = new RegExp(source, flags.has("i") ? "gi" : "g");
  } catch {
    await print(ctx.stderr, `grep: bad regex '${patterns.join(" ")}'\n`);
    return 2;
  }
  const { files: read, failed } = await inputs(ctx, operands, "grep");
  const named = read.length > 1 && !flags.has("h");
  let matched = 0;
  let out = "";
  for (const { name, text } of read) {
    let count = 0;
    for (const [n, line] of linesOf(text).entries()) {
      regexp.lastIndex = 0;
      const hit = regexp.test(line);
      if (hit === flags.has("v")) continue;
      count++;
      if (flags.has("q") || flags.has("c") || flags.has("l")) continue;
      const prefix = `${named ? `${name}:` : ""}${flags.has("n") ? `${n + 1}:` : ""}`;
      if (flags.has("o") && !flags.has("v")) {
        regexp.lastIndex = 0;
        for (const m of line.matchAll(regexp)) if (m[0] !== "") out += `${prefix}${m[0]}\n`;
      } else out += `${prefix}${line}\n`;
    }
    matched += count;
    if (flags.has("c")) out += `${named ? `${name}:` : ""}${count}\n`;
    if (flags.has("l") && count > 0) out += `${name === "-" ? "(standard input)" : name}\n`;
  }
  if (!flags.has("q")) await print(ctx.stdout, out);
  if (failed && !(flags.has("q") && matched > 0)) return flags.has("s") && matched > 0 ? 0 : 2;
  return matched > 0 ? 0 : 1;
};

/** One `sed` command: an optional address, then `s`, `p`, `d` or `q`. */
interface SedCommand {
  readonly address: ((line: string, n: number, last: boolean) => boolean) | undefined;
  readonly kind: "s" | "p" | "d" | "q";
  readonly pattern?: RegExp;
  readonly replacement?: string;
  readonly print?: boolean;
}

/** Parses a `sed` script of `;`- or newline-separated commands; a message for what it cannot run. */
function parseSed(script: string, extended: boolean): SedCommand[] | string {
  const commands: SedCommand[] = [];
  let i = 0;
  const regexpAt = (delimiter: string): string | undefined => {
    let text = "";
    for (; i < script.length && script[i] !== delimiter; i++) {
      if (script[i] === "\\" && script[i + 1] === delimiter) i++;
      else if (script[i] === "\\") text += script[i++];
      text += script[i];
    }
    if (i >= script.length) return undefined;
    i++;
    return text;
  };
  while (i < script.length) {
    while (/[\s;]/.test(script[i] ?? "")) i++;
    if (i >= script.length) break;
    let address: SedCommand["address"];
    const number = /^(\d+|\$)/.exec(script.slice(i));
    if (number) {
      i += number[0].length;
      address = number[0] === "$" ? (_l, _n, last) => last : (_l, n) => n === Number(number[0]);
    } else if (script[i] === "/") {
      i++;
      const source = regexpAt("/");
      if (source === undefined) return "unterminated address regex";
      const re = new RegExp(posixPattern(source, extended));
      address = (line) => re.test(line);
    }
    const kind = script[i++];
    if (kind === "p" || kind === "d" || kind === "q") {
      commands.push({ address, kind });
      continue;
    }
    if (kind !== "s") return `unsupported command ${kind ?? ""}`;
    const delimiter = script[i++] ?? "/";
    const source = regexpAt(delimiter);
    const replacement = source === undefined ? undefined : regexpAt(delimiter);
    if (source === undefined || replacement === undefined) return "unterminated `s' command";
    const flags = /^[gpI0-9]*/.exec(script.slice(i))![0];
    i += flags.length;
    commands.push({
      address,
      kind: "s",
      pattern: new RegExp(
        posixPattern(source, extended),
        `${flags.includes("g") ? "g" : ""}${flags.includes("I") ? "i" : ""}`,
      ),
      // sed's `&` and `\1`…`\9` as JavaScript's `$&` and `$1`…`$9`.
      replacement: replacement
        .replace(/\$/g, "$$$$")
        .replace(/\\([1-9&n\\])|&/g, (m, c?: string) =>
          c === undefined ? "$&" : c === "&" ? "&" : c === "n" ? "\n" : c === "\\" ? "\\" : `$${c}`,
        ),
      print: flags.includes("p"),
    });
  }
  return commands;
}

/** `sed [-n] [-E|-r] [-e SCRIPT]... [SCRIPT] [FILE]...`: `s///[gpI]`, `p`, `d`, `q` with line, `$` or /regex/ addresses. */
const sed: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let quiet = false;
  let extended = false;
  const scripts: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-e") scripts.push(args[++i] ?? "");
    else if (/^-[nEr]+$/.test(arg)) {
      quiet ||= arg.includes("n");
      extended ||= /[Er]/.test(arg);
    } else if (arg.startsWith("-") && arg !== "-") {
      await print(ctx.stderr, `sed: unsupported option ${arg}\n`);
      return 1;
    } else operands.push(arg);
  }
  if (scripts.length === 0 && operands.length > 0) scripts.push(operands.shift()!);
  let commands: SedCommand[] | string;
  try {
    commands = parseSed(scripts.join("\n"), extended);
  } catch {
    commands = "bad regex";
  }
  if (typeof commands === "string") {
    await print(ctx.stderr, `sed: ${commands}\n`);
    return 1;
  }
  const { files: read, failed } = await inputs(ctx, operands, "sed");
  const lines = read.flatMap((f) => linesOf(f.text));
  let out = "";
  lines: for (const [n, original] of lines.entries()) {
    let line = original;
    const last = n === lines.length - 1;
    for (const c of commands) {
      if (c.address && !c.address(line, n + 1, last)) continue;
      if (c.kind === "d") continue lines;
      if (c.kind === "p") out += `${line}\n`;
      if (c.kind === "q") {
        if (!quiet) out += `${line}\n`;
        break lines;
      }
      if (c.kind === "s") {
        c.pattern!.lastIndex = 0;
        const hit = c.pattern!.test(line);
        c.pattern!.lastIndex = 0;
        if (hit) {
          line = line.replace(c.pattern!, c.replacement!);
          if (c.print) out += `${line}\n`;
        }
      }
    }
    if (!quiet) out += `${line}\n`;
  }
  await print(ctx.stdout, out);
  return failed ? 2 : 0;
};

/** The text filters by name. */
export const TEXT_COMMANDS: Readonly<Record<string, Command>> = { wc, head, grep, sed };
