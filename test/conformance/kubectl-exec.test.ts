import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  type KubectlResult,
  warnIfNoKubectl,
  succeeded,
  useKubectlSession,
} from "../support/kubectl.js";

warnIfNoKubectl("the kubectl exec/attach/cp conformance tests");
/** util-linux `script`, to give `kubectl exec -it` a terminal. */
const hasScript = ((): boolean => {
  try {
    accessSync("/usr/bin/script", constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

/**
 * kubectl exec, attach and cp against `kubekit serve` without the simulated cluster: the pod
 * is bound in its manifest and made Running through the status subresource, as a kubelet
 * would, so that what is tested is the server's streaming alone. Run with the kubectl of two
 * minors (the dispatcher picks kubectl by the server's version): 1.32 streams over WebSocket
 * (v5.channel.k8s.io), 1.29 over SPDY/3.1 (v4.channel.k8s.io).
 */
describe.skipIf(!hasKubectl).each([
  { minor: "32", transport: "WebSocket" },
  { minor: "29", transport: "SPDY" },
])("kubectl 1.$minor exec, attach and cp against kubekit serve ($transport)", ({ minor }) => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  async function runningPod(name: string, phase = "Running"): Promise<void> {
    const manifest = await session.writeManifest(
      `${name}.yaml`,
      [
        "apiVersion: v1",
        "kind: Pod",
        "metadata:",
        `  name: ${name}`,
        "spec:",
        "  nodeName: node-1",
        "  containers:",
        '  - {name: main, image: "busybox:1.36", stdin: true, env: [{name: GREETING, value: hello}]}',
      ].join("\n"),
    );
    succeeded(await kubectl("create", "-f", manifest));
    succeeded(
      await kubectl(
        "patch",
        "pod",
        name,
        "--subresource=status",
        "--type=merge",
        "-p",
        JSON.stringify({ status: { phase } }),
      ),
    );
  }

  beforeAll(async () => {
    session = await KubectlSession.start(["--no-cluster", "--minor-version", minor]);
    await runningPod("web");
    await runningPod("pending", "Pending");
    await runningPod("done", "Succeeded");
  }, 60_000);

  afterAll(async () => {
    await session?.stop();
  });

  it("runs the kubectl the dispatcher picks for the server's minor", async () => {
    const version = JSON.parse(succeeded(await kubectl("version", "--client", "-o", "json"))) as {
      clientVersion: { minor: string };
    };
    // A build that is not a release reports "32+" (the dispatcher's own kubectl does).
    expect(version.clientVersion.minor.replace(/\+$/, "")).toBe(minor);
  });

  it("kubectl exec POD -- echo hi prints hi", async () => {
    expect(succeeded(await kubectl("exec", "web", "--", "echo", "hi"))).toBe("hi\n");
  });

  it("propagates the exit code of the command", async () => {
    const r = await kubectl("exec", "web", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
    expect(r).toMatchObject({ code: 3, stdout: "out\n" });
    expect(r.stderr).toBe("err\ncommand terminated with exit code 3\n");
    const notFound = await kubectl("exec", "web", "--", "sh", "-c", "nosuch");
    expect(notFound.code).toBe(127);
    expect(notFound.stderr).toContain("sh: nosuch: not found");
  });

  it("kubectl exec -i POD -- cat copies stdin to stdout", async () => {
    const input = "line one\nline two\n".repeat(1000);
    const r = await session.run(["exec", "-i", "web", "--", "cat"], { stdin: input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(input);
  });

  it("sees the container's environment and host name", async () => {
    const out = succeeded(
      await kubectl("exec", "web", "--", "sh", "-c", 'echo "$GREETING $HOSTNAME"; hostname'),
    );
    expect(out).toBe("hello web\nweb\n");
  });

  it("reports a missing executable, a bad container, a pod that is not running or completed", async () => {
    const missing = await kubectl("exec", "web", "--", "nosuch");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('exec: "nosuch": executable file not found in $PATH');
    const container = await kubectl("exec", "web", "-c", "bad", "--", "ls");
    expect(container.code).toBe(1);
    expect(container.stderr).toContain("container bad is not valid for pod web");
    const pending = await kubectl("exec", "pending", "--", "ls");
    expect(pending.code).toBe(1);
    expect(pending.stderr).toContain('unable to upgrade connection: container not found ("main")');
    const done = await kubectl("exec", "done", "--", "ls");
    expect(done.stderr).toContain(
      "cannot exec into a container in a completed pod; current phase is Succeeded",
    );
  });

  it("kubectl exec -it without a terminal falls back to no TTY", async () => {
    const r = await session.run(["exec", "-it", "web", "--", "sh", "-c", "echo no-tty"], {
      stdin: "",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("no-tty\n");
    expect(r.stderr).toContain("Unable to use a TTY");
  });

  it.skipIf(!hasScript)(
    "kubectl exec -it POD -- sh runs an interactive shell on a terminal",
    async () => {
      const command = [
        "kubectl",
        "--kubeconfig",
        session.kubeconfigPath,
        "--cache-dir",
        join(session.dir, "cache"),
        "exec",
        "-it",
        "web",
        "--",
        "sh",
      ].join(" ");
      const child = spawn("script", ["-qefc", command, "/dev/null"], {
        env: { ...process.env, HOME: join(session.dir, "home"), TERM: "xterm" },
        stdio: ["pipe", "pipe", "pipe"],
        timeout: 30_000,
      });
      let out = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => (out += chunk));
      const waitFor = async (text: string): Promise<void> => {
        const deadline = Date.now() + 15_000;
        while (!out.includes(text)) {
          if (Date.now() > deadline)
            throw new Error(`no ${JSON.stringify(text)} in ${JSON.stringify(out)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      await waitFor("/ # ");
      child.stdin.write("echo tty-ok\r");
      await waitFor("tty-ok\r\n/ # ");
      child.stdin.write("exit 4\r");
      expect(await exited).toBe(4);
      expect(out).toContain("echo tty-ok\r\ntty-ok\r\n");
    },
  );

  it("kubectl cp copies a file and a directory to the pod and back", async () => {
    const local = join(session.dir, "cp");
    await mkdir(join(local, "tree", "sub"), { recursive: true });
    await writeFile(join(local, "one.txt"), "single file\n");
    await writeFile(join(local, "tree", "a.txt"), "a\n");
    await writeFile(join(local, "tree", "sub", "b.txt"), "b\n");

    succeeded(await kubectl("cp", join(local, "one.txt"), "web:/tmp/one.txt"));
    expect(succeeded(await kubectl("exec", "web", "--", "cat", "/tmp/one.txt"))).toBe(
      "single file\n",
    );
    succeeded(await kubectl("cp", join(local, "tree"), "web:/tmp/tree"));
    expect(
      succeeded(
        await kubectl("exec", "web", "--", "cat", "/tmp/tree/a.txt", "/tmp/tree/sub/b.txt"),
      ),
    ).toBe("a\nb\n");
    // Into an existing directory: kubectl asks `test -d` first and copies into it.
    succeeded(await kubectl("cp", join(local, "one.txt"), "web:/tmp/tree"));
    expect(succeeded(await kubectl("exec", "web", "--", "ls", "/tmp/tree"))).toBe(
      "a.txt\none.txt\nsub\n",
    );

    succeeded(await kubectl("cp", "web:/tmp/one.txt", join(local, "back.txt")));
    expect(await readFile(join(local, "back.txt"), "utf8")).toBe("single file\n");
    succeeded(await kubectl("cp", "web:/tmp/tree", join(local, "tree-back")));
    expect(await readFile(join(local, "tree-back", "a.txt"), "utf8")).toBe("a\n");
    expect(await readFile(join(local, "tree-back", "sub", "b.txt"), "utf8")).toBe("b\n");
    expect(await readFile(join(local, "tree-back", "one.txt"), "utf8")).toBe("single file\n");
  });

  it("kubectl attach streams what the container prints", async () => {
    const attach = session.stream(["attach", "web"]);
    try {
      // Print through the main process's stdout until the attached kubectl has shown it
      // (it may not have connected yet when the first line is written).
      const deadline = Date.now() + 15_000;
      while (!attach.stdout.includes("from-main")) {
        if (Date.now() > deadline)
          throw new Error(`attach printed: ${attach.stdout}${attach.stderr}`);
        succeeded(await kubectl("exec", "web", "--", "sh", "-c", "echo from-main > /proc/1/fd/1"));
        await attach
          .waitFor((s) => s.stdout.includes("from-main"), "the attached output", 500)
          .catch(() => undefined);
      }
      expect(attach.stdout).toMatch(/^(from-main\n)+$/);
    } finally {
      await attach.stop();
    }
    expect(succeeded(await kubectl("logs", "web"))).toContain("from-main\n");
  });
});

describe.skipIf(!hasKubectl)(
  "kubectl exec against kubekit serve with its simulated cluster",
  () => {
    const session = useKubectlSession();
    const kubectl = (...args: string[]): Promise<KubectlResult> => session().run(args);

    it("kubectl run, wait until Ready, exec and cp, as against a real cluster", async () => {
      succeeded(await kubectl("run", "shell", "--image=busybox:1.36", "--", "sleep", "3600"));
      succeeded(await kubectl("wait", "--for=condition=Ready", "pod/shell", "--timeout=30s"));
      expect(
        succeeded(await kubectl("exec", "shell", "--", "sh", "-c", "hostname && echo $HOSTNAME")),
      ).toBe("shell\nshell\n");
      const file = join(session().dir, "greeting.txt");
      await writeFile(file, "hello cluster\n");
      succeeded(await kubectl("cp", file, "shell:/tmp/greeting.txt"));
      expect(succeeded(await kubectl("exec", "shell", "--", "cat", "/tmp/greeting.txt"))).toBe(
        "hello cluster\n",
      );
    });
  },
);
