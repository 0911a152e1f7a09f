/**
 * Entry point of the child process that hosts the server under measurement
 * (`node --import tsx --expose-gc bench/support/server-host.ts kubekit|bare|replay`), started and
 * driven over IPC by {@link HostProcess}. It exits when told to stop or when its parent
 * goes away (the IPC channel disconnects), so it never outlives the benchmark.
 */
import { BareServer } from "./bare-server.js";
import { ReplayServer } from "./replay-server.js";
import { storedPods } from "./stored-pods.js";
import { collectedHeap } from "./timing.js";
import type {
  HostEnvelope,
  HostMessage,
  HostReplyValue,
  HostRequest,
  HostedServer,
} from "./host-protocol.js";

function send(message: HostMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const kind = process.argv[2] as HostedServer | undefined;
  if (kind !== "kubekit" && kind !== "bare" && kind !== "replay") {
    throw new Error(`server host: unknown server "${String(kind)}"`);
  }
  if (!process.send) throw new Error("server host must be started with an IPC channel");
  // Imported only when hosted: the replay server needs none of the embedded server's code.
  const kubekit =
    kind === "kubekit" ? await (await import("@kubekit/apiserver")).ApiServer.start() : undefined;
  const bare = kind === "bare" ? new BareServer() : undefined;
  const replay = kind === "replay" ? new ReplayServer() : undefined;
  const url = kubekit
    ? kubekit.url
    : replay
      ? await replay.start()
      : await (bare as BareServer).start();

  const stop = async (): Promise<void> => {
    await kubekit?.stop();
    await bare?.stop();
    await replay?.stop();
  };
  const handle = async (request: HostRequest): Promise<HostReplyValue> => {
    if (request.type === "heap") return collectedHeap();
    if (request.type === "cpu") {
      const { user, system } = process.cpuUsage();
      return { userMs: user / 1000, systemMs: system / 1000 };
    }
    if (request.type === "stop") {
      await stop();
      return { count: 0 };
    }
    if (request.type === "load-pods") {
      if (!kubekit) throw new Error("load-pods is served by the kubekit server only");
      return {
        count: kubekit.loadObjects(storedPods(request.first, request.count, request.namespaces)),
      };
    }
    if (request.type === "replay-load") {
      if (!replay) throw new Error("replay-load is served by the replay server only");
      return replay.load(request.spec);
    }
    if (!bare) throw new Error(`${request.type} is served by the bare server only`);
    switch (request.type) {
      case "hold-list":
        return { count: await bare.holdList(request.file) };
      case "serve-bodies":
        return { count: await bare.serveBodies(request.routes) };
      case "serve-stream":
        return { count: await bare.serveStream(request.url, request.file) };
      case "serve-frames":
        return { count: await bare.serveFrames(request.url, request.file) };
    }
  };

  process.on("message", (raw: HostEnvelope) => {
    handle(raw.request).then(
      (result) => {
        send({ type: "reply", id: raw.id, ok: true, result });
        if (raw.request.type === "stop") process.disconnect();
      },
      (err: unknown) =>
        send({
          type: "reply",
          id: raw.id,
          ok: false,
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        }),
    );
  });
  process.on("disconnect", () => {
    void stop().finally(() => process.exit(0));
  });
  send({ type: "ready", url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
