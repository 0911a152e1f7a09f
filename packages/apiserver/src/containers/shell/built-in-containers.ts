/**
 * What runs in a simulated container when no test registered an exec handler for it: the
 * BusyBox-like command set ({@link CORE_COMMANDS}, `sh`, `tar`) over an in-memory file system
 * per container, and a "main process" for attach. Never a process on the host.
 */
import { newInternalError, type JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { ExecHandler, ExecRequest } from "../container-handlers.js";
import { isContainerRunning, podContainers } from "../../streaming/pod-stream-target.js";
import type { ServerContext } from "../../server/server-context.js";
import { containerEnvironment, DEFAULT_PATH } from "../container-environment.js";
import { containerEntrypoint } from "./image-entrypoints.js";
import {
  BytePipe,
  DISCARD_SINK,
  EMPTY_SOURCE,
  readableSource,
  writableSink,
  type ByteSink,
  type ByteSource,
} from "./byte-streams.js";
import type { Command } from "./command.js";
import { CORE_COMMANDS } from "./core-commands.js";
import { SYSTEM_COMMANDS } from "./system-commands.js";
import { TEXT_COMMANDS } from "./text-commands.js";
import { MemoryFileSystem } from "./memory-file-system.js";
import { shell } from "./shell.js";
import { tar } from "./tar-command.js";
import { Terminal } from "./terminal.js";

/** The commands by name; `sh` also answers to `ash` and `bash`. */
const COMMANDS: Readonly<Record<string, Command>> = {
  ...CORE_COMMANDS,
  ...TEXT_COMMANDS,
  ...SYSTEM_COMMANDS,
  tar,
  sh: shell,
  ash: shell,
  bash: shell,
};

/** The directories of the simulated `PATH`. */
const PATH_DIRECTORIES = DEFAULT_PATH.split(":");

export { DEFAULT_PATH };

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
  /** When each file system was made: the container's start, for `uptime`. */
  readonly #createdAt = new WeakMap<MemoryFileSystem, number>();
  /** The running main processes by `uid/container`: how to stop them, and their stdin. */
  readonly #processes = new Map<string, { stop: AbortController; stdin?: BytePipe }>();

  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
    const pods = ctx.registry.lookup("", "v1", "pods")?.storageId;
    ctx.storage.subscribe((event) => {
      if (event.type !== "DELETED" || event.resource !== pods) return;
      const uid = String(metadataOf(event.object)?.["uid"] ?? "");
      for (const key of [...this.#fileSystems.keys()])
        if (key.startsWith(`${uid}/`)) this.#fileSystems.delete(key);
      for (const [key, process] of [...this.#processes])
        if (key.startsWith(`${uid}/`)) process.stop.abort(new Error("pod deleted"));
    });
  }

  /**
   * Starts the main process of a container, as the simulated kubelet does when the container
   * starts: its `command` + `args` (else the image's default, `image-entrypoints.ts`) in the
   * built-in userland, on the server's clock, with the container's environment and file
   * system (shared with exec sessions); stdout and stderr go to the container's log (a
   * restart first keeps the previous instance's log for `--previous`); with `stdin: true`
   * the process reads what attach sessions send. `undefined` when the executable is not one
   * the built-in userland has (an application binary): the caller simulates it otherwise.
   * The process ends with its exit status, or when `request.signal` aborts, the pod is
   * deleted, or {@link stopAll} is called.
   */
  startProcess(request: ContainerProcessRequest): ContainerProcess | undefined {
    const { pod, container } = request;
    const meta = metadataOf(pod) ?? {};
    const namespace = String(meta["namespace"] ?? "");
    const name = String(meta["name"] ?? "");
    const spec = podContainers(pod).find((c) => c["name"] === container) ?? {};
    const strings = (value: unknown): string[] =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
    const entry = containerEntrypoint(
      container,
      String(spec["image"] ?? ""),
      strings(spec["command"]),
      strings(spec["args"]),
      request.log !== undefined && request.log !== "",
    );
    const argv = "argv" in entry ? entry.argv : [container];
    const command = "argv" in entry ? lookup(argv[0] ?? "") : entry.process;
    // A new instance has a log of its own, whether or not its command can run here.
    if (request.restart) this.#ctx.podLogs.startInstance(namespace, name, container);
    if (command === undefined) return undefined;
    if (request.log !== undefined && request.log !== "")
      this.#appendLog(namespace, name, container, Buffer.from(request.log));
    const key = `${String(meta["uid"] ?? "")}/${container}`;
    this.#processes.get(key)?.stop.abort(new Error("replaced"));
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(request.signal.reason);
    request.signal.addEventListener("abort", onAbort, { once: true });
    if (request.signal.aborted) stop.abort(request.signal.reason);
    const stdin = spec["stdin"] === true ? new BytePipe() : undefined;
    const handle = { stop, ...(stdin ? { stdin } : {}) };
    this.#processes.set(key, handle);
    const log: ByteSink = {
      write: (data) => {
        this.#appendLog(namespace, name, container, Buffer.from(data));
        return Promise.resolve();
      },
    };
    const tty = spec["tty"] === true;
    const exited = command({
      argv,
      stdin: stdin ?? EMPTY_SOURCE,
      stdout: log,
      stderr: log,
      env: this.#environment(pod, container, tty),
      cwd:
        typeof spec["workingDir"] === "string" && spec["workingDir"] !== ""
          ? spec["workingDir"]
          : "/",
      fs: this.#fileSystem(pod, container),
      startedAtMs: this.#startedAt(pod, container),
      tty: false,
      now: () => this.#ctx.clock.now(),
      sleep: (ms, signal) => this.#ctx.clock.sleep(ms, signal),
      signal: stop.signal,
      lookup,
      onInterrupt: () => () => undefined,
    })
      .catch(() => 1)
      .finally(() => {
        request.signal.removeEventListener("abort", onAbort);
        if (this.#processes.get(key) === handle) this.#processes.delete(key);
        stdin?.close();
      });
    return { exited };
  }

  /** Stops every main process (the server stops). */
  stopAll(): void {
    for (const process of this.#processes.values()) process.stop.abort(new Error("server stopped"));
    this.#processes.clear();
  }

  /** The environment of a container of `pod` (`container-environment.ts`). */
  #environment(pod: JsonObject, container: string, tty: boolean): Record<string, string> {
    const spec = podContainers(pod).find((c) => c["name"] === container) ?? {};
    return containerEnvironment(this.#ctx, pod, spec, tty);
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
        env: { ...this.#environment(request.pod, request.container, request.tty), ...request.env },
        cwd: "/",
        fs: this.#fileSystem(request.pod, request.container),
        startedAtMs: this.#startedAt(request.pod, request.container),
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
      const uid = String(metadataOf(request.pod)?.["uid"] ?? "");
      const echo = async (): Promise<void> => {
        for (let chunk = await io.stdin.read(); chunk; chunk = await io.stdin.read()) {
          // The main process reads stdin when one runs; else it echoes it, like `cat`.
          const main = this.#processes.get(`${uid}/${container}`)?.stdin;
          if (main) await main.write(chunk);
          else if (spec["stdin"] === true) this.#appendLog(namespace, name, container, chunk);
        }
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

  /** When the container's file system was made (its start, as far as the shell knows). */
  #startedAt(pod: JsonObject, container: string): number {
    return this.#createdAt.get(this.#fileSystem(pod, container)) ?? this.#ctx.clock.now();
  }

  /** The container's file system, created with a small image layout on first use. */
  #fileSystem(pod: JsonObject, container: string): MemoryFileSystem {
    const meta = metadataOf(pod) ?? {};
    const key = `${String(meta["uid"] ?? "")}/${String(meta["namespace"])}/${String(meta["name"])}/${container}`;
    let fs = this.#fileSystems.get(key);
    if (fs) return fs;
    fs = new MemoryFileSystem(() => this.#ctx.clock.now());
    this.#createdAt.set(fs, this.#ctx.clock.now());
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
    const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
    const hostname =
      typeof spec["hostname"] === "string" && spec["hostname"] !== ""
        ? spec["hostname"]
        : String(meta["name"] ?? "");
    fs.writeFile("/etc/hostname", `${hostname}\n`);
    fs.device("/dev/null", () => undefined);
    const namespace = String(meta["namespace"] ?? "");
    const name = String(meta["name"] ?? "");
    const toLog = (data: Buffer): void => this.#appendLog(namespace, name, container, data);
    fs.device("/proc/1/fd/1", toLog);
    fs.device("/proc/1/fd/2", toLog);
    this.#fileSystems.set(key, fs);
    return fs;
  }
}

/** A container's main process to start (`ApiServer.startContainerProcess`). */
export interface ContainerProcessRequest {
  /** The pod as the kubelet knows it (its status with the pod IP the kubelet assigned). */
  readonly pod: JsonObject;
  /** The name of an init, app or ephemeral container of the pod. */
  readonly container: string;
  /** Whether this instance replaces an earlier one (its log becomes the previous log). */
  readonly restart: boolean;
  /** Aborting it stops the process (the kubelet stops the container). */
  readonly signal: AbortSignal;
  /** Lines written to the log when the process starts, before its output (the `log` simulation annotation). */
  readonly log?: string;
}

/** A started main process. */
export interface ContainerProcess {
  /** Resolves with the exit status once the process ends (never rejects). */
  readonly exited: Promise<number>;
}
