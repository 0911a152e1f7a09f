import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { newBadRequest } from "kubekit";
import { type ExecRequest, ApiServer } from "@kubekit/apiserver";
import {
  isSession,
  openRemoteCommand,
  rawHttpRequest,
  type RawRemoteCommand,
  type UpgradeRefusal,
} from "../../support/raw-remote-command.js";
import { ApiClient } from "../../support/api-client.js";
import { openSpdyUpgrade } from "../../support/spdy-test-client.js";
import {
  createNamespace,
  expectStatus,
  useServer,
  waitFor,
  type ServerHarness,
} from "../../support/server-test-helpers.js";

const V5 = "v5.channel.k8s.io";
const V4 = "v4.channel.k8s.io";

/** The exec path of a pod with `command` and the stream flags. */
function execPath(
  ns: string,
  pod: string,
  command: readonly string[],
  query: Record<string, string> = { stdout: "true", stderr: "true" },
  subresource = "exec",
): string {
  const params = new URLSearchParams();
  for (const c of command) params.append("command", c);
  for (const [k, v] of Object.entries(query)) params.append(k, v);
  return `/api/v1/namespaces/${ns}/pods/${pod}/${subresource}?${params.toString()}`;
}

/** Creates a pod bound to node-1 and, unless `running` is false, in phase Running. */
async function createRunningPod(
  h: ServerHarness,
  ns: string,
  name: string,
  spec: Record<string, unknown> = {},
  options: { running?: boolean; labels?: Record<string, string> } = {},
): Promise<void> {
  const res = await h.client.post(`/api/v1/namespaces/${ns}/pods`, {
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    spec: { nodeName: "node-1", containers: [{ name: "main", image: "busybox" }], ...spec },
  });
  expect(res.status, res.text).toBe(201);
  if (options.running === false) return;
  const status = await h.client.patch(
    `/api/v1/namespaces/${ns}/pods/${name}/status`,
    { status: { phase: "Running" } },
    "application/merge-patch+json",
  );
  expect(status.status, status.text).toBe(200);
}

async function open(
  h: ServerHarness,
  path: string,
  protocols?: readonly string[],
): Promise<RawRemoteCommand> {
  const session = await openRemoteCommand(h.server, path, protocols ? { protocols } : {});
  if (!isSession(session)) throw new Error(`upgrade refused: ${session.status} ${session.text}`);
  return session;
}

async function refused(
  h: ServerHarness,
  path: string,
  options: Parameters<typeof openRemoteCommand>[2] = {},
): Promise<UpgradeRefusal> {
  const session = await openRemoteCommand(h.server, path, options);
  if (isSession(session)) throw new Error("the upgrade was accepted");
  return session;
}

const SUCCESS = { metadata: {}, status: "Success" };

