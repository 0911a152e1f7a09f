/**
 * What the controller integration tests share: a Clientset on the embedded server (client
 * throttling off), a namespace per test, and a started factory + controller that `stop()`
 * shuts down completely.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  Clientset,
  Controller,
  type ControllerOptions,
  SharedInformerFactory,
  type Logger,
  type LogLevel,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

/** A logger that keeps its entries (tests assert on errors). */
export class MemoryLogger implements Logger {
  readonly entries: { level: LogLevel; message: string; fields?: unknown }[] = [];
  debug(message: string, fields?: unknown): void {
    this.entries.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: unknown): void {
    this.entries.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: unknown): void {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: unknown): void {
    this.entries.push({ level: "error", message, fields });
  }
}

/** The server and a Clientset on it; both set once `beforeAll` has run. */
export interface ClusterHarness {
  server: ApiServer;
  cs: Clientset;
  /** Creates a namespace. */
  namespace(name: string): Promise<string>;
}

/** Every started factory + controller, stopped after each test. */
const started: Running[] = [];

/**
 * Starts a server for the calling `describe` (stopped in `afterAll`); after each test, every
 * controller and factory made by {@link controllerFor} is stopped.
 */
export function useCluster(): ClusterHarness {
  const h = {} as ClusterHarness;
  afterEach(async () => {
    for (const r of started.splice(0)) await r.stop();
  });
  beforeAll(async () => {
    h.server = await ApiServer.start();
    h.cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    h.namespace = async (name) => {
      await h.cs.coreV1.namespaces().create({ metadata: { name } });
      return name;
    };
  });
  afterAll(async () => {
    await h.cs?.restClient.transport.close();
    await h.server?.stop();
  });
  return h;
}

/** A factory (namespaced) and a controller, and a `start`/`stop` pair for both. */
export interface Running {
  readonly factory: SharedInformerFactory;
  readonly controller: Controller;
  readonly logger: MemoryLogger;
  /** Starts the informers and the controller; returns `run()`'s promise. */
  start(): Promise<void>;
  /** Aborts both, waits for the controller's `run` to settle and the factory's shutdown (idempotent). */
  stop(): Promise<void>;
}

/**
 * A factory for `namespace` and a controller with `options` (logger: a {@link MemoryLogger}).
 * `setup` adds the watches before anything starts.
 */
export function controllerFor(
  cs: Clientset,
  namespace: string,
  options: Omit<ControllerOptions, "logger">,
  setup: (factory: SharedInformerFactory, controller: Controller) => void,
): Running {
  const factory = new SharedInformerFactory(cs, { namespace });
  const logger = new MemoryLogger();
  const controller = new Controller({ ...options, logger });
  setup(factory, controller);
  const abort = new AbortController();
  let run: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  const running: Running = {
    factory,
    controller,
    logger,
    start: () => {
      run = controller.run(abort.signal);
      factory.start(abort.signal);
      return run;
    },
    stop: () => {
      stopped ??= (async () => {
        abort.abort();
        await run?.catch(() => undefined);
        await factory.shutdown();
      })();
      return stopped;
    },
  };
  started.push(running);
  return running;
}
