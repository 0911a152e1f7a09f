/**
 * The simulated `tar`, enough for `kubectl cp` (`staging/src/k8s.io/kubectl/pkg/cmd/cp/cp.go`,
 * kubectl 1.27–1.33): `tar cf - PATH` to copy from a pod and `tar -xmf - [-C DIR]` (with
 * `--no-same-permissions --no-same-owner` for `--no-preserve`) to copy to it; also `t` (list),
 * `v`, `-C DIR` anywhere before the paths it applies to, `--directory=DIR`, and an archive file
 * in the container's file system instead of `-`. Archives are ustar (via `tar-stream`); no
 * compression. Messages follow BusyBox tar's.
 */
import { extract as tarExtract, pack as tarPack, type Header } from "tar-stream";
import { readAll } from "./byte-streams.js";
import { print, type Command, type CommandContext } from "./command.js";
import { FileSystemError, resolvePath, type FsNode } from "./memory-file-system.js";

interface TarOptions {
  mode: "c" | "x" | "t" | undefined;
  file: string | undefined;
  verbose: boolean;
  keepOldTimes: boolean;
  /** The directory in effect at the start, and for each operand the directory in effect for it. */
  directory: string;
  operands: { path: string; directory: string }[];
}

/** Long options that change nothing here (ownership and permissions are not enforced). */
const IGNORED_LONG_OPTIONS = new Set([
  "--no-same-permissions",
  "--no-same-owner",
  "--same-permissions",
  "--preserve-permissions",
  "--same-owner",
  "--numeric-owner",
]);

/**
 * Applies the option letter `l` to `options`, `value` reading its argument when it takes
 * one; the error to print, or undefined.
 */
function applyOptionLetter(
  options: TarOptions,
  l: string,
  value: () => string | undefined,
): string | undefined {
  switch (l) {
    case "c":
    case "x":
    case "t":
      if (options.mode && options.mode !== l) return "you may not specify more than one of -ctx";
      options.mode = l;
      return undefined;
    case "f": {
      const file = value();
      if (file === undefined) return "option requires an argument -- f";
      options.file = file;
      return undefined;
    }
    case "C": {
      const dir = value();
      if (dir === undefined) return "option requires an argument -- C";
      options.directory = resolvePath(options.directory, dir);
      return undefined;
    }
    case "v":
      options.verbose = true;
      return undefined;
    case "m":
      options.keepOldTimes = true;
      return undefined;
    case "o":
    case "p":
      return undefined;
    case "z":
    case "j":
    case "J":
      return "compressed archives are not supported";
    default:
      return `invalid option -- '${l}'`;
  }
}

/** Parses old-style (`cf`), short (`-xmf -`) and long options; a string is the error to print. */
function parseOptions(ctx: CommandContext): TarOptions | string {
  const options: TarOptions = {
    mode: undefined,
    file: undefined,
    verbose: false,
    keepOldTimes: false,
    directory: ctx.cwd,
    operands: [],
  };
  const args = ctx.argv.slice(1);
  let i = 0;
  const letter = (l: string, value: () => string | undefined): string | undefined =>
    applyOptionLetter(options, l, value);
  // Old style: a first argument without a dash is a bundle of letters whose arguments follow.
  if (args[0] !== undefined && !args[0].startsWith("-")) {
    const bundle = args[0];
    i = 1;
    for (const l of bundle) {
      const error = letter(l, () => args[i++]);
      if (error) return error;
    }
  }
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      for (const rest of args.slice(i + 1))
        options.operands.push({ path: rest, directory: options.directory });
      break;
    }
    if (arg.startsWith("--")) {
      const [name, value] = arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
      if (IGNORED_LONG_OPTIONS.has(name)) continue;
      const take = (): string | undefined => value ?? args[++i];
      let error: string | undefined;
      if (name === "--directory") error = letter("C", take);
      else if (name === "--file") error = letter("f", take);
      else if (name === "--extract" || name === "--get") error = letter("x", take);
      else if (name === "--create") error = letter("c", take);
      else if (name === "--list") error = letter("t", take);
      else if (name === "--verbose") error = letter("v", take);
      else if (name === "--touch") error = letter("m", take);
      else error = `unrecognized option '${arg}'`;
      if (error) return error;
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const l = arg[j]!;
        // An option taking a value takes the rest of this argument, or the next argument.
        let consumed = false;
        const value = (): string | undefined => {
          consumed = true;
          return j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
        };
        const error = letter(l, value);
        if (error) return error;
        if (consumed) break;
      }
      continue;
    }
    options.operands.push({ path: arg, directory: options.directory });
  }
  return options;
}