describe("pods/exec over WebSocket: protocol", () => {
  const h = useServer();
  const ns = "exec-protocol";
  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createRunningPod(h, ns, "web");
  });

  it("negotiates v5 when offered first, v4 when the client prefers or offers only it", async () => {
    expect((await open(h, execPath(ns, "web", ["true"]))).protocol).toBe(V5);
    expect((await open(h, execPath(ns, "web", ["true"]), [V4, V5])).protocol).toBe(V4);
    expect((await open(h, execPath(ns, "web", ["true"]), ["other", V4])).protocol).toBe(V4);
  });

  it("refuses an upgrade offering no served protocol with 403", async () => {
    const none = await refused(h, execPath(ns, "web", ["true"]), { protocols: ["channel.k8s.io"] });
    expect(none.status).toBe(403);
    expect(none.text).toBe("");
    const spdy = await rawHttpRequest(h.server, "POST", execPath(ns, "web", ["true"]), {
      connection: "Upgrade",
      upgrade: "SPDY/3.1",
      "x-stream-protocol-version": "v3.channel.k8s.io",
    });
    expect(spdy.status).toBe(403);
    expect(spdy.text).toBe(
      "unable to upgrade: unable to negotiate protocol: client supports [v3.channel.k8s.io], server accepts [v4.channel.k8s.io]\n",
    );
    const other = await rawHttpRequest(h.server, "GET", execPath(ns, "web", ["true"]), {
      connection: "Upgrade",
      upgrade: "h2c",
    });
    expect(other.status).toBe(400);
  });

  it("opens with an empty message on the lowest writable channel, then output and a Success status", async () => {
    const s = await open(h, execPath(ns, "web", ["sh", "-c", "echo out; echo err >&2"]));
    const outcome = await s.outcome;
    expect(outcome.messages[0]).toEqual({ channel: 1, data: Buffer.alloc(0) });
    expect(outcome).toMatchObject({ stdout: "out\n", stderr: "err\n", status: SUCCESS });
    expect(outcome.closeCode).toBe(1000);
    expect(outcome.messages.at(-1)?.channel).toBe(3);

    const errOnly = await open(h, execPath(ns, "web", ["echo", "x"], { stderr: "true" }));
    expect((await errOnly.outcome).messages[0]).toEqual({ channel: 2, data: Buffer.alloc(0) });
  });

  it.each([V5, V4])(
    "reports a non-zero exit as NonZeroExitCode with the ExitCode cause (%s)",
    async (p) => {
      const s = await open(h, execPath(ns, "web", ["sh", "-c", "exit 3"]), [p]);
      expect((await s.outcome).status).toEqual({
        metadata: {},
        status: "Failure",
        message:
          "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: "3" }] },
      });
    },
  );

  it("pipes stdin until the v5 close signal ends it", async () => {
    const s = await open(h, execPath(ns, "web", ["cat"], { stdin: "true", stdout: "true" }));
    s.send(0, "first ");
    await s.waitForStdout((out) => out === "first ");
    s.send(0, "second\n");
    s.closeStdin();
    expect(await s.outcome).toMatchObject({ stdout: "first second\n", status: SUCCESS });
  });

  it("carries binary stdin and stdout byte for byte", async () => {
    const s = await open(h, execPath(ns, "web", ["cat"], { stdin: "true", stdout: "true" }));
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    s.send(0, bytes);
    s.closeStdin();
    const outcome = await s.outcome;
    const out = Buffer.concat(outcome.messages.filter((m) => m.channel === 1).map((m) => m.data));
    expect(out.equals(bytes)).toBe(true);
  });

  it("answers an executable that does not exist with the runtime's InternalError", async () => {
    const s = await open(h, execPath(ns, "web", ["nosuch", "arg"]));
    const { status } = await s.outcome;
    expect(status).toMatchObject({ status: "Failure", reason: "InternalError", code: 500 });
    expect(status.message).toContain('exec: "nosuch": executable file not found in $PATH');
  });

  it("reads query flags as kube does: present and not false/0 is true", async () => {
    const s = await open(h, execPath(ns, "web", ["echo", "x"], { stdout: "", stderr: "0" }));
    expect(await s.outcome).toMatchObject({ stdout: "x\n", status: SUCCESS });
  });
});

