/**
 * The informer → workqueue → controller scenario, played end to end and narrated (`npm start`, `kubekit demo`): a
 * ReplicaSet-style controller (./replicaset-controller.ts) built with the Manager's controller
 * builder and cache-backed client keeps N pods per ReplicaSet while the demo
 *
 *  1. creates a ReplicaSet with 3 replicas: the controller creates 3 pods;
 *  2. deletes a pod ("OOM-killed"): the worker does not find it in the lister any more and
 *     creates a replacement;
 *  3. scales to 5, then back to 2;
 *  4. cuts every watch and compacts the server's history while a pod disappears: the
 *     reflector's re-watch gets 410 Gone, it relists, and the controller converges again;
 *  5. makes the next two pod creations fail: the reconcile is requeued rate-limited (5 ms,
 *     then 10 ms) and succeeds on the third attempt.
 *
 * Each line says when (seconds since the start) and where an event is on its path:
 * API server → Reflector → FIFO → Indexer → handler → workqueue → worker.
 *
 * The controller runs under a Manager (metrics on `/metrics` with `serve`) and records
 * `SuccessfulCreate` / `SuccessfulDelete` Events on the ReplicaSet, listed in the summary.
 *
 * Against the embedded API server by default; with `kubeconfig`, against any cluster (steps 4
 * and 5 need the embedded server's fault injection and are skipped there).
 */
import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  type LogFields,
  type Logger,
  type RateLimiter,
  EventRecorder,
  KubeConfig,
  AppsV1ReplicaSetLister,
  CoreV1PodLister,
  Manager,
  controllerOf,
  defaultControllerRateLimiter,
  isNotFound,
  type Clientset,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";
import type { ReplicaSetReconcile } from "./replicaset-controller.js";
import { replicaSetController } from "./replicaset-controller.js";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Where narration lines go (default: stdout). */
  readonly out?: (line: string) => void;
  /** Run against this kubeconfig's current context instead of the embedded server. */
  readonly kubeconfig?: string;
  /**
   * Keep the server and the controller running after the scenario, until `signal` aborts,
   * and tell how to watch with kubectl; the kubeconfig is written to `kubeconfigOut`.
   */
  readonly serve?: boolean;
  /** Port of the embedded server (default: any free port). */
  readonly port?: number;
  /** Where `serve` writes the embedded server's kubeconfig. */
  readonly kubeconfigOut?: string;
  /** Port of `/metrics` with `serve` (default: any free port). */
  readonly metricsPort?: number;
  /** Ends a `serve` run (or the scenario early). */
  readonly signal?: AbortSignal;
}

/** What the demo did, printed at its end. */
export interface DemoSummary {
  readonly podsCreated: number;
  readonly podsDeleted: number;
  /** Notifications the pod and ReplicaSet handlers received. */
  readonly events: number;
  readonly reconciles: number;
  /** Rate-limited requeues after failed reconciles. */
  readonly requeues: number;
  /** The Events recorded on the ReplicaSet, `reason: message`. */
  readonly recordedEvents: readonly string[];
  /** Per step: ms from the action to the controller's convergence. */
  readonly convergeMs: Readonly<Record<string, number>>;
  readonly totalMs: number;
}

const NAMESPACE = "kubekit-demo";
const RS_NAME = "web";
const RS_KEY = `${NAMESPACE}/${RS_NAME}`;
/** How long one step may take to converge before the demo gives up. */
const CONVERGE_TIMEOUT_MS = 15_000;

function replicaSet(replicas: number): ReplicaSet {
  return {
    metadata: { name: RS_NAME, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: RS_NAME } },
      template: {
        metadata: { labels: { app: RS_NAME } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
      },
    },
  };
}

/** Narration: `[  1.234s] where        what`. */
class Narrator {
  readonly #out: (line: string) => void;
  readonly #start = performance.now();
  #listeners = new Set<() => void>();

  constructor(out: (line: string) => void) {
    this.#out = out;
  }

  elapsedMs(): number {
    return performance.now() - this.#start;
  }

