/**
 * copyToPod / copyFromPod against a scripted kube-style WebSocket server whose "container"
 * answers `test -d` and `tar` with in-memory archives: the argv kubectl uses, the archive
 * layout, kubectl's path checks on what a container sends, and the error paths.
 */
import { mkdtemp, mkdir, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pack, extract } from "tar-stream";
import type { Header } from "tar-stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CredentialSource,
  noopLogger,
  PodCopyArchiveError,
  PodCopyCommandError,
  PodStreams,
  RESTClient,
} from "kubekit";
import type { ServerSession } from "./remote-command-test-server.js";
import { startRemoteCommandServer } from "./remote-command-test-server.js";
import { rejectionOf } from "../../support/rejection.js";
import { waitFor } from "../../support/server-test-helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "kubekit-cp-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** One archive entry: a header and, for files, its content. */
interface ArchiveEntry {
  readonly header: Partial<Header> & Pick<Header, "name">;
  readonly content?: string;
}

async function tarOf(entries: readonly ArchiveEntry[]): Promise<Buffer> {
  const archive = pack();
  for (const { header, content } of entries) {
    if (content !== undefined) archive.entry({ type: "file", ...header }, content);
    else archive.entry(header);
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface ExtractedEntry {
  readonly name: string;
  readonly type: string;
  readonly mode: number;
  readonly linkname: string | null;
  readonly content: string;
}

async function untar(bytes: Buffer): Promise<ExtractedEntry[]> {
  const extractor = extract();
  extractor.end(bytes);
  const out: ExtractedEntry[] = [];
  for await (const entry of extractor) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    out.push({
      name: entry.header.name,
      type: entry.header.type,
      mode: entry.header.mode,
      linkname: entry.header.linkname,
      content: Buffer.concat(chunks).toString(),
    });
  }
  return out;
}

/** What the scripted container does for one exec. */
type Container = (command: string[], session: ServerSession) => void | Promise<void>;

async function podStreams(
  container: Container,
  protocols?: readonly string[],
): Promise<{ streams: PodStreams; commands: string[][] }> {
  const commands: string[][] = [];
  const server = await startRemoteCommandServer(
    async (session) => {
      const command = session.url.searchParams.getAll("command");
      commands.push(command);
      await container(command, session);
    },
    protocols !== undefined ? { protocols } : {},
  );
  cleanups.push(() => server.close());
  const client = new RESTClient(
    { host: server.url, tls: {}, credentials: anonymous, qps: -1, burst: 0 },
    { logger: noopLogger },
  );
  return { streams: new PodStreams(client), commands };
}

/** The bytes of stdin up to v5's close signal. */
async function stdinOf(session: ServerSession): Promise<Buffer> {
  await session.next(255);
  return Buffer.concat(session.received.filter(([c]) => c === 0).map(([, d]) => d));
}

describe("copyFromPod", () => {
  it("runs kubectl's `tar cf - SOURCE` and writes a file to the destination path", async () => {
    const archive = await tarOf([
      { header: { name: "data/report.txt", mode: 0o750 }, content: "numbers" },
    ]);
    const { streams, commands } = await podStreams((_command, s) => {
      s.send(2, "tar: Removing leading `/' from member names\n");
      s.send(1, archive);
      s.exit(0);
    });
    const dir = await tempDir();
    const result = await streams.copyFromPod("ns", "p", {
      source: "/data/report.txt",
      destination: path.join(dir, "copy.txt"),
      container: "app",
    });
    expect(commands).toEqual([["tar", "cf", "-", "/data/report.txt"]]);
    expect(result).toEqual({ files: 1, skipped: [] });
    expect(await readFile(path.join(dir, "copy.txt"), "utf8")).toBe("numbers");
    expect((await stat(path.join(dir, "copy.txt"))).mode & 0o100).toBe(0o100);
  });

  it("writes a directory's content under the destination", async () => {
    const archive = await tarOf([
      { header: { name: "srv/site/", type: "directory", mode: 0o755 } },
      { header: { name: "srv/site/index.html" }, content: "<h1>hi</h1>" },
      { header: { name: "srv/site/empty/", type: "directory", mode: 0o755 } },
      { header: { name: "srv/site/css/main.css" }, content: "body{}" },
    ]);
    const { streams } = await podStreams((_command, s) => {
      s.send(1, archive);
      s.exit(0);
    });
    const dir = await tempDir();
    const destination = path.join(dir, "site");
    const result = await streams.copyFromPod("ns", "p", { source: "/srv/site/", destination });
    expect(result.files).toBe(2);
    expect(await readFile(path.join(destination, "index.html"), "utf8")).toBe("<h1>hi</h1>");
    expect(await readFile(path.join(destination, "css", "main.css"), "utf8")).toBe("body{}");
    expect((await stat(path.join(destination, "empty"))).isDirectory()).toBe(true);
  });

  it("skips entries that would leave the destination, symlinks and hard links", async () => {
    const archive = await tarOf([
      { header: { name: "srv/site/../../../escaped.txt" }, content: "evil" },
      { header: { name: "srv/site/link", type: "symlink", linkname: "/etc/passwd" } },
      { header: { name: "srv/site/hard", type: "link", linkname: "srv/site/ok.txt" } },
      { header: { name: "srv/site/ok.txt" }, content: "fine" },
    ]);
    const { streams } = await podStreams((_command, s) => {
      s.send(1, archive);
      s.exit(0);
    });
    const dir = await tempDir();
    const destination = path.join(dir, "out", "site");
    const result = await streams.copyFromPod("ns", "p", { source: "/srv/site", destination });
    expect(result).toEqual({
      files: 1,
      skipped: [
        { name: "srv/site/../../../escaped.txt", reason: "outside-destination" },
        { name: "srv/site/link", reason: "symlink" },
        { name: "srv/site/hard", reason: "unsupported-type" },
      ],
    });
    expect(await readFile(path.join(destination, "ok.txt"), "utf8")).toBe("fine");
    await expect(stat(path.join(dir, "escaped.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(stat(path.join(destination, "link"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("rejects an archive with an entry outside the source (kubectl's corrupted tar)", async () => {
    const archive = await tarOf([
      { header: { name: "srv/site/a.txt" }, content: "a" },
      { header: { name: "etc/cron.d/evil" }, content: "* * * * * root sh" },
      { header: { name: "srv/site/b.txt" }, content: "b" },
    ]);
    const { streams } = await podStreams((_command, s) => {
      s.send(1, archive);
      s.exit(0);
    });
    const dir = await tempDir();
    const err = await rejectionOf(
      streams.copyFromPod("ns", "p", { source: "/srv/site", destination: dir }),
    );
    expect(err).toBeInstanceOf(PodCopyArchiveError);
    expect((err as PodCopyArchiveError).entry).toBe("etc/cron.d/evil");
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a");
    await expect(stat(path.join(dir, "b.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("rejects output that is not a tar archive", async () => {
    const { streams } = await podStreams((_command, s) => {
      s.send(1, Buffer.alloc(1024, 0x41));
      s.exit(0);
    });
    const err = await rejectionOf(
      streams.copyFromPod("ns", "p", { source: "/x", destination: await tempDir() }),
    );
    expect(err).toBeInstanceOf(PodCopyArchiveError);
  });

  it("quotes at most a few KiB of an entry's name, keeping the whole name on the error", async () => {
    const name = `etc/${"n".repeat(100_000)}`;
    const archive = await tarOf([{ header: { name }, content: "x" }]);
    const { streams } = await podStreams((_command, s) => {
      s.send(1, archive);
      s.exit(0);
    });
    const err = await rejectionOf(
      streams.copyFromPod("ns", "p", { source: "/srv", destination: await tempDir() }),
    );
    expect(err).toBeInstanceOf(PodCopyArchiveError);
    expect((err as PodCopyArchiveError).entry).toBe(name);
    expect((err as Error).message).toMatch(
      /^tar contents corrupted: entry "etc\/n{4092}"… \(100004 bytes in all\) is outside srv$/,
    );
  });

  it("rejects with the signal's reason when aborted while the archive arrives", async () => {
    const controller = new AbortController();
    const archive = await tarOf([{ header: { name: "data/big.bin" }, content: "b".repeat(4096) }]);
    const { streams } = await podStreams((_command, s) => {
      s.send(1, archive.subarray(0, 1024)); // the header and a part of the content
    });
    const dir = await tempDir();
    const copying = rejectionOf(
      streams.copyFromPod("ns", "p", {
        source: "/data/big.bin",
        destination: path.join(dir, "big.bin"),
        signal: controller.signal,
      }),
    );
    await waitFor("the file being written", () =>
      stat(path.join(dir, "big.bin")).then(
        (s) => s.size > 0,
        () => false,
      ),
    );
    controller.abort(new Error("cancelled by the test"));
    const err = await copying;
    expect(err).not.toBeInstanceOf(PodCopyArchiveError);
    expect(err).toMatchObject({ message: "cancelled by the test" });
  });

  it("reports tar's failure with its exit code and stderr", async () => {
    const { streams } = await podStreams((_command, s) => {
      s.send(2, "tar: /nope: Cannot stat: No such file or directory\n");
      s.exit(2);
    });
    const err = await rejectionOf(
      streams.copyFromPod("ns", "web-0", { source: "/nope", destination: await tempDir() }),
    );
    expect(err).toBeInstanceOf(PodCopyCommandError);
    const failure = err as PodCopyCommandError;
    expect(failure.exitCode).toBe(2);
    expect(failure.command).toEqual(["tar", "cf", "-", "/nope"]);
    expect(failure.stderr).toContain("Cannot stat");
    expect(failure.message).toBe(
      '"tar cf - /nope" in pod ns/web-0 exited with code 2: tar: /nope: Cannot stat: No such file or directory',
    );
  });
});

describe("copyToPod", () => {
  it("copies a directory into an existing remote directory with kubectl's argv", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "app");
    await mkdir(path.join(source, "conf", "empty"), { recursive: true });
    await writeFile(path.join(source, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    await writeFile(path.join(source, "conf", "app.yaml"), "port: 80\n");
    await symlink("run.sh", path.join(source, "start"));
    let received: ExtractedEntry[] = [];
    const { streams, commands } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.exit(0); // /opt is a directory
        return;
      }
      received = await untar(await stdinOf(s));
      s.exit(0);
    });
    await streams.copyToPod("ns", "p", { source, destination: "/opt", container: "app" });
    expect(commands).toEqual([
      ["test", "-d", "/opt"],
      ["tar", "-xmf", "-", "-C", "/opt"],
    ]);
    expect(received.map((e) => [e.name, e.type])).toEqual([
      ["app", "directory"],
      ["app/conf", "directory"],
      ["app/conf/app.yaml", "file"],
      ["app/conf/empty", "directory"],
      ["app/run.sh", "file"],
      ["app/start", "symlink"],
    ]);
    const script = received.find((e) => e.name === "app/run.sh");
    expect(script?.content).toBe("#!/bin/sh\necho hi\n");
    expect((script?.mode ?? 0) & 0o777).toBe(0o755);
    expect(received.find((e) => e.name === "app/start")?.linkname).toBe("run.sh");
  });

  it("copies a file to a new remote path named after the destination", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "local.txt");
    await writeFile(source, "payload");
    let received: ExtractedEntry[] = [];
    const { streams, commands } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.exit(1); // not a directory
        return;
      }
      received = await untar(await stdinOf(s));
      s.exit(0);
    });
    await streams.copyToPod("ns", "p", { source, destination: "/tmp/renamed.txt" });
    expect(commands[1]).toEqual(["tar", "-xmf", "-", "-C", "/tmp"]);
    expect(received.map((e) => [e.name, e.content])).toEqual([["renamed.txt", "payload"]]);
  });

  it("treats a failing `test` (no such binary) as not a directory", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "f.txt");
    await writeFile(source, "x");
    const { streams, commands } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.send(3, JSON.stringify({ status: "Failure", reason: "InternalError", code: 500 }));
        s.ws.close(1000);
        return;
      }
      await stdinOf(s);
      s.exit(0);
    });
    await streams.copyToPod("ns", "p", { source, destination: "relative/f.txt" });
    expect(commands[1]).toEqual(["tar", "-xmf", "-", "-C", "relative"]);
  });

  it("pads the archive to whole 10 KiB records so tar ends without stdin's end under v4", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "big.bin");
    await writeFile(source, Buffer.alloc(20_000, 3));
    let received: ExtractedEntry[] = [];
    const { streams } = await podStreams(
      async (command, s) => {
        if (command[0] === "test") {
          s.exit(1);
          return;
        }
        const chunks: Buffer[] = [];
        let length = 0;
        // tar reads whole records and stops at the end-of-archive blocks.
        while (length === 0 || length % 10_240 !== 0) {
          const data = await s.next(0);
          chunks.push(data);
          length += data.length;
        }
        received = await untar(Buffer.concat(chunks));
        s.exit(0);
      },
      ["v4.channel.k8s.io"],
    );
    await streams.copyToPod("ns", "p", { source, destination: "/data/big.bin" });
    expect(received).toHaveLength(1);
    expect(received[0]?.content.length).toBe(20_000);
  });

  it("reports tar's failure in the container", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "f.txt");
    await writeFile(source, "x");
    const { streams } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.exit(1);
        return;
      }
      s.send(2, "tar: /readonly: Cannot open: Read-only file system\n");
      s.exit(2);
    });
    const err = await rejectionOf(
      streams.copyToPod("ns", "p", { source, destination: "/readonly/f.txt" }),
    );
    expect(err).toBeInstanceOf(PodCopyCommandError);
    expect((err as PodCopyCommandError).stderr).toContain("Read-only file system");
  });

  it("fails with the file system's error before connecting when the source is missing", async () => {
    const { streams, commands } = await podStreams((_command, s) => s.exit(0));
    const err = await rejectionOf(
      streams.copyToPod("ns", "p", { source: "/no/such/file", destination: "/tmp" }),
    );
    expect(err).toMatchObject({ code: "ENOENT" });
    expect(commands).toHaveLength(0);
  });

  it("rejects with the signal's reason when aborted while the archive is being sent", async () => {
    const dir = await tempDir();
    const source = path.join(dir, "big.bin");
    await writeFile(source, Buffer.alloc(32 * 1024 * 1024, 1));
    const controller = new AbortController();
    const { streams } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.exit(1);
        return;
      }
      await s.next(0);
      controller.abort(new Error("cancelled by the test"));
    });
    const err = await rejectionOf(
      streams.copyToPod("ns", "p", {
        source,
        destination: "/data/big.bin",
        signal: controller.signal,
      }),
    );
    expect(err).toMatchObject({ message: "cancelled by the test" });
  });

  it("refuses empty paths before connecting, as kubectl", async () => {
    const { streams, commands } = await podStreams((_command, s) => s.exit(0));
    await expect(streams.copyToPod("ns", "p", { source: "", destination: "/x" })).rejects.toThrow(
      TypeError,
    );
    await expect(streams.copyFromPod("ns", "p", { source: "/x", destination: "" })).rejects.toThrow(
      /filepath can not be empty/,
    );
    expect(commands).toHaveLength(0);
  });

  it("keeps a copied symlink's target as written", async () => {
    const dir = await tempDir();
    await symlink("../outside", path.join(dir, "link"));
    expect(await readlink(path.join(dir, "link"))).toBe("../outside");
    let received: ExtractedEntry[] = [];
    const { streams } = await podStreams(async (command, s) => {
      if (command[0] === "test") {
        s.exit(1);
        return;
      }
      received = await untar(await stdinOf(s));
      s.exit(0);
    });
    await streams.copyToPod("ns", "p", { source: path.join(dir, "link"), destination: "/l" });
    expect(received.map((e) => [e.name, e.type, e.linkname])).toEqual([
      ["l", "symlink", "../outside"],
    ]);
  });
});
