/**
 * The informational commands of the simulated userland, shaped after BusyBox's: `seq`,
 * `printf`, `date`, `uptime`, `whoami` and `id`. Time is the server's clock (UTC); every
 * process runs as root.
 */
import { print, type Command } from "./command.js";

/** `seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST`: the numbers, one per line (or joined by SEP). */
const seq: Command = async (ctx) => {
  const args = ctx.argv.slice(1);
  let separator = "\n";
  let equalWidth = false;
  while (args[0] === "-s" || args[0] === "-w") {
    if (args.shift() === "-w") equalWidth = true;
    else separator = args.shift() ?? "\n";
  }
  const numbers = args.map(Number);
  const bad = args.find((a) => !/^-?(\d+\.?\d*|\.\d+)$/.test(a));
  if (args.length < 1 || args.length > 3 || bad !== undefined) {
    await print(
      ctx.stderr,
      bad !== undefined ? `seq: invalid number '${bad}'\n` : "seq: missing operand\n",
    );
    return 1;
  }
  const [first, step, last] =
    numbers.length === 1
      ? [1, 1, numbers[0]!]
      : numbers.length === 2
        ? [numbers[0]!, 1, numbers[1]!]
        : (numbers as [number, number, number]);
  if (step === 0) {
    await print(ctx.stderr, "seq: invalid increment '0'\n");
    return 1;
  }
  const decimals = Math.max(...args.map((a) => (a.includes(".") ? a.split(".")[1]!.length : 0)));
  const out: string[] = [];
  // Bounded: a process printing more than a million numbers is cut off (nothing here needs more).
  for (
    let v = first, i = 0;
    (step > 0 ? v <= last : v >= last) && i < 1_000_000;
    i++, v = first + i * step
  ) {
    out.push(v.toFixed(decimals));
  }
  const width = equalWidth ? Math.max(...out.map((o) => o.length)) : 0;
  if (out.length > 0)
    await print(ctx.stdout, `${out.map((o) => o.padStart(width, "0")).join(separator)}\n`);
  return 0;
};