  say(where: string, what: string): void {
    const seconds = (this.elapsedMs() / 1000).toFixed(3).padStart(7);
    this.#out(`[${seconds}s] ${where.padEnd(10)} ${what}`);
    for (const listener of [...this.#listeners]) listener();
  }

  /** Prints a line without a timestamp (headings, the summary). */
  plain(line: string): void {
    this.#out(line);
  }

  /** Resolves once `condition` holds, re-checked after every narrated line. */
  until(what: string, condition: () => boolean, signal: AbortSignal): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timeout = AbortSignal.any([signal, AbortSignal.timeout(CONVERGE_TIMEOUT_MS)]);
      const done = (): void => {
        this.#listeners.delete(check);
        timeout.removeEventListener("abort", fail);
      };
      const check = (): void => {
        if (!condition()) return;
        done();
        resolve();
      };
      const fail = (): void => {
        done();
        reject(new Error(`the demo gave up waiting for ${what}`));
      };
      this.#listeners.add(check);
      timeout.addEventListener("abort", fail, { once: true });
    });
  }
}

/** Diagnostics narrated from level `least` up (default info; debug lines are dropped). */
function narratingLogger(
  narrator: Narrator,
  where: string,
  least: "info" | "warn" = "info",
): Logger {
  const say = (message: string, fields?: LogFields): void => {
    const error = fields?.["error"];
    const detail = error instanceof Error ? `: ${error.message}` : "";
    narrator.say(where, `${message}${detail}`);
  };
  return {
    debug: () => undefined,
    info: least === "info" ? say : () => undefined,
    warn: say,
    error: say,
  };
}

