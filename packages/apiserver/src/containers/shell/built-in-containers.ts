/**
 * What runs in a simulated container when no test registered an exec handler for it: the
 * BusyBox-like command set ({@link CORE_COMMANDS}, `sh`, `tar`) over an in-memory file system
 * per container, and a "main process" for attach. Never a process on the host.
 */
import { newInternalError } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { ExecHandler, ExecRequest } from "../container-handlers.js";
import { isContainerRunning, podContainers } from "../../streaming/pod-stream-target.js";
import type { ServerContext } from "../../server/server-context.js";
import {
  DISCARD_SINK,
  EMPTY_SOURCE,
  readableSource,
  writableSink,
  type ByteSink,
  type ByteSource,
} from "./byte-streams.js";
import type { Command } from "./command.js";
import { CORE_COMMANDS } from "./core-commands.js";
import { MemoryFileSystem } from "./memory-file-system.js";
import { shell } from "./shell.js";
import { tar } from "./tar-command.js";
import { Terminal } from "./terminal.js";

/** The commands by name; `sh` also answers to `ash` and `bash`. */
const COMMANDS: Readonly<Record<string, Command>> = {
  ...CORE_COMMANDS,
  tar,
  sh: shell,
  ash: shell,
  bash: shell,
};

/** The directories of the simulated `PATH`. */
const PATH_DIRECTORIES = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin",
];

/** The default `PATH` of container images (the one Docker and containerd set). */
export const DEFAULT_PATH = PATH_DIRECTORIES.join(":");

/** The command a name (`echo`) or path (`/bin/echo`) runs, if it is one of the set on the `PATH`. */
function lookup(name: string): Command | undefined {
  const slash = name.lastIndexOf("/");
  if (slash >= 0 && !PATH_DIRECTORIES.includes(name.slice(0, slash))) return undefined;
  const base = name.slice(slash + 1);
  return Object.prototype.hasOwnProperty.call(COMMANDS, base) ? COMMANDS[base] : undefined;
}

/**
 * The built-in runtime of one server: a file system per container (created on first use,
 * forgotten when the pod is deleted; a re-created pod starts afresh, as its containers would),
 * and the exec and attach handlers over them.
 */
export class BuiltInContainers {
  readonly #fileSystems = new Map<string, MemoryFileSystem>();

  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
    const pods = ctx.registry.lookup("", "v1", "pods")?.storageId;
    ctx.storage.subscribe((event) => {
      if (event.type !== "DELETED" || event.resource !== pods) return;
      const uid = String(metadataOf(event.object)?.["uid"] ?? "");
      for (const key of [...this.#fileSystems.keys()])
        if (key.startsWith(`${uid}/`)) this.#fileSystems.delete(key);
    });
  }

  /** Runs `request.command` with the built-in command set (see the module comment). */
  readonly exec: ExecHandler = async (request) => {
    const command = lookup(request.command[0] ?? "");
    if (!command) {
      // containerd's answer when the executable does not exist: the exec fails to start, and
      // the kubelet reports it as an internal error, not as an exit code.
      throw newInternalError(
        `error executing command in container: failed to exec in container: failed to start exec: OCI runtime exec failed: exec failed: unable to start container process: exec: ${JSON.stringify(request.command[0] ?? "")}: executable file not found in $PATH: unknown`,
      );
    }
    return this.#run(request, (io) =>
      command({
        argv: request.command,
        ...io,
        env: request.env,
        cwd: "/",
        fs: this.#fileSystem(request),
        tty: request.tty,
        now: () => this.#ctx.clock.now(),
        sleep: (ms, signal) => this.#ctx.clock.sleep(ms, signal),
        lookup,
      }),
    );
  };

