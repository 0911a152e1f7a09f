/**
 * kubekit's lazy (metadata-first) consumer in the informer benchmark: a
 * `SharedIndexInformer<LazyObject<Pod>>` over `lazyListerWatcherFor(new RESTClient(config),
 * pods)` with the informer's defaults (as `consumer-kubekit.ts`), and one handler that
 * counts. Two variants: `readBodies: false` never parses a body (the informer keeps each
 * pod's metadata and JSON bytes), `readBodies: true` reads every body once, in the handler,
 * as a controller that looks at every object would (each added and each modified pod's body
 * is parsed once; an update's old object was read when it arrived).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { lazyListerWatcherFor, type LazyObject, RESTClient, SharedIndexInformer } from "kubekit";
import type { ConsumerTask, InformerConsumer } from "./consumer-protocol.js";
import { Countdown } from "./countdown.js";
import { restConfig } from "./consumer-kubekit.js";

/** Which lazy variant runs. */
export interface LazyConsumerOptions {
  /** Parse every object's body once (in the handler) instead of never. */
  readonly readBodies: boolean;
}

/** The benchmark's lazy pod informer over `client`: the informer's defaults, lazy items. */
export function lazyPodInformer(client: RESTClient): SharedIndexInformer<LazyObject<Pod>> {
  return new SharedIndexInformer<LazyObject<Pod>>({
    name: "pods",
    listerWatcher: lazyListerWatcherFor<Pod>(client, {
      group: "",
      version: "v1",
      resource: "pods",
    }),
  });
}

/** Reads the body (parsing it) and touches a field, so that the read cannot be optimized away. */
function readBody(pod: LazyObject<Pod>): number {
  return pod.object().spec?.containers.length ?? 0;
}

class LazyKubekitConsumer implements InformerConsumer {
  private readonly controller = new AbortController();
  private readonly client: RESTClient;
  private readonly informer: SharedIndexInformer<LazyObject<Pod>>;
  private readonly added: Countdown;
  private readonly modified: Countdown;
  private running: Promise<void> | undefined;
  /** Sum of what {@link readBody} returned (kept so the reads are observable). */
  containers = 0;

  constructor(
    private readonly task: ConsumerTask,
    private readonly options: LazyConsumerOptions,
  ) {
    this.client = new RESTClient(restConfig(task));
    this.informer = lazyPodInformer(this.client);
    this.added = new Countdown(task.pods);
    this.modified = new Countdown(task.events);
    this.informer.setWatchErrorHandler((err) => {
      const error = err instanceof Error ? err : new Error(String(err));
      this.added.fail(error);
      this.modified.fail(error);
    });
  }

  async sync(): Promise<number> {
    const readBodies = this.options.readBodies;
    const registration = this.informer.addEventHandler({
      onAdd: (pod) => {
        if (readBodies) this.containers += readBody(pod);
        this.added.tick();
      },
      onUpdate: (_old, pod) => {
        if (readBodies) this.containers += readBody(pod);
        this.modified.tick();
      },
    });
    this.running = this.informer.run(this.controller.signal);
    await this.added.reached;
    if (!(await registration.waitForSync(this.controller.signal))) {
      throw new Error("kubekit (lazy): the informer stopped before it synced");
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

/** The lazy consumer of `task` that never reads a body (see the module comment). */
export function createConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  return Promise.resolve(new LazyKubekitConsumer(task, { readBodies: false }));
}

/** The lazy consumer of `task` that reads every body once (see the module comment). */
export function createBodyReadingConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  return Promise.resolve(new LazyKubekitConsumer(task, { readBodies: true }));
}