describe("pods/exec: what runs inside", () => {
  const h = useServer();
  const ns = "exec-inside";
  const unregister: (() => void)[] = [];
  afterEach(() => {
    for (const u of unregister.splice(0)) u();
  });
  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createRunningPod(
      h,
      ns,
      "app",
      {
        hostname: "custom-host",
        containers: [
          {
            name: "main",
            image: "busybox",
            env: [
              { name: "GREETING", value: "hello" },
              { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
            ],
          },
          { name: "side", image: "busybox", command: ["sleep"], args: ["3600"] },
        ],
      },
      { labels: { app: "demo" } },
    );
  });

  it("runs the built-in shell with the container's environment and host name", async () => {
    const s = await open(
      h,
      execPath(ns, "app", ["sh", "-c", "env; hostname; pwd"], {
        stdout: "true",
        container: "main",
      }),
    );
    const { stdout } = await s.outcome;
    // The kubelet's variables for the `kubernetes` Service of `default` come after the
    // container's own (`kubelet_pods.go` makeEnvironmentVariables); the missing Secret's key is left out.
    expect(stdout).toBe(
      [
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOSTNAME=custom-host",
        "GREETING=hello",
        "KUBERNETES_SERVICE_HOST=10.96.0.1",
        "KUBERNETES_SERVICE_PORT=443",
        "KUBERNETES_SERVICE_PORT_HTTPS=443",
        "KUBERNETES_PORT=tcp://10.96.0.1:443",
        "KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443",
        "KUBERNETES_PORT_443_TCP_PROTO=tcp",
        "KUBERNETES_PORT_443_TCP_PORT=443",
        "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1",
        "HOME=/root",
        "custom-host",
        "/",
        "",
      ].join("\n"),
    );
  });

  it("keeps each container's file system between sessions, separate per container", async () => {
    const write = await open(
      h,
      execPath(ns, "app", ["sh", "-c", "echo kept > /tmp/f"], {
        stdout: "true",
        container: "main",
      }),
    );
    expect((await write.outcome).status).toEqual(SUCCESS);
    const read = await open(
      h,
      execPath(ns, "app", ["cat", "/tmp/f"], { stdout: "true", container: "main" }),
    );
    expect((await read.outcome).stdout).toBe("kept\n");
    const other = await open(
      h,
      execPath(ns, "app", ["cat", "/tmp/f"], { stdout: "true", stderr: "true", container: "side" }),
    );
    expect((await other.outcome).stderr).toBe(
      "cat: can't open '/tmp/f': No such file or directory\n",
    );
  });

  it("hands a registered handler argv, env, container and streams; its exit code is the status", async () => {
    let seen: ExecRequest | undefined;
    unregister.push(
      h.server.containers.onExec({ namespace: ns, pod: "app", container: "main" }, async (req) => {
        seen = req;
        req.stdout?.write(`argv=${req.command.join(",")}\n`);
        req.stderr?.write("to stderr\n");
        return 7;
      }),
    );
    const s = await open(
      h,
      execPath(ns, "app", ["my-tool", "--flag"], {
        stdout: "true",
        stderr: "true",
        container: "main",
      }),
    );
    const outcome = await s.outcome;
    expect(outcome).toMatchObject({ stdout: "argv=my-tool,--flag\n", stderr: "to stderr\n" });
    expect(outcome.status.details).toEqual({ causes: [{ reason: "ExitCode", message: "7" }] });
    expect(seen).toMatchObject({ namespace: ns, container: "main", tty: false, stdin: undefined });
    expect(seen?.env).toMatchObject({ GREETING: "hello", HOSTNAME: "custom-host" });
    expect(seen?.env).not.toHaveProperty("FROM_SECRET");
    expect((seen?.pod["metadata"] as { name: string }).name).toBe("app");
  });

  it("matches selectors by labels, pod pattern and container; later registrations win; unregistering restores", async () => {
    const echoName =
      (name: string) =>
      (req: ExecRequest): number => {
        req.stdout?.write(name);
        return 0;
      };
    unregister.push(h.server.containers.onExec({ labels: { app: "demo" } }, echoName("labels")));
    unregister.push(
      h.server.containers.onExec({ labels: { app: "other" } }, echoName("wrong-labels")),
    );
    unregister.push(h.server.containers.onExec({ container: "side" }, echoName("side")));
    const latest = h.server.containers.onExec({ pod: /^ap/ }, echoName("pattern"));
    const run = async (container: string): Promise<string> =>
      (await (await open(h, execPath(ns, "app", ["x"], { stdout: "true", container }))).outcome)
        .stdout;
    expect(await run("main")).toBe("pattern");
    expect(await run("side")).toBe("pattern");
    latest();
    expect(await run("main")).toBe("labels");
    expect(await run("side")).toBe("side");
    for (const u of unregister.splice(0)) u();
    expect(await run("main")).toBe("");
  });

  it("reports a StatusError a handler throws, and any other error as InternalError", async () => {
    unregister.push(
      h.server.containers.onExec({ pod: "app" }, (req) => {
        if (req.command[0] === "status") throw newBadRequest("handler said no");
        throw new Error("boom");
      }),
    );
    const a = await open(h, execPath(ns, "app", ["status"], { stdout: "true", container: "main" }));
    expect((await a.outcome).status).toEqual({
      metadata: {},
      status: "Failure",
      message: "handler said no",
      reason: "BadRequest",
      code: 400,
    });
    const b = await open(h, execPath(ns, "app", ["other"], { stdout: "true", container: "main" }));
    expect((await b.outcome).status).toMatchObject({
      reason: "InternalError",
      message: "Internal error occurred: boom",
    });
  });

  it("gives a TTY session terminal sizes from the resize channel, no stderr, and \\r\\n output from built-ins", async () => {
    const sizes: unknown[] = [];
    let sawStderr: unknown = "unset";
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    unregister.push(
      h.server.containers.onExec({ pod: "app", container: "side" }, async (req) => {
        sawStderr = req.stderr;
        req.resizes.on("resize", (size) => {
          sizes.push(size);
          if (sizes.length === 2) release();
        });
        await released;
        return 0;
      }),
    );
    const tty = { stdin: "true", stdout: "true", stderr: "true", tty: "true", container: "side" };
    const s = await open(h, execPath(ns, "app", ["x"], tty));
    s.resize(80, 24);
    s.send(4, "not json");
    s.resize(120, 40);
    expect((await s.outcome).status).toEqual(SUCCESS);
    expect(sizes).toEqual([
      { width: 80, height: 24 },
      { width: 120, height: 40 },
    ]);
    expect(sawStderr).toBeUndefined();

    const builtIn = await open(
      h,
      execPath(ns, "app", ["sh", "-c", "echo a; echo b >&2"], { ...tty, container: "main" }),
    );
    builtIn.closeStdin();
    expect((await builtIn.outcome).stdout).toBe("a\r\nb\r\n");
  });

  it("runs an interactive shell on a TTY: echo, prompt, Ctrl-C stops the running command", async () => {
    const s = await open(
      h,
      execPath(ns, "app", ["sh"], {
        stdin: "true",
        stdout: "true",
        tty: "true",
        container: "main",
      }),
    );
    await s.waitForStdout((out) => out.endsWith("/ # "));
    s.send(0, "echo hi\r");
    await s.waitForStdout((out) => out.endsWith("hi\r\n/ # "));
    s.send(0, "sleep 1000\r");
    await s.waitForStdout((out) => out.endsWith("sleep 1000\r\n"));
    s.send(0, "\x03");
    await s.waitForStdout((out) => out.endsWith("^C\r\n/ # "));
    s.send(0, "exit 4\r");
    const { status } = await s.outcome;
    expect(status.details).toEqual({ causes: [{ reason: "ExitCode", message: "4" }] });
  });

  it("aborts the handler's signal when the client goes away", async () => {
    let aborted = false;
    let started: () => void = () => undefined;
    const running = new Promise<void>((r) => (started = r));
    unregister.push(
      h.server.containers.onExec({ pod: "app" }, (req) => {
        started();
        return new Promise<number>((resolve) =>
          req.signal.addEventListener("abort", () => {
            aborted = true;
            resolve(0);
          }),
        );
      }),
    );
    const s = await open(h, execPath(ns, "app", ["x"], { stdout: "true", container: "main" }));
    await running;
    s.ws.terminate();
    await waitFor("the handler's signal to abort", () => Promise.resolve(aborted));
  });
});