  /**
   * Attaches to the container's "main process": everything appended to the container's log
   * from now on (what the simulated kubelet and `appendPodLog` write, and what the
   * container's commands write to `/proc/1/fd/1` or `/proc/1/fd/2`) goes to stdout; with
   * `stdin: true` on the container, each line received on stdin is appended to the log (the
   * main process echoes it, like `cat`). The session ends with status 0 when the container
   * stops running or the pod is deleted.
   */
  readonly attach: ExecHandler = async (request) => {
    const { namespace, container } = request;
    const name = String(metadataOf(request.pod)?.["name"] ?? "");
    const spec = podContainers(request.pod).find((c) => c["name"] === container) ?? {};
    const podsId = this.#ctx.registry.lookup("", "v1", "pods")?.storageId;
    return this.#run(request, async (io) => {
      let stop: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (stop = resolve));
      const unfollow = this.#ctx.podLogs.follow(namespace, name, container, (lines) => {
        void io.stdout.write(lines.map((l) => `${l.text}\n`).join(""));
      });
      const unforget = this.#ctx.podLogs.onForget(namespace, name, stop);
      const unsubscribe = this.#ctx.storage.subscribe((event) => {
        if (event.resource !== podsId || event.key !== `${namespace}/${name}`) return;
        if (event.type === "DELETED" || !isContainerRunning(event.object, container)) stop();
      });
      const onAbort = (): void => stop();
      request.signal.addEventListener("abort", onAbort, { once: true });
      const echo = async (): Promise<void> => {
        for (let chunk = await io.stdin.read(); chunk; chunk = await io.stdin.read())
          if (spec["stdin"] === true) this.#appendLog(namespace, name, container, chunk);
      };
      void echo();
      try {
        await ended;
      } finally {
        unfollow();
        unforget();
        unsubscribe();
        request.signal.removeEventListener("abort", onAbort);
      }
      return 0;
    });
  };

  /** Runs a process on the session's streams (through a {@link Terminal} when it has a TTY). */
  async #run(
    request: ExecRequest,
    process: (io: {
      stdin: ByteSource;
      stdout: ByteSink;
      stderr: ByteSink;
      signal: AbortSignal;
      onInterrupt: (listener: () => void) => () => void;
    }) => Promise<number>,
  ): Promise<number> {
    const stdin = request.stdin ? readableSource(request.stdin) : undefined;
    const stdout = request.stdout ? writableSink(request.stdout) : DISCARD_SINK;
    const stderr = request.stderr ? writableSink(request.stderr) : DISCARD_SINK;
    const killed = new AbortController();
    const kill = (): void => killed.abort(request.signal.reason);
    request.signal.addEventListener("abort", kill, { once: true });
    try {
      if (!request.tty) {
        return await process({
          stdin: stdin ?? EMPTY_SOURCE,
          stdout,
          stderr,
          signal: killed.signal,
          onInterrupt: () => () => undefined,
        });
      }
      const terminal = new Terminal(stdout, stdin);
      // Ctrl-C stops the session's process unless a process in it took the terminal over.
      terminal.onInterrupt(() => killed.abort(new Error("interrupted")));
      return await process({
        stdin: terminal.input,
        stdout: terminal.output,
        stderr: terminal.output,
        signal: killed.signal,
        onInterrupt: (listener) => terminal.onInterrupt(listener),
      });
    } finally {
      request.signal.removeEventListener("abort", kill);
    }
  }

  #appendLog(namespace: string, pod: string, container: string, data: Buffer): void {
    this.#ctx.podLogs.append(
      namespace,
      pod,
      container,
      data.toString("utf8"),
      new Date(this.#ctx.clock.now()).toISOString(),
    );
  }

  /** The container's file system, created with a small image layout on first use. */
  #fileSystem(request: ExecRequest): MemoryFileSystem {
    const meta = metadataOf(request.pod) ?? {};
    const key = `${String(meta["uid"] ?? "")}/${String(meta["namespace"])}/${String(meta["name"])}/${request.container}`;
    let fs = this.#fileSystems.get(key);
    if (fs) return fs;
    fs = new MemoryFileSystem(() => this.#ctx.clock.now());
    for (const dir of [
      "/bin",
      "/dev",
      "/etc",
      "/home",
      "/proc/1/fd",
      "/root",
      "/tmp",
      "/usr/bin",
      "/var",
    ])
      fs.mkdir(dir, { parents: true });
    fs.setAttributes("/tmp", { mode: 0o1777 });
    const spec = isJsonObject(request.pod["spec"]) ? request.pod["spec"] : {};
    const hostname =
      typeof spec["hostname"] === "string" && spec["hostname"] !== ""
        ? spec["hostname"]
        : String(meta["name"] ?? "");
    fs.writeFile("/etc/hostname", `${hostname}\n`);
    fs.device("/dev/null", () => undefined);
    const namespace = String(meta["namespace"] ?? "");
    const name = String(meta["name"] ?? "");
    const toLog = (data: Buffer): void => this.#appendLog(namespace, name, request.container, data);
    fs.device("/proc/1/fd/1", toLog);
    fs.device("/proc/1/fd/2", toLog);
    this.#fileSystems.set(key, fs);
    return fs;
  }
}