/** The member name for an operand: leading slashes dropped, repeated and trailing slashes collapsed. */
function memberName(operand: string): { name: string; stripped: boolean } {
  const stripped = operand.startsWith("/");
  let name = operand.replace(/\/+/g, "/").replace(/^\//, "").replace(/\/$/, "");
  if (name === "") name = ".";
  return { name, stripped };
}

function header(name: string, node: FsNode): (Partial<Header> & { name: string }) | undefined {
  const common = {
    name,
    mode: node.mode,
    mtime: new Date(node.mtimeMs),
    uname: "root",
    gname: "root",
  };
  switch (node.type) {
    case "directory":
      return { ...common, name: `${name}/`, type: "directory" };
    case "file":
      return { ...common, type: "file", size: node.size };
    case "symlink":
      return { ...common, type: "symlink", linkname: node.target };
    default:
      return undefined;
  }
}

async function create(ctx: CommandContext, options: TarOptions): Promise<number> {
  if (options.operands.length === 0) {
    await print(ctx.stderr, "tar: empty archive\n");
    return 1;
  }
  const toStdout = options.file === undefined || options.file === "-";
  const listing = toStdout ? ctx.stderr : ctx.stdout;
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const output = (async () => {
    for await (const chunk of pack as AsyncIterable<Buffer>) {
      if (toStdout) await ctx.stdout.write(chunk);
      else chunks.push(chunk);
    }
  })();
  let status = 0;
  let warnedLeadingSlash = false;
  const add = async (name: string, path: string): Promise<void> => {
    const node = ctx.fs.lookup(path);
    if (!node) {
      await print(ctx.stderr, `tar: ${name}: No such file or directory\n`);
      status = 1;
      return;
    }
    const h = header(name, node);
    if (!h) return;
    if (options.verbose) await print(listing, `${h.name}\n`);
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null): void => (err ? reject(err) : resolve());
      if (node.type === "file") pack.entry(h, ctx.fs.readFile(path), done);
      else pack.entry(h, done);
    });
    if (node.type === "directory") {
      const children = [...node.entries.keys()].sort();
      for (const child of children)
        await add(
          name === "." ? `./${child}` : `${name}/${child}`,
          `${path === "/" ? "" : path}/${child}`,
        );
    }
  };
  for (const operand of options.operands) {
    if (ctx.fs.lookup(operand.directory)?.type !== "directory") {
      await print(
        ctx.stderr,
        `tar: can't change directory to '${operand.directory}': No such file or directory\n`,
      );
      status = 1;
      break;
    }
    const { name, stripped } = memberName(operand.path);
    if (stripped && !warnedLeadingSlash) {
      warnedLeadingSlash = true;
      await print(ctx.stderr, "tar: removing leading '/' from member names\n");
    }
    await add(name, resolvePath(operand.directory, operand.path));
  }
  pack.finalize();
  await output;
  if (!toStdout) {
    try {
      ctx.fs.writeFile(resolvePath(ctx.cwd, options.file!), Buffer.concat(chunks));
    } catch (err) {
      await print(ctx.stderr, `tar: can't open '${options.file}': ${(err as Error).message}\n`);
      return 1;
    }
  }
  return status;
}

async function extract(ctx: CommandContext, options: TarOptions): Promise<number> {
  let archive: Buffer;
  if (options.file === undefined || options.file === "-") archive = await readAll(ctx.stdin);
  else {
    try {
      archive = ctx.fs.readFile(resolvePath(ctx.cwd, options.file));
    } catch (err) {
      await print(ctx.stderr, `tar: can't open '${options.file}': ${(err as Error).message}\n`);
      return 1;
    }
  }
  if (ctx.fs.lookup(options.directory)?.type !== "directory") {
    await print(
      ctx.stderr,
      `tar: can't change directory to '${options.directory}': No such file or directory\n`,
    );
    return 1;
  }
  if (archive.length === 0) {
    await print(ctx.stderr, "tar: short read\n");
    return 1;
  }
  const listOnly = options.mode === "t";
  const wanted = options.operands.map((o) => memberName(o.path).name);
  const reader = tarExtract();
  reader.end(archive);
  let status = 0;
  try {
    for await (const entry of reader) {
      const content: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) content.push(chunk);
      const data = Buffer.concat(content);
      const h = entry.header;
      const name = h.name.replace(/^\/+/, "");
      const bare = name.replace(/\/$/, "");
      if (wanted.length > 0 && !wanted.some((w) => bare === w || bare.startsWith(`${w}/`)))
        continue;
      if (options.verbose || listOnly) await print(ctx.stdout, `${h.name}\n`);
      if (listOnly || bare === "" || bare === ".") continue;
      const path = resolvePath(options.directory, bare);
      try {
        const parent = path.slice(0, path.lastIndexOf("/")) || "/";
        ctx.fs.mkdir(parent, { parents: true });
        if (h.type === "directory") {
          if (ctx.fs.lookup(path)?.type !== "directory") ctx.fs.mkdir(path, { parents: true });
        } else if (h.type === "symlink") {
          ctx.fs.symlink(path, h.linkname ?? "");
        } else if (h.type === "file" || h.type === "contiguous-file" || h.type === undefined) {
          ctx.fs.writeFile(path, data);
        } else {
          continue;
        }
        ctx.fs.setAttributes(path, {
          ...(h.mode !== undefined ? { mode: h.mode & 0o7777 } : {}),
          mtimeMs: options.keepOldTimes ? ctx.now() : (h.mtime?.getTime() ?? ctx.now()),
        });
      } catch (err) {
        const reason = err instanceof FileSystemError ? err.message : String(err);
        await print(ctx.stderr, `tar: can't create '${bare}': ${reason}\n`);
        status = 1;
      }
    }
  } catch {
    await print(ctx.stderr, "tar: invalid tar magic\n");
    return 1;
  }
  return status;
}

/** `tar`: see the module comment. */
export const tar: Command = async (ctx) => {
  const options = parseOptions(ctx);
  if (typeof options === "string") {
    await print(ctx.stderr, `tar: ${options}\n`);
    return 1;
  }
  if (!options.mode) {
    await print(ctx.stderr, "tar: must specify one of -c, -t, -x\n");
    return 1;
  }
  return options.mode === "c" ? create(ctx, options) : extract(ctx, options);
};
