import { FakeClock } from "kubekit/testing";
import {
  bufferSource,
  EMPTY_SOURCE,
  type ByteSource,
} from "../../../../packages/apiserver/src/containers/shell/byte-streams.js";
import type { Command } from "../../../../packages/apiserver/src/containers/shell/command.js";
import { CORE_COMMANDS } from "../../../../packages/apiserver/src/containers/shell/core-commands.js";
import { MemoryFileSystem } from "../../../../packages/apiserver/src/containers/shell/memory-file-system.js";
import { shell } from "../../../../packages/apiserver/src/containers/shell/shell.js";
import { tar } from "../../../../packages/apiserver/src/containers/shell/tar-command.js";
import { SYSTEM_COMMANDS } from "../../../../packages/apiserver/src/containers/shell/system-commands.js";
import { TEXT_COMMANDS } from "../../../../packages/apiserver/src/containers/shell/text-commands.js";

/** What one simulated process printed and returned. */
export interface RunResult {
  readonly status: number;
  readonly stdout: string;
  readonly stdoutBytes: Buffer;
  readonly stderr: string;
}

const COMMANDS: Record<string, Command> = {
  ...CORE_COMMANDS,
  ...TEXT_COMMANDS,
  ...SYSTEM_COMMANDS,
  tar,
  sh: shell,
};

/** A container's file system and clock for a test, with the directories images have. */
export function newContainer(): { fs: MemoryFileSystem; clock: FakeClock } {
  const clock = new FakeClock(Date.parse("2026-01-02T03:04:05Z"));
  const fs = new MemoryFileSystem(() => clock.now());
  for (const dir of ["/bin", "/dev", "/etc", "/tmp", "/root"]) fs.mkdir(dir);
  fs.writeFile("/etc/hostname", "web-0\n");
  fs.device("/dev/null", () => undefined);
  return { fs, clock };
}

/** Runs `argv` in a container (a fresh one unless given) with `stdin`, collecting the output. */
export async function run(
  argv: readonly string[],
  options: {
    container?: { fs: MemoryFileSystem; clock: FakeClock };
    stdin?: string | Buffer | ByteSource;
    env?: Record<string, string>;
    signal?: AbortSignal;
    tty?: boolean;
  } = {},
): Promise<RunResult> {
  const { fs, clock } = options.container ?? newContainer();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdin =
    options.stdin === undefined
      ? EMPTY_SOURCE
      : typeof options.stdin === "string" || Buffer.isBuffer(options.stdin)
        ? bufferSource(Buffer.from(options.stdin))
        : options.stdin;
  const lookup = (name: string): Command | undefined =>
    COMMANDS[name.replace(/^\/(usr\/)?bin\//, "")];
  const command = lookup(argv[0]!);
  if (!command) throw new Error(`no command ${argv[0]}`);
  const status = await command({
    argv,
    stdin,
    stdout: { write: (d) => (out.push(Buffer.from(d)), Promise.resolve()) },
    stderr: { write: (d) => (err.push(Buffer.from(d)), Promise.resolve()) },
    env: options.env ?? { PATH: "/bin", HOME: "/root", HOSTNAME: "web-0" },
    cwd: "/",
    fs,
    tty: options.tty ?? false,
    now: () => clock.now(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    signal: options.signal ?? new AbortController().signal,
    lookup,
    onInterrupt: () => () => undefined,
  });
  const stdoutBytes = Buffer.concat(out);
  return {
    status,
    stdout: stdoutBytes.toString("utf8"),
    stdoutBytes,
    stderr: Buffer.concat(err).toString("utf8"),
  };
}

/** Runs `sh -c script`. */
export function sh(script: string, options: Parameters<typeof run>[1] = {}): Promise<RunResult> {
  return run(["sh", "-c", script], options);
}