describe("pods/exec and pods/attach: refusals before and at the upgrade", () => {
  const h = useServer();
  const ns = "exec-errors";
  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createRunningPod(h, ns, "web");
    await createRunningPod(h, ns, "multi", {
      initContainers: [{ name: "init", image: "busybox" }],
      containers: [
        { name: "a", image: "busybox" },
        { name: "b", image: "busybox" },
      ],
    });
    const unbound = await h.client.post(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: "unbound" },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    });
    expect(unbound.status).toBe(201);
    await createRunningPod(h, ns, "pending", {}, { running: false });
    await createRunningPod(h, ns, "done");
    await h.client.patch(
      `/api/v1/namespaces/${ns}/pods/done/status`,
      { status: { phase: "Succeeded" } },
      "application/merge-patch+json",
    );
  });

  it.each(["exec", "attach"])("404 for a missing pod (%s)", async (sub) => {
    const r = await refused(h, execPath(ns, "nope", ["true"], undefined, sub));
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: "NotFound", message: 'pods "nope" not found' });
  });

  it.each(["exec", "attach"])("400 for an unknown or unspecified container (%s)", async (sub) => {
    const bad = await refused(
      h,
      execPath(ns, "web", ["true"], { stdout: "true", container: "bad" }, sub),
    );
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      reason: "BadRequest",
      message: "container bad is not valid for pod web",
    });
    const unspecified = await refused(h, execPath(ns, "multi", ["true"], { stdout: "true" }, sub));
    expect(unspecified.json.message).toBe(
      "a container name must be specified for pod multi, choose one of: [init a b]",
    );
    const init = await open(
      h,
      execPath(ns, "multi", ["true"], { stdout: "true", container: "init" }),
    );
    expect((await init.outcome).status).toEqual(SUCCESS);
  });

  it("400 for a pod without a node", async () => {
    const r = await refused(h, execPath(ns, "unbound", ["true"]));
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("pod unbound does not have a host assigned");
  });

  it.each(["pending", "done"])(
    "a container that is not running (%s): InternalError after a v5 upgrade, the kubelet's 500 with v4",
    async (pod) => {
      const v5 = await open(h, execPath(ns, pod, ["true"]));
      expect((await v5.outcome).status).toEqual({
        metadata: {},
        status: "Failure",
        message:
          'Internal error occurred: unable to upgrade connection: container not found ("main")',
        reason: "InternalError",
        details: {
          causes: [{ message: 'unable to upgrade connection: container not found ("main")' }],
        },
        code: 500,
      });
      const v4 = await refused(h, execPath(ns, pod, ["true"]), { protocols: [V4] });
      expect(v4).toMatchObject({ status: 500, text: 'container not found ("main")' });
    },
  );

  it("a request for no stream at all is refused as the kubelet refuses it", async () => {
    const v4 = await refused(h, execPath(ns, "web", ["true"], {}), { protocols: [V4] });
    expect(v4).toMatchObject({
      status: 400,
      text: "you must specify at least 1 of stdin, stdout, stderr",
    });
    const v5 = await open(h, execPath(ns, "web", ["true"], {}));
    const outcome = await v5.outcome;
    expect(outcome.messages[0]).toEqual({ channel: 3, data: Buffer.alloc(0) });
    expect(outcome.status.message).toContain(
      "you must specify at least 1 of stdin, stdout, stderr",
    );
  });

  it.each(["exec", "attach", "portforward"])(
    "a plain GET or POST to %s is 400 Upgrade request required, after the pod checks; PUT is 405",
    async (sub) => {
      const path = `/api/v1/namespaces/${ns}/pods/web/${sub}?command=true&stdout=true`;
      expectStatus(await h.client.get(path), 400, "BadRequest");
      const post = await h.client.post(path, "");
      expectStatus(post, 400, "BadRequest");
      expect(post.json.message).toBe("Upgrade request required");
      expectStatus(
        await h.client.get(`/api/v1/namespaces/${ns}/pods/nope/${sub}`),
        404,
        "NotFound",
      );
      expect(
        (await h.client.get(`/api/v1/namespaces/${ns}/pods/unbound/${sub}`)).json.message,
      ).toBe("pod unbound does not have a host assigned");
      expectStatus(await h.client.put(path, {}), 405, "MethodNotAllowed");
    },
  );

  it("serves other requests that carry an Upgrade header as ordinary requests", async () => {
    const res = await rawHttpRequest(h.server, "GET", `/api/v1/namespaces/${ns}/pods/web`, {
      connection: "Upgrade",
      upgrade: "websocket",
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe("web");
  });

  it("applies injected failures to upgrades", async () => {
    h.server.faults.failNext(1, { code: 503, verbs: ["get"] });
    const r = await refused(h, execPath(ns, "web", ["true"]));
    expect(r.status).toBe(503);
    expect((await open(h, execPath(ns, "web", ["true"]))).protocol).toBe(V5);
  });
});

