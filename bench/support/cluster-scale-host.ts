/**
 * The child process of one round at scale (`cluster-scale-process.ts` forks it):
 * `cluster-scale-host.ts <cluster|floor> <deployments> <timeoutMs>` runs the round in this
 * process (server, cluster and client), sends progress lines as `{ type: "log" }` and the
 * sample as `{ type: "result" }` (or `{ type: "error" }`) over IPC, then exits.
 */
import { clusterAtScale, floorAtScale, scaleSampleJson } from "./cluster-scale.js";

async function main(): Promise<void> {
  const [side, deployments, timeoutMs] = process.argv.slice(2);
  const run = side === "cluster" ? clusterAtScale : side === "floor" ? floorAtScale : undefined;
  if (run === undefined) throw new Error(`expected "cluster" or "floor", got "${side ?? ""}"`);
  const log = (message: string): void => {
    process.send?.({ type: "log", message });
  };
  const sample = await run(
    Number(deployments),
    Number(timeoutMs),
    new AbortController().signal,
    log,
  );
  await new Promise<void>((resolve) =>
    process.send?.({ type: "result", result: scaleSampleJson(sample) }, () => resolve()),
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.send?.({ type: "error", error: String(err) }, () => process.exit(1));
  },
);
