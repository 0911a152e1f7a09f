/**
 * Entry point of the child process that runs one consumer of the informer benchmark
 * (`node --import tsx --expose-gc bench/support/consumer-host.ts '<ConsumerTask JSON>'`),
 * started by `runConsumer` (consumer-process.ts). It loads only its consumer's library,
 * measures, sends one {@link ConsumerMessage} and exits; it also exits when its parent goes
 * away.
 *
 * The measurement: heap after GC; start the consumer and wait until it holds every pod
 * (sync time); heap after GC; then, when the task has events, POST the replay server's
 * stream trigger and wait until the consumer has processed every MODIFIED event (stream
 * time, from just before the trigger); heap after GC. CPU time and the longest event-loop
 * delay are measured over each of the two phases.
 */
import { request as httpRequest } from "node:http";
import { loadavg } from "node:os";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import type {
  ConsumerKind,
  ConsumerMessage,
  ConsumerResult,
  ConsumerTask,
  InformerConsumer,
} from "./consumer-protocol.js";
import type { HeapStats } from "./host-protocol.js";
import { REPLAY_STREAM_PATH } from "./replay-server.js";
import { collectedHeap, withTimeout } from "./timing.js";

/** Each consumer's module and the factory it exports; only the one used is imported. */
const MODULES: Readonly<
  Record<ConsumerKind, { readonly module: string; readonly create: string }>
> = {
  kubekit: { module: "./consumer-kubekit.js", create: "createConsumer" },
  "kubekit-controller": { module: "./consumer-kubekit-controller.js", create: "createConsumer" },
  "kubekit-lazy": { module: "./consumer-kubekit-lazy.js", create: "createConsumer" },
  "kubekit-lazy-read": {
    module: "./consumer-kubekit-lazy.js",
    create: "createBodyReadingConsumer",
  },
  "client-node": { module: "./consumer-client-node.js", create: "createConsumer" },
  "client-node-2": { module: "./consumer-client-node.js", create: "createConsumer" },
  floor: { module: "./consumer-floor.js", create: "createConsumer" },
};

/** Limits of each phase inside the child (the parent has its own, longer one). */
const PHASE_TIMEOUT_MS = 600_000;

function send(message: ConsumerMessage): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

/** POSTs the replay server's stream trigger (with node:http, which every consumer has loaded). */
function triggerStream(url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${url}${REPLAY_STREAM_PATH}`, { method: "POST" }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 202
          ? resolve()
          : reject(new Error(`stream trigger: status ${String(res.statusCode)}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** The event-loop delay monitor's sampling interval (issue 14's figure). */
const EVENT_LOOP_DELAY_RESOLUTION_MS = 10;

/** Starts sampling the event-loop delay of the phase about to begin. */
function startEventLoopDelay(): IntervalHistogram {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_DELAY_RESOLUTION_MS });
  histogram.enable();
  return histogram;
}

/** Stops sampling and returns the longest delay seen, in ms. */
function maxEventLoopDelayMs(histogram: IntervalHistogram): number {
  histogram.disable();
  return histogram.max / 1e6;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function measure(task: ConsumerTask, consumer: InformerConsumer): Promise<ConsumerResult> {
  const heapBefore = collectedHeap();
  const syncDelay = startEventLoopDelay();
  const cpuAtStart = process.cpuUsage();
  const start = performance.now();
  const syncedAt = await withTimeout(consumer.sync(), PHASE_TIMEOUT_MS, `${task.kind} sync`);
  const syncCpuMs = cpuMs(process.cpuUsage(cpuAtStart));
  const syncEventLoopDelayMaxMs = maxEventLoopDelayMs(syncDelay);
  const heapSynced = collectedHeap();
  let stream: { ms: number; cpuMs: number; delayMaxMs: number; heap: HeapStats } | undefined;
  if (task.events > 0) {
    const streamDelay = startEventLoopDelay();
    const cpuAtTrigger = process.cpuUsage();
    const triggeredAt = performance.now();
    await triggerStream(task.url);
    const streamedAt = await withTimeout(
      consumer.streamed(),
      PHASE_TIMEOUT_MS,
      `${task.kind} stream of ${task.events} events`,
    );
    const streamCpuMs = cpuMs(process.cpuUsage(cpuAtTrigger));
    const delayMaxMs = maxEventLoopDelayMs(streamDelay);
    stream = {
      ms: streamedAt - triggeredAt,
      cpuMs: streamCpuMs,
      delayMaxMs,
      heap: collectedHeap(),
    };
  }
  const listBytes = consumer.listBytes?.();
  return {
    kind: task.kind,
    syncMs: syncedAt - start,
    syncCpuMs,
    syncEventLoopDelayMaxMs,
    ...(stream
      ? {
          streamMs: stream.ms,
          streamCpuMs: stream.cpuMs,
          streamEventLoopDelayMaxMs: stream.delayMaxMs,
          heapStreamed: stream.heap,
        }
      : {}),
    heapBefore,
    heapSynced,
    cached: consumer.cached(),
    ...(listBytes !== undefined ? { listBytes } : {}),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2] ?? "") as ConsumerTask;
  const entry = MODULES[task.kind];
  if (entry === undefined) throw new Error(`consumer host: unknown consumer ${task.kind}`);
  process.on("disconnect", () => process.exit(1));
  const exports = (await import(entry.module)) as Record<
    string,
    ((task: ConsumerTask) => Promise<InformerConsumer>) | undefined
  >;
  const create = exports[entry.create];
  if (create === undefined) throw new Error(`${entry.module} does not export ${entry.create}`);
  const consumer = await create(task);
  try {
    const result = await measure(task, consumer);
    await send({ type: "result", result });
  } finally {
    await withTimeout(consumer.close(), 10_000, `closing the ${task.kind} consumer`).catch(
      (err: unknown) => console.error(err),
    );
  }
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    await send({
      type: "error",
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    process.exit(1);
  },
);
