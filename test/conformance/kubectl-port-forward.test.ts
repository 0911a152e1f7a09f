import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, get, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiServer } from "@kubekit/apiserver";
import { ApiClient } from "../support/api-client.js";
import { hasKubectl, KubectlSession, KubectlStream, warnIfNoKubectl } from "../support/kubectl.js";
import { createNamespace } from "../support/server-test-helpers.js";

warnIfNoKubectl("the kubectl port-forward conformance tests");
const ns = "forward";
const TOKEN = "port-forward-token";

/** One HTTP GET through `port` on its own connection: the status and body. */
function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** The local port of kubectl's "Forwarding from 127.0.0.1:NNNN -> REMOTE" line. */
async function forwardedPort(pf: KubectlStream, remote: number): Promise<number> {
  const line = new RegExp(`^Forwarding from 127\\.0\\.0\\.1:(\\d+) -> ${remote}$`, "m");
  await pf.waitFor((s) => line.test(s.stdout), "the Forwarding from line");
  return Number(line.exec(pf.stdout)![1]);
}

describe.skipIf(!hasKubectl)("kubectl port-forward against an ApiServer with a handler", () => {
  let server: ApiServer;
  let backend: Server;
  let dir: string;
  let kubeconfig: string;
  const running: KubectlStream[] = [];

  /** Starts `kubectl port-forward ARGS` (env added, e.g. to turn the WebSocket tunnel off). */
  function portForward(args: readonly string[], env: Record<string, string> = {}): KubectlStream {
    const child = spawn(
      "kubectl",
      [
        "--kubeconfig",
        kubeconfig,
        "--cache-dir",
        join(dir, "cache"),
        "port-forward",
        "-n",
        ns,
        ...args,
      ],
      {
        env: { ...process.env, HOME: join(dir, "home"), ...env },
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 30_000,
      },
    );
    const stream = new KubectlStream(child);
    running.push(stream);
    return stream;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubekit-port-forward-"));
    await mkdir(join(dir, "home"));
    kubeconfig = join(dir, "kubeconfig");
    server = await ApiServer.start({ tls: true, auth: { tokens: { [TOKEN]: "admin" } } });
    await server.writeKubeconfig(kubeconfig);
    backend = createServer((req, res) => res.end(`hello from the pod: ${req.url ?? ""}`));
    await new Promise<void>((resolve) => backend.listen(0, "127.0.0.1", resolve));
    const backendPort = (backend.address() as AddressInfo).port;
    server.containers.onPortForward({ namespace: ns, pod: "web" }, 8080, (stream) => {
      const upstream = connect(backendPort, "127.0.0.1");
      upstream.on("error", () => stream.destroy());
      stream.pipe(upstream).pipe(stream);
    });
    const client = ApiClient.for(server, { token: TOKEN });
    await createNamespace(client, ns);
    const created = await client.post(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: "web" },
      spec: { nodeName: "node-1", containers: [{ name: "web", image: "example/web:1" }] },
    });
    expect(created.status, created.text).toBe(201);
    const status = await client.patch(
      `/api/v1/namespaces/${ns}/pods/web/status`,
      { status: { phase: "Running" } },
      "application/merge-patch+json",
    );
    expect(status.status, status.text).toBe(200);
    await client.close();
  });

  afterAll(async () => {
    await Promise.all(running.map((pf) => pf.stop()));
    await new Promise((resolve) => backend?.close(resolve));
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["the WebSocket tunnel (kubectl's default)", {}],
    [
      "plain SPDY/3.1 (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)",
      { KUBECTL_PORT_FORWARD_WEBSOCKETS: "false" },
    ],
  ])("serves HTTP requests through the registered handler over %s", async (_how, env) => {
    const pf = portForward(["pod/web", ":8080"], env);
    const port = await forwardedPort(pf, 8080);
    await pf.waitFor(
      (s) => s.stdout.includes(`Forwarding from [::1]:${port} -> 8080`),
      "the IPv6 line",
    );
    expect(await httpGet(port, "/first")).toEqual({
      status: 200,
      body: "hello from the pod: /first",
    });
    const [a, b] = await Promise.all([httpGet(port, "/a"), httpGet(port, "/b")]);
    expect([a.body, b.body]).toEqual(["hello from the pod: /a", "hello from the pod: /b"]);
    await pf.waitFor(
      (s) => s.stdout.split(`Handling connection for ${port}`).length - 1 === 3,
      "three handled connections",
    );
    const result = await pf.stop();
    expect(result.stderr).not.toMatch(/error/i);
  });

  it("reports the kubelet's error when nothing listens on the pod's port", async () => {
    const pf = portForward(["pod/web", ":7000"]);
    const port = await forwardedPort(pf, 7000);
    await expect(httpGet(port, "/")).rejects.toThrow();
    await pf.waitFor(
      (s) => s.stderr.includes("error forwarding port 7000 to pod"),
      "the error on kubectl's stderr",
    );
    expect(pf.stderr).toMatch(
      /failed to connect to localhost:7000 inside namespace \\?"forward\/web\\?".*connection refused/,
    );
    // kubectl 1.31+ ends the whole forward on an error from the pod, as against a kubelet.
    const result = await pf.exited;
    expect(result.stderr).toMatch(/lost connection to pod/);
  });

  it("refuses a pod that is not running, as kubectl checks", async () => {
    const client = ApiClient.for(server, { token: TOKEN });
    try {
      await client.post(`/api/v1/namespaces/${ns}/pods`, {
        metadata: { name: "waiting" },
        spec: { containers: [{ name: "w", image: "example/web:1" }] },
      });
    } finally {
      await client.close();
    }
    const pf = portForward(["pod/waiting", "8080"]);
    const result = await pf.exited;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /unable to forward port because pod is not running. Current status=Pending/,
    );
  });
});

describe.skipIf(!hasKubectl)("kubectl port-forward against kubekit serve", () => {
  let session: KubectlSession;

  beforeAll(async () => {
    session = await KubectlSession.start();
  });

  afterAll(async () => {
    if (!session) return;
    const exit = await session.stop();
    expect(exit.code, exit.stderr).toBe(0);
  });

  it("reaches the built-in nginx page of a pod the simulated kubelet runs", async () => {
    const manifest = await session.writeManifest(
      "nginx.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: nginx, namespace: default}\n" +
        'spec: {containers: [{name: nginx, image: "nginx:1.27", ports: [{containerPort: 80}]}]}\n',
    );
    const created = await session.run(["create", "-f", manifest]);
    expect(created.code, created.stderr).toBe(0);
    const ready = await session.run([
      "wait",
      "--for=jsonpath={.status.phase}=Running",
      "pod/nginx",
      "--timeout=20s",
    ]);
    expect(ready.code, ready.stderr).toBe(0);
    const pf = session.stream(["port-forward", "pod/nginx", ":80"]);
    try {
      const port = await forwardedPort(pf, 80);
      const answer = await httpGet(port, "/");
      expect(answer.status).toBe(200);
      expect(answer.body).toContain("<title>Welcome to nginx!</title>");
    } finally {
      await pf.stop();
    }
  });
});
