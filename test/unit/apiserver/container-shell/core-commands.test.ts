import { describe, expect, it } from "vitest";
import { newContainer, run, sh } from "./run-shell.js";

describe("the simulated userland", () => {
  it("echo: -n, -e escapes", async () => {
    expect((await run(["echo", "a", "b"])).stdout).toBe("a b\n");
    expect((await run(["echo", "-n", "a"])).stdout).toBe("a");
    expect((await run(["echo", "-e", "a\\tb\\nc\\cignored"])).stdout).toBe("a\tb\nc");
  });

  it("cat: files in order, - for stdin, errors per file with status 1", async () => {
    const container = newContainer();
    container.fs.writeFile("/tmp/a", "A\n");
    const r = await run(["cat", "/tmp/a", "-", "/missing", "/tmp"], { container, stdin: "IN\n" });
    expect(r.stdout).toBe("A\nIN\n");
    expect(r.stderr).toBe(
      "cat: can't open '/missing': No such file or directory\ncat: read error: Is a directory\n",
    );
    expect(r.status).toBe(1);
  });

  it("env and printenv print the environment; env runs a command with changes", async () => {
    const env = { PATH: "/bin", A: "1" };
    expect((await run(["env"], { env })).stdout).toBe("PATH=/bin\nA=1\n");
    expect((await run(["env", "B=2", "printenv", "A", "B"], { env })).stdout).toBe("1\n2\n");
    expect((await run(["env", "-i", "env"], { env })).stdout).toBe("");
    expect((await run(["printenv", "NOPE"], { env })).status).toBe(1);
  });

  it("hostname prints the container's host name", async () => {
    expect((await run(["hostname"])).stdout).toBe("web-0\n");
  });

  it("mkdir -p, ls (plain, -a, -l, several operands), rm -r", async () => {
    const container = newContainer();
    expect((await sh("mkdir /tmp/x/y", { container })).stderr).toBe(
      "mkdir: can't create directory '/tmp/x/y': No such file or directory\n",
    );
    await sh("mkdir -p /tmp/x/y && echo hi > /tmp/x/f && touch /tmp/x/.hidden", { container });
    expect((await run(["ls", "/tmp/x"], { container })).stdout).toBe("f\ny\n");
    expect((await run(["ls", "-a", "/tmp/x"], { container })).stdout).toBe(
      ".\n..\n.hidden\nf\ny\n",
    );
    expect((await run(["ls", "-l", "/tmp/x"], { container })).stdout).toBe(
      "-rw-r--r--    1 root     root             3 Jan  2 03:04 f\n" +
        "drwxr-xr-x    2 root     root          4096 Jan  2 03:04 y\n",
    );
    expect((await run(["ls", "/tmp/x", "/tmp/x/f"], { container })).stdout).toBe(
      "/tmp/x/f\n\n/tmp/x:\nf\ny\n",
    );
    const missing = await run(["ls", "/nope"], { container });
    expect(missing).toMatchObject({ status: 1, stderr: "ls: /nope: No such file or directory\n" });
    expect((await run(["rm", "/tmp/x"], { container })).stderr).toBe(
      "rm: '/tmp/x' is a directory\n",
    );
    expect((await run(["rm", "-r", "/tmp/x"], { container })).status).toBe(0);
    expect(container.fs.lookup("/tmp/x")).toBeUndefined();
    expect((await run(["rm", "-f", "/tmp/x"], { container })).status).toBe(0);
    expect((await run(["rm", "/tmp/x"], { container })).stderr).toBe(
      "rm: can't remove '/tmp/x': No such file or directory\n",
    );
  });

  it("refuses unknown options", async () => {
    expect(await run(["ls", "-z"])).toMatchObject({
      status: 1,
      stderr: "ls: unrecognized option: z\n",
    });
  });

  it("tail: last lines or bytes, or from an offset with +N (kubectl cp --retries)", async () => {
    const input = "1\n2\n3\n4\n";
    expect((await run(["tail", "-n", "2"], { stdin: input })).stdout).toBe("3\n4\n");
    expect((await run(["tail", "-n+3"], { stdin: input })).stdout).toBe("3\n4\n");
    expect((await run(["tail", "-c", "3"], { stdin: input })).stdout).toBe("\n4\n");
    expect((await run(["sh", "-c", "echo abcdef | tail -c+3"])).stdout).toBe("cdef\n");
    expect((await run(["tail", "-c", "x"])).stderr).toBe("tail: invalid number 'x'\n");
  });

  it("test and [: files, strings, numbers, negation, malformed expressions", async () => {
    const container = newContainer();
    container.fs.writeFile("/tmp/f", "x");
    const status = async (...args: string[]): Promise<number> =>
      (await run(args, { container })).status;
    expect(await status("test", "-d", "/tmp")).toBe(0);
    expect(await status("test", "-d", "/tmp/f")).toBe(1);
    expect(await status("test", "-f", "/tmp/f")).toBe(0);
    expect(await status("test", "-e", "/nope")).toBe(1);
    expect(await status("test", "!", "-e", "/nope")).toBe(0);
    expect(await status("[", "a", "=", "a", "]")).toBe(0);
    expect(await status("[", "3", "-lt", "2", "]")).toBe(1);
    expect(await status("[", "a", "=", "a")).toBe(2);
    expect(await status("test", "x", "-eq", "1")).toBe(2);
  });

  it("sleep waits on the server clock and is stopped by the signal with 130", async () => {
    const container = newContainer();
    const done = run(["sleep", "1.5"], { container });
    await container.clock.waitForTimers(1);
    container.clock.advance(1_499);
    let finished = false;
    void done.then(() => (finished = true));
    await Promise.resolve();
    expect(finished).toBe(false);
    container.clock.advance(1);
    expect((await done).status).toBe(0);

    const aborter = new AbortController();
    const killed = run(["sleep", "60"], { container, signal: aborter.signal });
    await container.clock.waitForTimers(1);
    aborter.abort();
    expect((await killed).status).toBe(130);
    expect((await run(["sleep", "x"], { container })).stderr).toBe("sleep: invalid number 'x'\n");
  });
});