describe("pods/attach", () => {
  const h = useServer();
  const ns = "attach";
  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createRunningPod(h, ns, "app", {
      containers: [
        {
          name: "main",
          image: "busybox",
          stdin: true,
          command: ["/bin/server"],
          args: ["--port", "80"],
        },
      ],
    });
    await createRunningPod(h, ns, "quiet", {
      containers: [{ name: "main", image: "busybox" }],
    });
  });
  const attachPath = (pod: string, query: Record<string, string>): string =>
    execPath(ns, pod, [], query, "attach");

  it("streams what the container prints from now on, and echoes stdin into its output", async () => {
    h.server.appendPodLog(ns, "app", "main", "before attach\n");
    const s = await open(h, attachPath("app", { stdin: "true", stdout: "true", stderr: "true" }));
    h.server.appendPodLog(ns, "app", "main", "line one\n");
    await s.waitForStdout((out) => out === "line one\n");
    s.send(0, "typed\n");
    await s.waitForStdout((out) => out === "line one\ntyped\n");
    const exec = await open(
      h,
      execPath(ns, "app", ["sh", "-c", "echo via-proc > /proc/1/fd/1"], { stdout: "true" }),
    );
    await exec.outcome;
    await s.waitForStdout((out) => out.endsWith("via-proc\n"));
    const logs = await h.client.get(`/api/v1/namespaces/${ns}/pods/app/log`);
    expect(logs.text).toBe("before attach\nline one\ntyped\nvia-proc\n");
    s.ws.close();
  });

  it("ignores stdin for a container without stdin: true", async () => {
    const s = await open(h, attachPath("quiet", { stdin: "true", stdout: "true" }));
    s.send(0, "ignored\n");
    h.server.appendPodLog(ns, "quiet", "main", "printed\n");
    await s.waitForStdout((out) => out === "printed\n");
    s.ws.close();
  });

  it("ends with Success when the container stops running", async () => {
    await createRunningPod(h, ns, "stopping");
    const s = await open(h, attachPath("stopping", { stdout: "true" }));
    await h.client.patch(
      `/api/v1/namespaces/${ns}/pods/stopping/status`,
      { status: { phase: "Succeeded" } },
      "application/merge-patch+json",
    );
    expect((await s.outcome).status).toEqual(SUCCESS);
  });

  it("ends with Success when the pod is deleted", async () => {
    await createRunningPod(h, ns, "deleted");
    const s = await open(h, attachPath("deleted", { stdout: "true" }));
    expect((await h.client.delete(`/api/v1/namespaces/${ns}/pods/deleted`)).status).toBe(200);
    expect((await s.outcome).status).toEqual(SUCCESS);
  });

  it("hands a registered handler the container's command and args as argv", async () => {
    let argv: readonly string[] = [];
    const off = h.server.containers.onExec({ pod: "app" }, (req) => {
      argv = req.command;
      return 0;
    });
    const s = await open(h, attachPath("app", { stdout: "true" }));
    expect((await s.outcome).status).toEqual(SUCCESS);
    off();
    expect(argv).toEqual(["/bin/server", "--port", "80"]);
  });
});

