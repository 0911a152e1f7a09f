/**
 * A hostile streaming server in a child process that floods one channel of every upgraded
 * connection, for memory-bound tests: the client under test runs in another child process
 * (`runChildScript`, which blocks the test process) with a small heap, and must survive.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What the peer sends on each connection. */
export interface FloodSpec {
  /** The channel flooded (1: port-forward's error channel, 3: exec's). */
  readonly channel: number;
  /** The bytes sent on it in all, in messages of `messageBytes`; then a normal close. */
  readonly totalBytes: number;
  readonly messageBytes: number;
  /** Port-forward: the port prefix on channels 0 and 1 first (the port of `?ports=`). */
  readonly portPrefix: boolean;
}

/** A running flood peer. */
export interface FloodPeer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Stops the peer's process. */
  close(): Promise<void>;
}

/** Starts the peer's process and resolves once it listens. */
export async function startFloodPeer(spec: FloodSpec): Promise<FloodPeer> {
  const module = (path: string): string => JSON.stringify(new URL(path, import.meta.url).href);
  const script = `
import { sendOnChannel, startHostileStreamServer } from ${module("./hostile-stream-server.ts")};
import { encodePortPrefix } from ${module("../../packages/kubekit/src/core/websocket-channels.ts")};
const spec = ${JSON.stringify(spec)};
const server = await startHostileStreamServer(async ({ ws, url }) => {
  if (spec.portPrefix) {
    const prefix = encodePortPrefix(Number(url.searchParams.get("ports")));
    await sendOnChannel(ws, 0, prefix);
    await sendOnChannel(ws, 1, prefix);
  }
  const chunk = Buffer.alloc(spec.messageBytes, "x");
  for (let sent = 0; sent < spec.totalBytes && ws.readyState === ws.OPEN; sent += chunk.length) {
    await sendOnChannel(ws, spec.channel, chunk);
  }
  ws.close(1000);
});
console.log(server.url);
`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await firstLine(child);
  return {
    url,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill();
      await exited;
    },
  };
}

/** The first line the child prints; rejects when it exits first. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const end = output.indexOf("\n");
      if (end < 0) return;
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      resolve(output.slice(0, end).trim());
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`the flood peer exited (${code}) before it listened`));
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}
