import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type {
  CpuTime,
  HeapStats,
  HostEnvelope,
  HostMessage,
  HostReplyValue,
  HostRequest,
  HostedServer,
} from "./host-protocol.js";
import type { ReplayLoaded, ReplaySpec } from "./host-protocol.js";
import { withTimeout } from "./timing.js";

const HOST_SCRIPT = fileURLToPath(new URL("./server-host.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** The child's default heap limit (`--max-old-space-size`). */
const DEFAULT_HEAP_LIMIT_MIB = 8192;

/** Options of {@link HostProcess.start}. */
export interface HostOptions {
  /** The child's `--max-old-space-size` in MiB (default 8192). */
  readonly heapLimitMiB?: number;
}

/**
 * A server under measurement running in a child process of its own (see
 * `server-host.ts`), so that its CPU time and heap are not mixed with the client's. The
 * child runs with `--expose-gc`. With `KUBEKIT_BENCH_CPU_PROF=DIR` in the environment it also
 * runs with `--cpu-prof --cpu-prof-dir=DIR` and writes a CPU profile there when it exits.
 *
 * Requests time out (the default 120 s, or the `timeoutMs` given); {@link stop} always ends
 * the child, killing it when it does not exit in time.
 */
export class HostProcess {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: HostReplyValue) => void; reject: (err: Error) => void }
  >();
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    /** The server's base URL, e.g. `http://127.0.0.1:41234`. */
    readonly url: string,
  ) {
    child.on("message", (raw: unknown) => this.onMessage(raw as HostMessage));
    child.on("exit", (code, signal) => {
      this.exited = true;
      for (const p of this.pending.values())
        p.reject(new Error(`server host exited (code ${String(code)}, signal ${String(signal)})`));
      this.pending.clear();
    });
  }

  /** Starts a child hosting `server` and resolves once it listens. */
  static async start(server: HostedServer, options: HostOptions = {}): Promise<HostProcess> {
    const profileDir = process.env["KUBEKIT_BENCH_CPU_PROF"];
    const child = fork(HOST_SCRIPT, [server], {
      cwd: REPO_ROOT,
      execArgv: [
        "--import",
        "tsx",
        "--expose-gc",
        `--max-old-space-size=${options.heapLimitMiB ?? DEFAULT_HEAP_LIMIT_MIB}`,
        ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const ready = new Promise<string>((resolve, reject) => {
      child.on("message", (raw: unknown) => {
        const message = raw as HostMessage;
        if (message.type === "ready") resolve(message.url);
      });
      child.once("exit", (code) =>
        reject(new Error(`server host (${server}) exited before listening, code ${String(code)}`)),
      );
      child.once("error", reject);
    });
    try {
      const url = await withTimeout(ready, START_TIMEOUT_MS, `starting the ${server} server host`);
      return new HostProcess(child, url);
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    }
  }

  /** The child's heap after full garbage collections. */
  async heap(): Promise<HeapStats> {
    return (await this.request({ type: "heap" })) as HeapStats;
  }

  /** The child's CPU time so far (user and system, ms). */
  async cpu(): Promise<CpuTime> {
    return (await this.request({ type: "cpu" })) as CpuTime;
  }

  /** Sends a request and resolves to the reply's count (for the bare server's set-up requests). */
  async count(
    request: Exclude<
      HostRequest,
      { type: "heap" } | { type: "stop" } | { type: "replay-load" } | { type: "cpu" }
    >,
    timeoutMs?: number,
  ): Promise<number> {
    return ((await this.request(request, timeoutMs)) as { count: number }).count;
  }

  /** Has the replay server generate what it serves; resolves once it is ready to serve it. */
  async loadReplay(spec: ReplaySpec, timeoutMs?: number): Promise<ReplayLoaded> {
    return (await this.request({ type: "replay-load", spec }, timeoutMs)) as ReplayLoaded;
  }

  /** Stops the server and waits for the child to exit, killing it after 10 s. Never rejects. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => {
      if (this.exited) resolve();
      else this.child.once("exit", () => resolve());
    });
    await this.request({ type: "stop" }, STOP_TIMEOUT_MS).catch(() => undefined);
    try {
      await withTimeout(exited, STOP_TIMEOUT_MS, "server host exit");
    } catch {
      this.child.kill("SIGKILL");
      await withTimeout(exited, STOP_TIMEOUT_MS, "server host exit after SIGKILL").catch(
        () => undefined,
      );
    }
  }

  private request(request: HostRequest, timeoutMs = 120_000): Promise<HostReplyValue> {
    if (this.exited) return Promise.reject(new Error("server host has exited"));
    const id = this.nextId++;
    const reply = new Promise<HostReplyValue>((resolve, reject) =>
      this.pending.set(id, { resolve, reject }),
    );
    const envelope: HostEnvelope = { id, request };
    this.child.send(envelope);
    return withTimeout(reply, timeoutMs, `server host request ${request.type}`).finally(() =>
      this.pending.delete(id),
    );
  }

  private onMessage(message: HostMessage): void {
    if (message.type !== "reply") return;
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(message.error));
  }
}