describe("streaming sessions and the server's lifecycle", () => {
  const ns = "lifecycle";

  it("authenticates upgrades like every request", async () => {
    const server = await ApiServer.start({ auth: { tokens: { secret: "alice" } } });
    const client = new ApiClient(server.url, { token: "secret" });
    try {
      await createNamespace(client, ns);
      await createRunningPod({ server, client }, ns, "web");
      const anonymous = await openRemoteCommand(server, execPath(ns, "web", ["true"]));
      expect(isSession(anonymous)).toBe(false);
      // Anonymous (no credential): authorized like every request, 403 for system:anonymous.
      expect((anonymous as UpgradeRefusal).status).toBe(403);
      const wrong = await openRemoteCommand(server, execPath(ns, "web", ["true"]), {
        headers: { authorization: "Bearer wrong" },
      });
      expect((wrong as UpgradeRefusal).status).toBe(401);
      const authorized = await openRemoteCommand(server, execPath(ns, "web", ["echo", "ok"]), {
        headers: { authorization: "Bearer secret" },
      });
      if (!isSession(authorized)) throw new Error(authorized.text);
      expect((await authorized.outcome).stdout).toBe("ok\n");
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it("cuts open sessions on restart and on stop, aborting their handlers", async () => {
    const server = await ApiServer.start();
    const client = ApiClient.for(server);
    try {
      await createNamespace(client, ns);
      await createRunningPod({ server, client }, ns, "web");
      const aborted: string[] = [];
      server.containers.onExec(
        {},
        (req) =>
          new Promise<number>((resolve) =>
            req.signal.addEventListener("abort", () => {
              aborted.push(req.command[0]!);
              resolve(0);
            }),
          ),
      );
      const first = await openRemoteCommand(server, execPath(ns, "web", ["one"]));
      if (!isSession(first)) throw new Error(first.text);
      await server.faults.restart();
      expect((await first.outcome).status).toBeUndefined();
      await waitFor("the first handler to abort", () => Promise.resolve(aborted.includes("one")));
      const second = await openRemoteCommand(server, execPath(ns, "web", ["two"]));
      if (!isSession(second)) throw new Error(second.text);
      await server.stop();
      expect((await second.outcome).status).toBeUndefined();
      await waitFor("the second handler to abort", () => Promise.resolve(aborted.includes("two")));
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it("holds a dozen open sessions without Node's listener-leak warning, and stop ends them all", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on("warning", onWarning);
    const server = await ApiServer.start();
    const client = ApiClient.for(server);
    try {
      await createNamespace(client, ns);
      await createRunningPod({ server, client }, ns, "web");
      let started = 0;
      server.containers.onExec({}, (req) => {
        started++;
        return new Promise<number>((resolve) =>
          req.signal.addEventListener("abort", () => resolve(0)),
        );
      });
      const sessions = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          openRemoteCommand(server, execPath(ns, "web", [`s${i}`])),
        ),
      );
      await waitFor("every handler to start", () => Promise.resolve(started === 12));
      await server.stop();
      for (const session of sessions) {
        if (!isSession(session)) throw new Error(session.text);
        expect((await session.outcome).status).toBeUndefined();
      }
      // Node emits "warning" asynchronously.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await client.close();
      await server.stop();
    }
  });

  it("gives a re-created pod a fresh file system", async () => {
    const server = await ApiServer.start();
    const client = ApiClient.for(server);
    try {
      await createNamespace(client, ns);
      const h = { server, client };
      await createRunningPod(h, ns, "web");
      const write = await openRemoteCommand(
        server,
        execPath(ns, "web", ["sh", "-c", "echo x > /tmp/f"]),
      );
      if (!isSession(write)) throw new Error(write.text);
      await write.outcome;
      expect((await client.delete(`/api/v1/namespaces/${ns}/pods/web`)).status).toBe(200);
      await createRunningPod(h, ns, "web");
      const read = await openRemoteCommand(server, execPath(ns, "web", ["ls", "/tmp"]));
      if (!isSession(read)) throw new Error(read.text);
      expect((await read.outcome).stdout).toBe("");
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("pods/exec over SPDY/3.1 (kubectl up to 1.29)", () => {
  const h = useServer();
  const ns = "exec-spdy";
  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createRunningPod(h, ns, "web");
  });

  it("negotiates v4.channel.k8s.io, runs once the streams are open, and ends with the Status on the error stream", async () => {
    const path = execPath(ns, "web", ["sh", "-c", "cat; echo err >&2; exit 2"], {
      stdin: "true",
      stdout: "true",
      stderr: "true",
    });
    const { head, client, socket } = await openSpdyUpgrade(
      h.server.port,
      path,
      "v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io",
    );
    try {
      expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
      expect(head).toMatch(/\r\nX-Stream-Protocol-Version: v4.channel.k8s.io/);
      const error = client.openStream({ streamtype: "error" });
      const stdin = client.openStream({ streamtype: "stdin" });
      const stdout = client.openStream({ streamtype: "stdout" });
      const stderr = client.openStream({ streamtype: "stderr" });
      client.sendData(stdin, "over spdy\n", true);
      const status = await client.waitForStream(error, "the status", (s) => s.finished);
      expect(JSON.parse(status.data.toString())).toEqual({
        metadata: {},
        status: "Failure",
        message:
          "command terminated with non-zero exit code: error executing command [sh -c cat; echo err >&2; exit 2], exit code 2",
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: "2" }] },
      });
      expect(client.streams.get(stdout)?.data.toString()).toBe("over spdy\n");
      expect(client.streams.get(stderr)?.data.toString()).toBe("err\n");
    } finally {
      client.close();
      socket.destroy();
    }
  });

  it("passes terminal sizes from the resize stream to the handler", async () => {
    const sizes: unknown[] = [];
    const off = h.server.containers.onExec({ pod: "web" }, async (req) => {
      await new Promise<void>((resolve) =>
        req.resizes.on("resize", (size) => {
          sizes.push(size);
          if (sizes.length === 2) resolve();
        }),
      );
      return 0;
    });
    const path = execPath(ns, "web", ["x"], { stdin: "true", stdout: "true", tty: "true" });
    const { client, socket } = await openSpdyUpgrade(h.server.port, path, "v4.channel.k8s.io");
    try {
      const error = client.openStream({ streamtype: "error" });
      client.openStream({ streamtype: "stdin" });
      client.openStream({ streamtype: "stdout" });
      const resize = client.openStream({ streamtype: "resize" });
      client.sendData(resize, '{"Width":80,"Height":24}\n{"Width":100,');
      client.sendData(resize, '"Height":30}\n');
      const status = await client.waitForStream(error, "the status", (s) => s.finished);
      expect(JSON.parse(status.data.toString())).toEqual(SUCCESS);
      expect(sizes).toEqual([
        { width: 80, height: 24 },
        { width: 100, height: 30 },
      ]);
    } finally {
      off();
      client.close();
      socket.destroy();
    }
  });

  it("answers a container that is not running with the kubelet's 500 before upgrading", async () => {
    await createRunningPod(h, ns, "pending", {}, { running: false });
    const res = await rawHttpRequest(h.server, "POST", execPath(ns, "pending", ["true"]), {
      connection: "Upgrade",
      upgrade: "SPDY/3.1",
      "x-stream-protocol-version": "v4.channel.k8s.io",
    });
    expect(res).toMatchObject({ status: 500, text: 'container not found ("main")' });
  });
});

describe("pods/exec with the simulated cluster", () => {
  const h = useServer({ cluster: true });
  const ns = "exec-cluster";
  beforeAll(async () => {
    await createNamespace(h.client, ns);
  });

  it("execs into a pod once the scheduler bound it and its kubelet runs it", async () => {
    const res = await h.client.post(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: "scheduled" },
      // Without a command busybox runs `sh`, which exits at once without stdin, as on a node.
      spec: { containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }] },
    });
    expect(res.status, res.text).toBe(201);
    await waitFor("the pod to run", async () => {
      const pod = await h.client.get(`/api/v1/namespaces/${ns}/pods/scheduled`);
      return pod.json.status?.phase === "Running";
    });
    const s = await open(h, execPath(ns, "scheduled", ["hostname"], { stdout: "true" }));
    expect(await s.outcome).toMatchObject({ stdout: "scheduled\n", status: SUCCESS });
  });
});
