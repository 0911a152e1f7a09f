/**
 * exec, attach and cp from the client against the embedded server over HTTPS with token
 * authentication: the simulated kubelet makes pods Running, the built-in command set and
 * registered handlers run "inside" the containers.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { text } from "node:stream/consumers";
import type { Pod } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  PodCopyCommandError,
  PodStreams,
  isBadRequest,
  isNotFound,
  isUnauthorized,
} from "kubekit";
import type { ExecRequest } from "@kubekit/apiserver";
import { eventually, useServer } from "../../support/server-test-helpers.js";

const NS = "default";

describe("exec, attach and cp against the embedded server", () => {
  const h = useServer({
    tls: true,
    auth: { tokens: { "admin-token": { name: "admin", groups: ["system:masters"] } } },
    cluster: { controllers: [], nodes: 1 },
  });
  let cs: Clientset;
  const localDirs: string[] = [];

  async function localDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), "kubekit-exec-"));
    localDirs.push(dir);
    return dir;
  }

  async function runningPod(name: string, containers: Pod["spec"] = undefined): Promise<void> {
    await cs.coreV1.pods(NS).create({
      metadata: { name },
      spec: containers ?? {
        containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }],
      },
    });
    await eventually(`${name} Running`, async () => {
      const pod = await cs.coreV1.pods(NS).get(name);
      return pod.status?.phase === "Running" ? pod : undefined;
    });
  }

  beforeAll(async () => {
    // The server's kubeconfig carries its CA and the bearer token.
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    await runningPod("shell");
    await runningPod("duo", {
      containers: [
        { name: "app", image: "busybox", stdin: true, tty: true, command: ["my-app"] },
        { name: "sidecar", image: "busybox", command: ["sleep", "3600"] },
      ],
    });
  });

  afterAll(async () => {
    for (const dir of localDirs) await rm(dir, { recursive: true, force: true });
  });

  it("runs a built-in command and reads its output over v5 with TLS and a token", async () => {
    const session = await cs.coreV1.pods(NS).exec("shell", { command: ["echo", "hi", "there"] });
    const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
    expect(session.protocol).toBe("v5.channel.k8s.io");
    expect(stdout).toBe("hi there\n");
    expect(result.exitCode).toBe(0);
  });

  it("separates stdout from stderr and returns a non-zero exit code as a result", async () => {
    const session = await new PodStreams(cs).exec(NS, "shell", {
      command: ["sh", "-c", "echo out; echo err >&2; exit 3"],
    });
    const [stdout, stderr, result] = await Promise.all([
      text(session.stdout!),
      text(session.stderr!),
      session.status,
    ]);
    expect(stdout).toBe("out\n");
    expect(stderr).toBe("err\n");
    expect(result.exitCode).toBe(3);
    expect(result.status?.reason).toBe("NonZeroExitCode");
  });

  it("pipes stdin to cat, which ends with v5's close signal", async () => {
    const session = await cs.coreV1.pods(NS).exec("shell", { command: ["cat"], stdin: true });
    const output = text(session.stdout!);
    session.stdin!.write("line 1\n");
    session.stdin!.end("line 2\n");
    expect(await output).toBe("line 1\nline 2\n");
    expect((await session.status).exitCode).toBe(0);
  });

  it("hands argv, stdin and terminal resizes to a registered handler", async () => {
    const seen: { command: readonly string[]; tty: boolean; sizes: unknown[] } = {
      command: [],
      tty: false,
      sizes: [],
    };
    const unregister = h.server.containers.onExec(
      { pod: "shell" },
      async (request: ExecRequest) => {
        seen.command = request.command;
        seen.tty = request.tty;
        request.resizes.on("resize", (size) => seen.sizes.push(size));
        for await (const chunk of request.stdin!) {
          request.stdout?.write(`got ${(chunk as Buffer).toString()}`);
          if ((chunk as Buffer).toString().includes("quit")) break;
        }
        return 5;
      },
    );
    try {
      const session = await cs.coreV1.pods(NS).exec("shell", {
        command: ["top", "-b"],
        stdin: true,
        tty: true,
      });
      session.resize({ width: 100, height: 30 });
      session.stdin!.write("quit");
      const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
      expect(stdout).toBe("got quit");
      expect(result.exitCode).toBe(5);
      expect(seen.command).toEqual(["top", "-b"]);
      expect(seen.tty).toBe(true);
      expect(seen.sizes).toEqual([{ width: 100, height: 30 }]);
    } finally {
      unregister();
    }
  });

  it("attaches to a container's process with the same session", async () => {
    let command: readonly string[] = [];
    const unregister = h.server.containers.onExec(
      { pod: "duo", container: "app" },
      async (request) => {
        command = request.command;
        for await (const chunk of request.stdin!) {
          request.stdout?.write(`app saw ${(chunk as Buffer).toString()}`);
          break;
        }
        return 0;
      },
    );
    try {
      const session = await cs.coreV1
        .pods(NS)
        .attach("duo", { container: "app", stdin: true, tty: true });
      session.stdin!.write("ping");
      const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
      expect(stdout).toBe("app saw ping");
      expect(result.exitCode).toBe(0);
      expect(command).toEqual(["my-app"]);
    } finally {
      unregister();
    }
  });

  it("copies a directory into the container and back out", async () => {
    const dir = await localDir();
    const source = path.join(dir, "site");
    await mkdir(path.join(source, "css"), { recursive: true });
    await writeFile(path.join(source, "index.html"), "<h1>hello</h1>\n");
    await writeFile(path.join(source, "css", "main.css"), "body { color: red }\n");
    const mkdirSrv = await cs.coreV1.pods(NS).exec("shell", { command: ["mkdir", "-p", "/srv"] });
    expect((await mkdirSrv.status).exitCode).toBe(0);
    // /srv is a directory: the source is copied into it under its own name.
    await cs.coreV1.pods(NS).copyToPod("shell", { source, destination: "/srv" });
    const listing = await cs.coreV1.pods(NS).exec("shell", { command: ["ls", "/srv/site"] });
    expect(await text(listing.stdout!)).toBe("css\nindex.html\n");

    const back = path.join(dir, "back");
    const result = await cs.coreV1
      .pods(NS)
      .copyFromPod("shell", { source: "/srv/site", destination: back });
    expect(result).toEqual({ files: 2, skipped: [] });
    expect(await readFile(path.join(back, "index.html"), "utf8")).toBe("<h1>hello</h1>\n");
    expect(await readFile(path.join(back, "css", "main.css"), "utf8")).toBe(
      "body { color: red }\n",
    );
  });

  it("copies a single file to a new path and back, in a chosen container", async () => {
    const dir = await localDir();
    const source = path.join(dir, "notes.txt");
    await writeFile(source, "remember\n");
    const streams = new PodStreams(cs);
    await streams.copyToPod(NS, "duo", {
      source,
      destination: "/tmp/renamed.txt",
      container: "sidecar",
    });
    const out = path.join(dir, "out.txt");
    await streams.copyFromPod(NS, "duo", {
      source: "/tmp/renamed.txt",
      destination: out,
      container: "sidecar",
    });
    expect(await readFile(out, "utf8")).toBe("remember\n");
    await expect(
      streams.copyFromPod(NS, "duo", {
        source: "/tmp/renamed.txt",
        destination: path.join(dir, "other.txt"),
        container: "app",
      }),
    ).rejects.toBeInstanceOf(PodCopyCommandError);
  });

  it("reports a missing source in the container as tar's failure", async () => {
    const dir = await localDir();
    const err = await cs.coreV1
      .pods(NS)
      .copyFromPod("shell", { source: "/no/such/path", destination: path.join(dir, "x") })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PodCopyCommandError);
    expect((err as PodCopyCommandError).exitCode).not.toBe(0);
    expect((err as PodCopyCommandError).stderr).toContain("no/such/path: No such file");
    await expect(stat(path.join(dir, "x"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("throws the server's Status: missing pod, unknown container, pod not running", async () => {
    const pods = cs.coreV1.pods(NS);
    const missing = await pods.exec("nope", { command: ["true"] }).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);

    const badContainer = await pods
      .exec("duo", { command: ["true"], container: "ghost" })
      .catch((e: unknown) => e);
    expect(isBadRequest(badContainer)).toBe(true);
    expect((badContainer as Error).message).toContain("ghost");

    await pods.create({
      metadata: { name: "unscheduled" },
      spec: {
        containers: [{ name: "main", image: "busybox" }],
        nodeSelector: { "no-such-label": "x" },
      },
    });
    const pending = await pods.exec("unscheduled", { command: ["true"] }).catch((e: unknown) => e);
    expect(isBadRequest(pending)).toBe(true);
  });

  it("is refused with a wrong token like any request", async () => {
    const wrongToken = new Clientset({
      ...h.server.kubeConfig().restConfig(),
      qps: -1,
      credentials: {
        kind: "token",
        get: () => Promise.resolve({ headers: { Authorization: "Bearer wrong" } }),
        invalidate: () => undefined,
      },
    });
    const err = await wrongToken.coreV1
      .pods(NS)
      .exec("shell", { command: ["true"] })
      .catch((e: unknown) => e);
    expect(isUnauthorized(err)).toBe(true);
  });
});