/** Runs the scenario; resolves with its summary (after `signal` aborts, with `serve`). */
export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const narrator = new Narrator(options.out ?? ((line) => process.stdout.write(`${line}\n`)));
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const server =
    options.kubeconfig === undefined
      ? await ApiServer.start(options.port !== undefined ? { port: options.port } : {})
      : undefined;
  const kc = server
    ? server.kubeConfig()
    : await KubeConfig.load({ kubeconfig: options.kubeconfig });
  narrator.plain(
    server
      ? `kubekit demo: a ReplicaSet controller on informers and a workqueue, on an embedded API server at ${server.url}`
      : `kubekit demo: a ReplicaSet controller on informers and a workqueue, on ${kc.restConfig().host} (context ${kc.currentContext})`,
  );
  if (server && options.serve) {
    const path = options.kubeconfigOut ?? `kubekit-demo-${server.port}.kubeconfig`;
    await server.writeKubeconfig(path);
    narrator.plain(
      `watch it with kubectl:\n\n  export KUBECONFIG=${path}\n  kubectl get rs,pods -n ${NAMESPACE} -w\n`,
    );
  }
  // The Manager runs the informers and the controller, with client-go's controller client
  // defaults (QPS 20, burst 30) and, with `serve`, Prometheus metrics.
  const manager = new Manager({
    kubeConfig: kc,
    ...(options.serve ? { metricsPort: options.metricsPort ?? 0 } : {}),
    logger: narratingLogger(narrator, "manager", "warn"),
    // The manager's cache: the informers its controllers watch and its client reads.
    cache: {
      namespace: NAMESPACE,
      informerOptions: { logger: narratingLogger(narrator, "Reflector") },
    },
  });
  const clientset = manager.clientset;
  const recorder = new EventRecorder({
    clientset,
    component: "replicaset-controller",
    logger: narratingLogger(narrator, "events", "warn"),
  });
  const counts = { podsCreated: 0, podsDeleted: 0, events: 0, reconciles: 0, requeues: 0 };
  // Converged also means the story is told: a reconcile reported after the last pod event.
  let seq = 0;
  let lastPodEvent = 0;
  let lastReconcile = 0;
  const convergeMs: Record<string, number> = {};

  // The path of an event, told by hooks a user can set on any informer (here the manager's,
  // which its controllers watch):
  const podInformer = manager.client.informer((i) => i.coreV1.pods());
  const rsInformer = manager.client.informer((i) => i.appsV1.replicaSets());
  const pods = {
    informer: podInformer,
    lister: new CoreV1PodLister(podInformer.indexer, { group: "", resource: "pods" }),
  };
  const replicaSets = {
    informer: rsInformer,
    lister: new AppsV1ReplicaSetLister(rsInformer.indexer, {
      group: "apps",
      resource: "replicasets",
    }),
  };
  // 1. the reflector hands every object it receives (list or watch) to the FIFO, through the
  //    informer's transform;
  pods.informer.setTransform((pod) => {
    narrator.say(
      "Reflector",
      `pod ${pod.metadata?.name} (rv ${pod.metadata?.resourceVersion}) → FIFO`,
    );
    return pod;
  });
  // 2. the informer pops it, updates the Indexer, then calls each handler in order.
  const owner = (pod: Pod): string => {
    const ref = controllerOf(pod);
    return ref ? `${NAMESPACE}/${ref.name}` : "(no owner)";
  };
  pods.informer.addEventHandler({
    onAdd: (pod) => {
      counts.events++;
      lastPodEvent = ++seq;
      narrator.say(
        "Indexer",
        `pod ${pod.metadata?.name} cached → handler → workqueue ${owner(pod)}`,
      );
    },
    onUpdate: (_old, pod) => {
      counts.events++;
      lastPodEvent = ++seq;
      narrator.say(
        "Indexer",
        `pod ${pod.metadata?.name} updated → handler → workqueue ${owner(pod)}`,
      );
    },
    onDelete: (pod) => {
      counts.events++;
      lastPodEvent = ++seq;
      const p = "obj" in pod ? (pod.obj as Pod | undefined) : pod;
      const how = "obj" in pod ? " (deletion seen by a relist)" : "";
      narrator.say(
        "Indexer",
        `pod ${p?.metadata?.name} removed from the cache${how} → handler → workqueue ${p ? owner(p) : ""}`,
      );
    },
  });
  replicaSets.informer.addEventHandler({
    onAdd: (rs) => {
      counts.events++;
      narrator.say(
        "Indexer",
        `replicaset ${rs.metadata?.name} cached → handler → workqueue ${RS_KEY}`,
      );
    },
    onUpdate: (old, rs) => {
      counts.events++;
      if (old.metadata?.generation !== rs.metadata?.generation) {
        narrator.say(
          "Indexer",
          `replicaset ${rs.metadata?.name} spec changed → handler → workqueue ${RS_KEY}`,
        );
      }
    },
  });
  // 3. a failed reconcile goes back to the workqueue through its rate limiter.
  const limiter = defaultControllerRateLimiter();
  const rateLimiter: RateLimiter<string> = {
    when: (key) => {
      const ms = limiter.when(key);
      counts.requeues++;
      narrator.say(
        "workqueue",
        `requeue ${key} in ${ms} ms (rate limited, failure ${limiter.numRequeues(key)})`,
      );
      return ms;
    },
    forget: (key) => limiter.forget(key),
    numRequeues: (key) => limiter.numRequeues(key),
  };
  // 4. a worker takes the key and reconciles from the listers.
  const onReconciled = (r: ReplicaSetReconcile): void => {
    counts.reconciles++;
    lastReconcile = ++seq;
    counts.podsCreated += r.created.length;
    counts.podsDeleted += r.deleted.length;
    const actions = [
      ...(r.created.length ? [`created ${r.created.join(", ")}`] : []),
      ...(r.deleted.length ? [`deleted ${r.deleted.join(", ")}`] : []),
    ];
    narrator.say(
      "worker",
      r.desired === undefined
        ? `reconcile ${r.key}: not in the lister (deleted); nothing to do`
        : `reconcile ${r.key}: lister has ${r.found} of ${r.desired} pods → ${actions.length ? actions.join("; ") : "in sync"}`,
    );
  };
  replicaSetController({
    manager,
    rateLimiter,
    onReconciled,
    logger: narratingLogger(narrator, "worker"),
    recorder,
  });

  const livePods = (): Pod[] =>
    pods.lister
      .pods(NAMESPACE)
      .list()
      .filter(
        (p) => p.metadata?.deletionTimestamp === undefined && controllerOf(p)?.name === RS_NAME,
      );
  const converged = async (
    step: string,
    replicas: number,
    since: number,
    gone: readonly string[] = [],
  ): Promise<void> => {
    const inSync = (): boolean => {
      let rs: ReplicaSet;
      try {
        rs = replicaSets.lister.replicaSets(NAMESPACE).get(RS_NAME);
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      const names = livePods().map((p) => p.metadata?.name ?? "");
      return (
        lastReconcile > lastPodEvent &&
        names.length === replicas &&
        !gone.some((name) => names.includes(name)) &&
        rs.status?.replicas === replicas &&
        rs.status.observedGeneration === rs.metadata?.generation
      );
    };
    await narrator.until(`${replicas} pods`, inSync, signal);
    convergeMs[step] = Math.round(narrator.elapsedMs() - since);
    const names = livePods()
      .map((p) => p.metadata?.name)
      .sort()
      .join(", ");
    narrator.say("converged", `${replicas} pods: ${names} (${convergeMs[step]} ms)`);
  };
  const step = (title: string): number => {
    narrator.plain(`\n== ${title}`);
    return narrator.elapsedMs();
  };

  let managerDone: Promise<void> = Promise.resolve();
  try {
    try {
      await clientset.coreV1.namespaces().create({ metadata: { name: NAMESPACE } });
    } catch (err) {
      if (!(err instanceof Error && "reason" in err && err.reason === "AlreadyExists")) throw err;
    }
    managerDone = manager.start(signal);
    await manager.elected(); // the caches have synced and the controller runs
    narrator.say("informers", "pods and replicasets synced (list + watch)");
    if (options.serve) narrator.plain(`metrics: http://127.0.0.1:${manager.metricsPort}/metrics`);

    let since = step("1. create ReplicaSet web with 3 replicas");
    narrator.say("API server", `create replicaset ${RS_NAME} (replicas 3)`);
    await clientset.appsV1.replicaSets(NAMESPACE).create(replicaSet(3));
    await converged("create", 3, since);

    since = step('2. a pod is "OOM-killed": the controller replaces it');
    const victim = livePods()[0]?.metadata?.name ?? "";
    narrator.say("API server", `delete pod ${victim}`);
    await clientset.coreV1.pods(NAMESPACE).delete(victim);
    await converged("replace", 3, since, [victim]);

    since = step("3. scale to 5, then back to 2");
    narrator.say("API server", "scale replicaset web to 5");
    await scale(clientset, 5);
    await converged("scale up", 5, since);
    since = narrator.elapsedMs();
    narrator.say("API server", "scale replicaset web to 2");
    await scale(clientset, 2);
    await converged("scale down", 2, since);

    if (server) {
      since = step(
        "4. the server cuts every watch and compacts its history; a pod vanishes meanwhile",
      );
      server.faults.stallWatches();
      const vanished = livePods()[0]?.metadata?.name ?? "";
      await clientset.coreV1.pods(NAMESPACE).delete(vanished);
      server.faults.compactHistory();
      server.faults.closeWatches();
      narrator.say(
        "API server",
        `pod ${vanished} deleted unseen; every watch cut; history compacted (older resourceVersions get 410 Gone)`,
      );
      await converged("relist", 2, since, [vanished]);

      since = step("5. the next two pod creations fail: rate-limited requeues");
      await recorder.flush(signal); // the Events of earlier steps are written before the fault
      server.faults.failNext(2, { code: 500, verbs: ["create"] });
      const killed = livePods()[0]?.metadata?.name ?? "";
      narrator.say("API server", `delete pod ${killed}; the next 2 creates will answer 500`);
      await clientset.coreV1.pods(NAMESPACE).delete(killed);
      await converged("requeue", 2, since, [killed]);
    } else {
      narrator.plain("\n(steps 4 and 5 need the embedded server's fault injection: skipped)");
    }

    await recorder.flush(signal);
    const recordedEvents = (await clientset.coreV1.events(NAMESPACE).list()).items
      .filter((e) => e.involvedObject.kind === "ReplicaSet" && e.involvedObject.name === RS_NAME)
      .map((e) => `${e.reason}: ${e.message}`)
      .sort();
    const summary: DemoSummary = {
      ...counts,
      recordedEvents,
      convergeMs,
      totalMs: Math.round(narrator.elapsedMs()),
    };
    narrator.plain(
      `\n== summary\n` +
        `pods created ${summary.podsCreated}, deleted ${summary.podsDeleted}; ` +
        `handler events ${summary.events}; reconciles ${summary.reconciles}; ` +
        `rate-limited requeues ${summary.requeues}\n` +
        `events on replicaset ${RS_NAME} (kubectl get events -n ${NAMESPACE}):\n` +
        recordedEvents.map((e) => `  ${e}\n`).join("") +
        `time to converge: ${Object.entries(convergeMs)
          .map(([s, ms]) => `${s} ${ms} ms`)
          .join(", ")}\n` +
        `total ${(summary.totalMs / 1000).toFixed(1)} s`,
    );
    if (options.serve) {
      narrator.plain(
        `\nthe controller keeps running: try kubectl scale rs ${RS_NAME} -n ${NAMESPACE} --replicas=4 (Ctrl+C stops)`,
      );
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    return summary;
  } finally {
    stop.abort();
    await managerDone.catch((err: unknown) => narrator.say("manager", `stopped: ${String(err)}`));
    await recorder.shutdown();
    if (server) await server.stop();
    else
      await clientset.coreV1
        .namespaces()
        .delete(NAMESPACE)
        .catch(() => undefined);
  }
}

async function scale(clientset: Clientset, replicas: number): Promise<void> {
  await clientset.appsV1
    .replicaSets(NAMESPACE)
    .patch(RS_NAME, "application/merge-patch+json", { spec: { replicas } });
}
