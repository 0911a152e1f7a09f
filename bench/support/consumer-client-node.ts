/**
 * @kubernetes/client-node's consumer in the informer benchmark (1.4, or 2.0.1 for the task
 * kind `client-node-2`), used as its README shows:
 * `makeInformer(kc, "/api/v1/pods", () => coreV1.listPodForAllNamespaces())` with a
 * KubeConfig pointing at the server, and callbacks that only count. Its list is one request
 * (no pagination) whose items its generated client deserializes into model objects; its
 * watch parses each line with JSON.parse.
 */
import { loadClientNode } from "./client-node-api.js";
import type { ConsumerTask, InformerConsumer } from "./consumer-protocol.js";
import { Countdown } from "./countdown.js";
import { REPLAY_PODS_PATH } from "./replay-server.js";

/** client-node's consumer of `task` (see the module comment). */
export async function createConsumer(task: ConsumerTask): Promise<InformerConsumer> {
  const k8s = await loadClientNode(task.kind === "client-node-2" ? "2.0" : "1.4");
  const kc = new k8s.KubeConfig();
  kc.loadFromClusterAndUser(
    // client-node refuses plain http unless skipTLSVerify is set.
    { name: "bench", server: task.url, skipTLSVerify: true },
    { name: "bench" },
  );
  const coreV1 = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, REPLAY_PODS_PATH, () => coreV1.listPodForAllNamespaces());
  const added = new Countdown(task.pods);
  const modified = new Countdown(task.events);
  informer.on("add", () => added.tick());
  informer.on("update", () => modified.tick());
  informer.on("error", (err) => {
    const error = err instanceof Error ? err : new Error(String(err));
    added.fail(error);
    modified.fail(error);
  });
  return {
    async sync() {
      // start() resolves once the list is cached and the watch request is made; the adds
      // (delivered synchronously while caching the list) mark the sync.
      const started = informer.start();
      const at = await added.reached;
      await started;
      return at;
    },
    streamed: () => modified.reached,
    cached: () => informer.list().length,
    close: () => informer.stop(),
  };
}