/** Backslash escapes of `printf` formats and `%b` arguments. */
function unescape(text: string): { text: string; stop: boolean } {
  let stop = false;
  const out = text.replace(/\\(0[0-7]{0,3}|[0-7]{1,3}|[\\abfnrtvc"'])/g, (_m, c: string) => {
    if (/^[0-7]/.test(c)) return String.fromCharCode(parseInt(c, 8));
    if (c === "c") {
      stop = true;
      return "\u0000STOP";
    }
    return (
      {
        "\\": "\\",
        a: "\x07",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
        v: "\v",
        '"': '"',
        "'": "'",
      } as Record<string, string>
    )[c]!;
  });
  const cut = out.indexOf("\u0000STOP");
  return { text: cut >= 0 ? out.slice(0, cut) : out, stop };
}

/**
 * `printf FORMAT [ARG]...`: `%s %b %c %d %i %u %x %X %o %f %e %g %%` with flags (`-0+ #`), width
 * and precision; the format is reused while arguments remain.
 */
const printf: Command = async (ctx) => {
  const [format, ...args] = ctx.argv.slice(1);
  if (format === undefined) {
    await print(ctx.stderr, "printf: missing operand\n");
    return 1;
  }
  let status = 0;
  let out = "";
  let next = 0;
  const spec = /%([-+ #0]*)(\d*|\*)(?:\.(\d*))?([sbcdiuxXofeEgG%])/g;
  do {
    const consumed = next;
    let stop = false;
    const text = format.replace(
      spec,
      (_m, flags: string, widthText: string, precision: string | undefined, conv: string) => {
        if (conv === "%") return "%";
        const width = widthText === "*" ? Number(args[next++] ?? 0) : Number(widthText || 0);
        const arg = args[next++] ?? "";
        let body: string;
        if (conv === "s") body = precision !== undefined ? arg.slice(0, Number(precision)) : arg;
        else if (conv === "b") {
          const u = unescape(arg);
          stop ||= u.stop;
          body = u.text;
        } else if (conv === "c") body = arg.slice(0, 1);
        else {
          const quoted = /^['"](.)/.exec(arg);
          const value = quoted ? quoted[1]!.charCodeAt(0) : arg === "" ? 0 : Number(arg);
          if (Number.isNaN(value)) {
            status = 1;
            void print(ctx.stderr, `printf: invalid number '${arg}'\n`);
          }
          const n = Number.isNaN(value) ? 0 : value;
          if ("diu".includes(conv)) body = String(Math.trunc(n));
          else if (conv === "x" || conv === "X" || conv === "o") {
            body = Math.trunc(n).toString(conv === "o" ? 8 : 16);
            if (conv === "X") body = body.toUpperCase();
          } else if (conv === "f")
            body = n.toFixed(precision !== undefined ? Number(precision || 0) : 6);
          else if (conv === "e" || conv === "E")
            body = n
              .toExponential(precision !== undefined ? Number(precision || 0) : 6)
              .replace(/e([+-])(\d)$/, "e$10$2");
          else
            body = String(
              Number(n.toPrecision(precision !== undefined ? Math.max(1, Number(precision)) : 6)),
            );
          if (conv === "E") body = body.toUpperCase();
          if (flags.includes("+") && n >= 0) body = `+${body}`;
          else if (flags.includes(" ") && n >= 0) body = ` ${body}`;
          if (flags.includes("0") && !flags.includes("-")) {
            const sign = /^[-+ ]/.test(body) ? body[0]! : "";
            body = sign + body.slice(sign.length).padStart(width - sign.length, "0");
          }
        }
        return flags.includes("-") ? body.padEnd(width) : body.padStart(width);
      },
    );
    const u = unescape(text);
    out += u.text;
    if (u.stop || stop) break;
    if (next === consumed) break; // the format takes no arguments: print it once
  } while (next < args.length);
  await print(ctx.stdout, out);
  return status;
};

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `strftime` for the conversions scripts use, in UTC. */
function formatDate(t: Date, format: string): string {
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  const conversions: Record<string, () => string> = {
    a: () => DAYS[t.getUTCDay()]!,
    b: () => MONTHS[t.getUTCMonth()]!,
    d: () => pad(t.getUTCDate()),
    e: () => String(t.getUTCDate()).padStart(2),
    F: () => `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`,
    H: () => pad(t.getUTCHours()),
    M: () => pad(t.getUTCMinutes()),
    m: () => pad(t.getUTCMonth() + 1),
    N: () => pad((t.getTime() % 1000) * 1_000_000, 9),
    S: () => pad(t.getUTCSeconds()),
    s: () => String(Math.floor(t.getTime() / 1000)),
    T: () => `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`,
    Y: () => String(t.getUTCFullYear()),
    y: () => pad(t.getUTCFullYear() % 100),
    Z: () => "UTC",
    z: () => "+0000",
    j: () =>
      pad(Math.floor((t.getTime() - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, 3),
    "%": () => "%",
  };
  return format.replace(/%(.)/g, (m, c: string) => conversions[c]?.() ?? m);
}

/** `date [-u] [-I] [+FORMAT]`: the clock's time in UTC, by default as `Sat Jan  2 03:04:05 UTC 2026`. */
const date: Command = async (ctx) => {
  let format = "%a %b %e %H:%M:%S %Z %Y";
  for (const arg of ctx.argv.slice(1)) {
    if (arg.startsWith("+")) format = arg.slice(1);
    else if (arg === "-I") format = "%F";
    else if (arg !== "-u" && arg !== "-R") {
      await print(ctx.stderr, `date: invalid date '${arg}'\n`);
      return 1;
    }
  }
  await print(ctx.stdout, `${formatDate(new Date(ctx.now()), format)}\n`);
  return 0;
};

/** `uptime`: the time, how long the container has run (BusyBox's format), no load. */
const uptime: Command = async (ctx) => {
  const now = ctx.now();
  const up = Math.max(0, Math.floor((now - (ctx.startedAtMs ?? now)) / 60_000));
  const days = Math.floor(up / 1440);
  const hours = Math.floor((up % 1440) / 60);
  const minutes = up % 60;
  const dayText = days > 0 ? `${days} day${days === 1 ? "" : "s"}, ` : "";
  const timeText =
    hours > 0
      ? `${String(hours).padStart(2)}:${String(minutes).padStart(2, "0")}`
      : `${minutes} min`;
  const clock = formatDate(new Date(now), "%T");
  await print(ctx.stdout, ` ${clock} up ${dayText}${timeText},  load average: 0.00, 0.00, 0.00\n`);
  return 0;
};

/** `whoami`: the user the processes run as (root). */
const whoami: Command = async (ctx) => {
  await print(ctx.stdout, "root\n");
  return 0;
};

/** `id [-u|-g|-n]`: root's identity, as BusyBox prints it in the busybox image. */
const id: Command = async (ctx) => {
  const args = ctx.argv.slice(1).join(" ");
  const text =
    args === "-u" || args === "-g"
      ? "0"
      : args === "-un" || args === "-u -n" || args === "-gn" || args === "-g -n"
        ? "root"
        : "uid=0(root) gid=0(root) groups=0(root),10(wheel)";
  await print(ctx.stdout, `${text}\n`);
  return 0;
};

/** The informational commands by name. */
export const SYSTEM_COMMANDS: Readonly<Record<string, Command>> = {
  seq,
  printf,
  date,
  uptime,
  whoami,
  id,
};
