/**
 * kubekit's consumer in the informer benchmark: a SharedIndexInformer over
 * `listerWatcherFor(new RESTClient(config), pods)` with its defaults (in-order queue, no
 * transform, reflector paging 500 at a time) and one handler that only counts.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  listerWatcherFor,
  SharedIndexInformer,
  type RestConfig,
  NoCredentials,
  RESTClient,
} from "kubekit";
import type { ConsumerTask, InformerConsumer } from "./consumer-protocol.js";
import { Countdown } from "./countdown.js";

/**
 * The client's settings: plain HTTP, no credentials, and — unless the task keeps the default
 * (QPS 5, burst 10) — no client-side rate limit, so that the 100 list pages are not paced
 * by the limiter (which would measure the limiter: 90 pages at 5/s take 18 s).
 */
export function restConfig(task: ConsumerTask): RestConfig {
  return {
    host: task.url,
    tls: {},
    credentials: new NoCredentials(),
    qps: task.defaultRateLimit ? 0 : -1,
    burst: 0,
  };
}

/** The benchmark's pod informer: a SharedIndexInformer with its defaults over `client`. */
export function podInformer(client: RESTClient): SharedIndexInformer<Pod> {
  return new SharedIndexInformer<Pod>({
    name: "pods",
    listerWatcher: listerWatcherFor<Pod>(client, { group: "", version: "v1", resource: "pods" }),
  });
}

class KubekitConsumer implements InformerConsumer {
  private readonly controller = new AbortController();
  private readonly client: RESTClient;
  private readonly informer: SharedIndexInformer<Pod>;
  private readonly added: Countdown;
  private readonly modified: Countdown;
  private running: Promise<void> | undefined;

  constructor(private readonly task: ConsumerTask) {
    this.client = new RESTClient(restConfig(task));
    this.informer = podInformer(this.client);
    this.added = new Countdown(task.pods);
    this.modified = new Countdown(task.events);
    this.informer.setWatchErrorHandler((err) => {
      const error = err instanceof Error ? err : new Error(String(err));
      this.added.fail(error);
      this.modified.fail(error);
    });
  }

  async sync(): Promise<number> {
    const registration = this.informer.addEventHandler({
      onAdd: () => this.added.tick(),
      onUpdate: () => this.modified.tick(),
    });
    this.running = this.informer.run(this.controller.signal);
    await this.added.reached;
    if (!(await registration.waitForSync(this.controller.signal))) {
      throw new Error("kubekit: the informer stopped before it synced");
    }
    return performance.now();
  }

  streamed(): Promise<number> {
    return this.modified.reached;
  }

  cached(): number {
    return this.informer.indexer.list().length;
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.running;
    await this.client.transport.close();
  }
}

/** kubekit's consumer of `task` (see the module comment). */
export function createConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  return Promise.resolve(new KubekitConsumer(task));
}
