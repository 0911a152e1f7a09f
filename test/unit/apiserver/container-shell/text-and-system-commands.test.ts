import { describe, expect, it } from "vitest";
import { newContainer, run, sh } from "./run-shell.js";

describe("text filters: wc, head, grep, sed", () => {
  it("counts lines, words and bytes", async () => {
    expect((await sh("printf 'a b\\nc\\n' | wc -l")).stdout).toBe("2\n");
    expect((await sh("printf 'a b\\nc\\n' | wc")).stdout).toBe("      2       3       6\n");
  });

  it("prints the first lines or bytes", async () => {
    expect((await sh("seq 20 | head -n 3")).stdout).toBe("1\n2\n3\n");
    expect((await sh("seq 20 | head -2; seq 5 | head -c 3")).stdout).toBe("1\n2\n1\n2");
  });

  it("greps with -v -i -c -q -n -E -o, and exits 1 without a match", async () => {
    const input = "alpha\nBeta\ngamma\n";
    expect(await run(["grep", "^[ab]"], { stdin: input })).toMatchObject({
      status: 0,
      stdout: "alpha\n",
    });
    expect((await run(["grep", "-in", "beta"], { stdin: input })).stdout).toBe("2:Beta\n");
    expect((await run(["grep", "-vc", "a"], { stdin: input })).stdout).toBe("0\n");
    expect((await run(["grep", "-Eo", "m+a"], { stdin: input })).stdout).toBe("mma\n");
    expect((await run(["grep", "x\\(y\\|z\\)"], { stdin: "xz\n" })).stdout).toBe("xz\n");
    expect(await run(["grep", "-q", "zeta"], { stdin: input })).toMatchObject({
      status: 1,
      stdout: "",
    });
  });

  it("edits with sed s///g, -n with p, addresses and d", async () => {
    expect((await sh("echo aaa | sed s/a/b/")).stdout).toBe("baa\n");
    expect((await sh("echo a-b-c | sed 's/-/+/g'")).stdout).toBe("a+b+c\n");
    expect((await sh("seq 5 | sed -n '2p;$p'")).stdout).toBe("2\n5\n");
    expect((await sh("seq 4 | sed '/3/d; 1d'")).stdout).toBe("2\n4\n");
    expect((await sh("echo key=v | sed -n 's/\\(.*\\)=\\(.*\\)/\\2 \\1/p'")).stdout).toBe(
      "v key\n",
    );
    expect(await run(["sed", "y/a/b/"], { stdin: "a\n" })).toMatchObject({
      status: 1,
      stderr: "sed: unsupported command y\n",
    });
  });
});

describe("seq, printf, date, uptime, whoami, id", () => {
  it("prints sequences", async () => {
    expect((await run(["seq", "3"])).stdout).toBe("1\n2\n3\n");
    expect((await run(["seq", "-s", ",", "2", "2", "7"])).stdout).toBe("2,4,6\n");
    expect((await run(["seq", "-w", "8", "10"])).stdout).toBe("08\n09\n10\n");
    expect(await run(["seq", "x"])).toMatchObject({
      status: 1,
      stderr: "seq: invalid number 'x'\n",
    });
  });

  it("formats with printf, reusing the format for extra arguments", async () => {
    expect((await run(["printf", "%s=%d\\n", "a", "1", "b", "2"])).stdout).toBe("a=1\nb=2\n");
    expect(
      (await run(["printf", "[%5s][%-3s][%03d][%x][%.2f]%%\\n", "ab", "c", "7", "255", "3.14159"]))
        .stdout,
    ).toBe("[   ab][c  ][007][ff][3.14]%\n");
  });

  it("tells the server clock's time and the container's uptime", async () => {
    const container = newContainer();
    expect((await run(["date"], { container })).stdout).toBe("Fri Jan  2 03:04:05 UTC 2026\n");
    expect((await run(["date", "+%s %Y-%m-%dT%H:%M:%S"], { container })).stdout).toBe(
      "1767323045 2026-01-02T03:04:05\n",
    );
    container.clock.advance(3_600_000);
    expect((await run(["date", "-u", "+%T"], { container })).stdout).toBe("04:04:05\n");
    expect((await run(["uptime"], { container })).stdout).toMatch(
      /^ 04:04:05 up \d+ min, {2}load average: 0\.00, 0\.00, 0\.00\n$/,
    );
  });

  it("runs as root", async () => {
    expect((await sh("whoami; id; id -u")).stdout).toBe(
      "root\nuid=0(root) gid=0(root) groups=0(root),10(wheel)\n0\n",
    );
  });
});
