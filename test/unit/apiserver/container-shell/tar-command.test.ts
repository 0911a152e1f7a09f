import { describe, expect, it } from "vitest";
import { extract, pack } from "tar-stream";
import { newContainer, run } from "./run-shell.js";

/** The members of an archive: name, type and content. */
async function members(archive: Buffer): Promise<[string, string, string][]> {
  const reader = extract();
  reader.end(archive);
  const out: [string, string, string][] = [];
  for await (const entry of reader) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    out.push([entry.header.name, entry.header.type, Buffer.concat(chunks).toString("utf8")]);
  }
  return out;
}

/** A ustar archive of `files` (names ending in / are directories). */
async function archiveOf(files: Record<string, string>): Promise<Buffer> {
  const p = pack();
  const collected = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of p as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  })();
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith("/")) p.entry({ name, type: "directory", mode: 0o755 });
    else p.entry({ name, mode: 0o600, mtime: new Date("2020-05-06T00:00:00Z") }, content);
  }
  p.finalize();
  return collected;
}

describe("the simulated tar", () => {
  it("creates an archive as `kubectl cp POD:/path` runs it (tar cf - /path), leading / removed", async () => {
    const container = newContainer();
    await run(["sh", "-c", "mkdir -p /data/sub && echo a > /data/a && echo b > /data/sub/b"], {
      container,
    });
    const r = await run(["tar", "cf", "-", "/data"], { container });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("tar: removing leading '/' from member names\n");
    expect(await members(r.stdoutBytes)).toEqual([
      ["data/", "directory", ""],
      ["data/a", "file", "a\n"],
      ["data/sub/", "directory", ""],
      ["data/sub/b", "file", "b\n"],
    ]);
  });

  it("honours -C before the operands and reports missing ones with status 1", async () => {
    const container = newContainer();
    container.fs.writeFile("/tmp/f", "F");
    const r = await run(["tar", "-cf", "-", "-C", "/tmp", "f", "missing"], { container });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("tar: missing: No such file or directory\n");
    expect(await members(r.stdoutBytes)).toEqual([["f", "file", "F"]]);
  });

  it.each([
    [["tar", "-xmf", "-", "-C", "/dest"]],
    [["tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/dest"]],
    [["tar", "xf", "-", "-C", "/dest"]],
    [["tar", "-x", "--directory=/dest", "-f", "-"]],
  ])("extracts as `kubectl cp` runs it: %j", async (argv) => {
    const container = newContainer();
    container.fs.mkdir("/dest");
    const archive = await archiveOf({ "dir/": "", "dir/sub/x.txt": "X", "top.txt": "T" });
    const r = await run(argv, { container, stdin: archive });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(container.fs.readFile("/dest/dir/sub/x.txt").toString()).toBe("X");
    expect(container.fs.readFile("/dest/top.txt").toString()).toBe("T");
    const file = container.fs.lookup("/dest/top.txt")!;
    expect(file.mode).toBe(0o600);
    // -m: modification times are the extraction time, not the archive's.
    expect(file.mtimeMs).toBe(
      argv.some((a) => a.includes("m"))
        ? container.clock.now()
        : Date.parse("2020-05-06T00:00:00Z"),
    );
  });

  it("round-trips a tree through create and extract, and lists with t", async () => {
    const container = newContainer();
    await run(["sh", "-c", "mkdir -p /src/d && echo 1 > /src/d/one && mkdir /copy"], { container });
    const archive = (await run(["tar", "cf", "-", "-C", "/src", "d"], { container })).stdoutBytes;
    expect((await run(["tar", "tf", "-"], { container, stdin: archive })).stdout).toBe(
      "d/\nd/one\n",
    );
    await run(["tar", "xf", "-", "-C", "/copy"], { container, stdin: archive });
    expect(container.fs.readFile("/copy/d/one").toString()).toBe("1\n");
  });

  it("refuses a missing -C directory, an empty or corrupt archive, and unknown options", async () => {
    const container = newContainer();
    const noDir = await run(["tar", "xf", "-", "-C", "/nope"], { container, stdin: "x" });
    expect(noDir).toMatchObject({
      status: 1,
      stderr: "tar: can't change directory to '/nope': No such file or directory\n",
    });
    expect((await run(["tar", "xf", "-"], { container })).stderr).toBe("tar: short read\n");
    const corrupt = await run(["tar", "xf", "-"], { container, stdin: "not a tar".repeat(100) });
    expect(corrupt).toMatchObject({ status: 1, stderr: "tar: invalid tar magic\n" });
    expect((await run(["tar", "czf", "-", "/tmp"], { container })).stderr).toBe(
      "tar: compressed archives are not supported\n",
    );
    expect((await run(["tar", "f", "-"], { container })).stderr).toBe(
      "tar: must specify one of -c, -t, -x\n",
    );
  });
});
