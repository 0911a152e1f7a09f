/**
 * The controller benchmark's consumer: kubekit's informer of `consumer-kubekit.ts` (same
 * client settings, same SharedIndexInformer) watched by a `Controller` with the defaults
 * (one worker, the default rate limiter) and a no-op reconcile that only counts. It has
 * synced once every pod's key has been reconciled: the controller waits for the informer's
 * sync, then its worker drains the queue the informer's adds filled.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { type SharedIndexInformer, Controller, noopLogger, RESTClient } from "kubekit";
import type { ConsumerTask, InformerConsumer } from "./consumer-protocol.js";
import { podInformer, restConfig } from "./consumer-kubekit.js";
import { Countdown } from "./countdown.js";

class ControllerConsumer implements InformerConsumer {
  private readonly stop = new AbortController();
  private readonly client: RESTClient;
  private readonly informer: SharedIndexInformer<Pod>;
  private readonly controller: Controller;
  private readonly reconciled: Countdown;
  private running: Promise<unknown> | undefined;

  constructor(task: ConsumerTask) {
    if (task.events > 0) throw new Error("the controller consumer has no stream phase");
    this.client = new RESTClient(restConfig(task));
    this.informer = podInformer(this.client);
    this.reconciled = new Countdown(task.pods);
    this.informer.setWatchErrorHandler((err) =>
      this.reconciled.fail(err instanceof Error ? err : new Error(String(err))),
    );
    this.controller = new Controller({
      name: "bench",
      reconcile: () => this.reconciled.tick(),
      logger: noopLogger,
    });
    this.controller.watch(this.informer);
  }

  sync(): Promise<number> {
    const { signal } = this.stop;
    this.running = Promise.all([this.informer.run(signal), this.controller.run(signal)]);
    this.running.catch((err: unknown) =>
      this.reconciled.fail(err instanceof Error ? err : new Error(String(err))),
    );
    return this.reconciled.reached;
  }

  streamed(): Promise<number> {
    return Promise.reject(new Error("the controller consumer has no stream phase"));
  }

  cached(): number {
    return this.informer.indexer.list().length;
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
    await this.client.transport.close();
  }
}

/** The controller consumer of `task` (see the module comment). */
export function createConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  return Promise.resolve(new ControllerConsumer(task));
}
