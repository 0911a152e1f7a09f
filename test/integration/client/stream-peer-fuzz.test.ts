/**
 * Fixed-seed fuzzing of the client's upgraded connections against hostile peers: exec
 * sessions fed random channel messages (any channel, text, empty, fragmented, close
 * signals, Status pieces, garbage and oversized error channels, any ending), port-forward
 * connections fed random prefixes, data, error text and frames, and `copyFromPod` fed
 * mutated tar archives. Every case must end with a result or a typed error whose message
 * stays short; well-formed cases must give exactly what the peer sent.
 */
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { buffer } from "node:stream/consumers";
import { pack } from "tar-stream";
import type { WebSocket } from "ws";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CredentialSource,
  type Logger,
  noopLogger,
  PodCopyArchiveError,
  PodCopyCommandError,
  PodStreams,
  RESTClient,
  StatusError,
  StreamClosedError,
  StreamErrorChannelTooLargeError,
  StreamProtocolError,
} from "kubekit";
import { encodePortPrefix } from "kubekit/apimachinery";
import type { HostileStreamServer } from "../../support/hostile-stream-server.js";
import { sendOnChannel, startHostileStreamServer } from "../../support/hostile-stream-server.js";
import { SeededRandom } from "../../support/seeded-random.js";

const EXEC_SEED = 0x5eed_e8ec;
const EXEC_CASES = 150;
const PORT_FORWARD_SEED = 0x5eed_f0d0;
const PORT_FORWARD_CASES = 120;
const TAR_SEED = 0x5eed_7a40;
const TAR_CASES = 120;
/** Longer than any message a case may produce (the excerpt is 4 KiB). */
const MAX_MESSAGE_CHARS = 4600;
/** More than the 64 KiB the client keeps of an error channel. */
const ERROR_FLOOD_BYTES = 70 * 1024;

const servers: HostileStreamServer[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

async function serve(
  script: Parameters<typeof startHostileStreamServer>[0],
  protocols?: readonly string[],
): Promise<HostileStreamServer> {
  const server = await startHostileStreamServer(script, protocols);
  servers.push(server);
  return server;
}

function streamsFor(server: HostileStreamServer, logger: Logger = noopLogger): PodStreams {
  return new PodStreams(
    new RESTClient(
      { host: server.url, tls: {}, credentials: anonymous, qps: -1, burst: 0 },
      { logger },
    ),
  );
}

/** The case number a request is for: the pod is named `case-N`. */
function caseOf(url: URL): number {
  return Number(/\/pods\/case-(\d+)\//.exec(url.pathname)?.[1]);
}

function randomBytes(rng: SeededRandom, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = rng.int(0, 256);
  return bytes;
}

function sendRaw(ws: WebSocket, data: Buffer | string, binary: boolean): Promise<void> {
  return new Promise((resolve) => ws.send(data, { binary }, () => resolve()));
}

/** Sends a channel message in two fragments. */
async function sendFragmented(ws: WebSocket, channel: number, data: Buffer): Promise<void> {
  const message = Buffer.concat([Buffer.of(channel), data]);
  const cut = Math.floor(message.length / 2);
  await new Promise<void>((resolve) =>
    ws.send(message.subarray(0, cut), { binary: true, fin: false }, () => resolve()),
  );
  await new Promise<void>((resolve) =>
    ws.send(message.subarray(cut), { binary: true, fin: true }, () => resolve()),
  );
}

/** Ends the connection one of the ways a peer can. */
async function endConnection(rng: SeededRandom, ws: WebSocket): Promise<"normal" | "other"> {
  switch (rng.int(0, 4)) {
    case 0:
      ws.terminate();
      return "other";
    case 1:
      ws.close(rng.int(4000, 5000), "x".repeat(rng.int(0, 100)));
      return "other";
    default:
      ws.close(1000);
      return "normal";
  }
}

/** The Status kubelet sends for `exitCode`. */
function exitStatus(exitCode: number): Buffer {
  return Buffer.from(
    JSON.stringify(
      exitCode === 0
        ? { metadata: {}, status: "Success" }
        : {
            metadata: {},
            status: "Failure",
            reason: "NonZeroExitCode",
            message: `command terminated with non-zero exit code: exit status ${exitCode}`,
            details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
          },
    ),
  );
}

/** What an exec case's peer did, for the cases whose outcome is known. */
interface ExecModel {
  /** A text or empty message, or junk on the error channel: no result to expect. */
  broken: boolean;
  stdout: Buffer[];
  stdoutEnded: boolean;
  exitCode: number | undefined;
  ending: "normal" | "other";
}

/** One exec case's peer: random messages, then an ending; fills `model`. */
async function hostileExec(
  rng: SeededRandom,
  ws: WebSocket,
  protocol: string,
  model: ExecModel,
): Promise<void> {
  const steps = rng.int(0, 12);
  for (let step = 0; step < steps && ws.readyState === ws.OPEN; step++) {
    const kind = rng.int(0, 12);
    if (kind <= 2) {
      const data = randomBytes(rng, rng.int(0, 2048));
      if (rng.chance(0.2)) await sendFragmented(ws, 1, data);
      else await sendOnChannel(ws, 1, data);
      if (!model.stdoutEnded) model.stdout.push(data);
    } else if (kind === 3) {
      await sendOnChannel(ws, 2, randomBytes(rng, rng.int(0, 512)));
    } else if (kind === 4) {
      // stdin, resize and channels kube does not use: dropped by the client
      await sendOnChannel(ws, rng.pick([0, 4, 5, 17, 128, 254]), randomBytes(rng, rng.int(0, 64)));
    } else if (kind === 5) {
      const channel = rng.pick([0, 1, 2, 3, 9]);
      await sendOnChannel(ws, 255, rng.chance(0.1) ? Buffer.alloc(0) : Buffer.of(channel));
      if (channel === 1 && protocol === "v5.channel.k8s.io") model.stdoutEnded = true;
    } else if (kind === 6) {
      model.broken = true;
      await sendRaw(ws, rng.chance(0.5) ? Buffer.alloc(0) : "a text message", rng.chance(0.5));
    } else if (kind === 7 && model.exitCode === undefined) {
      const exitCode = rng.chance(0.5) ? 0 : rng.int(1, 256);
      const status = exitStatus(exitCode);
      const cut = rng.int(0, status.length + 1);
      await sendOnChannel(ws, 3, status.subarray(0, cut));
      await sendOnChannel(ws, 3, status.subarray(cut));
      model.exitCode = exitCode;
    } else if (kind === 8) {
      model.broken = true;
      await sendOnChannel(ws, 3, randomBytes(rng, rng.int(0, rng.chance(0.3) ? 6000 : 300)));
    } else if (kind === 9) {
      model.broken = true;
      await sendOnChannel(ws, 3, Buffer.alloc(ERROR_FLOOD_BYTES, rng.pick(["{", "x", "é"])));
    } else {
      ws.ping();
    }
  }
  if (ws.readyState === ws.OPEN) model.ending = await endConnection(rng, ws);
  else model.broken = true;
}

describe("exec against fuzzed peers", () => {
  it(`ends every case with a result or a typed error (seed 0x${EXEC_SEED.toString(16)}, ${EXEC_CASES} cases)`, async () => {
    const base = new SeededRandom(EXEC_SEED);
    const models = new Map<number, ExecModel>();
    const script =
      (protocol: string) =>
      async ({ ws, url }: { ws: WebSocket; url: URL }) => {
        const model = models.get(caseOf(url))!;
        await hostileExec(base.derive(caseOf(url)), ws, protocol, model);
      };
    const v5 = streamsFor(await serve(script("v5.channel.k8s.io")));
    const v4 = streamsFor(await serve(script("v4.channel.k8s.io"), ["v4.channel.k8s.io"]));
    for (let n = 0; n < EXEC_CASES; n++) {
      const what = `exec case ${n} of seed 0x${EXEC_SEED.toString(16)}`;
      const model: ExecModel = {
        broken: false,
        stdout: [],
        stdoutEnded: false,
        exitCode: undefined,
        ending: "other",
      };
      models.set(n, model);
      const tty = n % 3 === 0;
      const session = await (n % 2 === 0 ? v5 : v4).exec("ns", `case-${n}`, {
        command: ["fuzz"],
        tty,
        stdin: n % 5 === 0,
      });
      const [stdout, , outcome] = await Promise.all([
        buffer(session.stdout!),
        session.stderr ? buffer(session.stderr) : undefined,
        session.status.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
      ]);
      if ("error" in outcome) {
        const error = outcome.error;
        const typed =
          error instanceof StatusError ||
          error instanceof StreamProtocolError ||
          error instanceof StreamClosedError;
        expect(typed, `${what}: ${String(error)}`).toBe(true);
        expect((error as Error).message.length, what).toBeLessThan(MAX_MESSAGE_CHARS);
        if (error instanceof StreamErrorChannelTooLargeError) {
          expect(error.keptBytes, what).toBe(64 * 1024);
        }
      } else {
        expect(outcome.result.exitCode, what).toBeGreaterThanOrEqual(0);
      }
      if (!model.broken && model.ending === "normal") {
        const exitCode = "result" in outcome ? outcome.result.exitCode : outcome.error;
        expect(exitCode, what).toBe(model.exitCode ?? 0);
        expect(stdout.equals(Buffer.concat(model.stdout)), what).toBe(true);
      }
    }
  });
});

/** What a port-forward case's peer did. */
interface PortForwardModel {
  /** A wrong or missing prefix, a text or empty message: the client fails the connection. */
  broken: boolean;
  errorBytes: number;
  data: Buffer[];
  ending: "normal" | "other";
}

/** One port-forward connection's peer: prefixes (maybe wrong), messages, an ending. */
async function hostilePortForward(
  rng: SeededRandom,
  ws: WebSocket,
  port: number,
  model: PortForwardModel,
): Promise<void> {
  const prefix = encodePortPrefix(port);
  const prefixes = rng.int(0, 6);
  if (prefixes <= 2) {
    await sendOnChannel(ws, 0, prefix);
    await sendOnChannel(ws, 1, prefix);
  } else if (prefixes === 3) {
    // byte by byte, interleaved
    for (const byte of prefix) {
      await sendOnChannel(ws, 1, Buffer.of(byte));
      await sendOnChannel(ws, 0, Buffer.of(byte));
    }
  } else if (prefixes === 4) {
    model.broken = true;
    await sendOnChannel(ws, rng.int(0, 2), encodePortPrefix((port + rng.int(1, 100)) & 0xffff));
  } else {
    // data first: its first two bytes are taken for the prefix; they match by chance only
    const data = randomBytes(rng, rng.int(0, 8));
    model.broken = data.length < 2 || !data.subarray(0, 2).equals(prefix);
    await sendOnChannel(ws, 0, data);
    if (!model.broken) model.data.push(data.subarray(2));
    await sendOnChannel(ws, 1, prefix);
    if (data.length < 2) return void ws.terminate();
  }
  const steps = rng.int(0, 10);
  for (let step = 0; step < steps && ws.readyState === ws.OPEN; step++) {
    const kind = rng.int(0, 10);
    if (kind <= 3) {
      const data = randomBytes(rng, rng.int(0, 4096));
      if (rng.chance(0.2)) await sendFragmented(ws, 0, data);
      else await sendOnChannel(ws, 0, data);
      model.data.push(data);
    } else if (kind === 4) {
      const text = Buffer.from(rng.pick(["", "error forwarding port: refused", "\u0000\n"]));
      await sendOnChannel(ws, 1, text);
      model.errorBytes += text.length;
    } else if (kind === 5) {
      await sendOnChannel(ws, 1, Buffer.alloc(ERROR_FLOOD_BYTES, "E"));
      model.errorBytes += ERROR_FLOOD_BYTES;
    } else if (kind === 6) {
      await sendOnChannel(ws, rng.int(2, 256), randomBytes(rng, rng.int(0, 64)));
    } else if (kind === 7) {
      model.broken = true;
      await sendRaw(ws, rng.chance(0.5) ? Buffer.alloc(0) : "text", rng.chance(0.5));
    } else {
      ws.ping();
    }
  }
  if (ws.readyState === ws.OPEN) model.ending = await endConnection(rng, ws);
  else model.broken = true;
}

describe("port-forward against fuzzed peers", () => {
  it(`ends every connection alone, logging short lines (seed 0x${PORT_FORWARD_SEED.toString(16)}, ${PORT_FORWARD_CASES} cases)`, async () => {
    const base = new SeededRandom(PORT_FORWARD_SEED);
    const warnings: string[] = [];
    const logger: Logger = { ...noopLogger, warn: (message) => void warnings.push(message) };
    let connections = 0;
    const models: PortForwardModel[] = [];
    const server = await serve(async ({ ws, url }) => {
      const n = connections++;
      const model: PortForwardModel = { broken: false, errorBytes: 0, data: [], ending: "other" };
      models[n] = model;
      await hostilePortForward(base.derive(n), ws, Number(url.searchParams.get("ports")), model);
    });
    const forward = await streamsFor(server, logger).portForward("ns", "web", [":8080"], {
      address: "127.0.0.1",
    });
    for (let n = 0; n < PORT_FORWARD_CASES; n++) {
      const what = `port-forward case ${n} of seed 0x${PORT_FORWARD_SEED.toString(16)}`;
      const local = connect(forward.ports[0]!.local, "127.0.0.1");
      local.on("error", () => undefined);
      const chunks: Buffer[] = [];
      local.on("data", (chunk: Buffer) => chunks.push(chunk));
      let ended = false;
      local.once("end", () => (ended = true));
      if (n % 4 === 0) local.write(`request ${n}`);
      const warned = warnings.length;
      // The connection's warning is logged before the local connection is reset.
      await new Promise((resolve) => local.once("close", resolve));
      const model = models[n]!;
      const logged = warnings.slice(warned);
      for (const line of logged) expect(line.length, what).toBeLessThan(MAX_MESSAGE_CHARS);
      if (!model.broken && model.errorBytes > 0) expect(logged, what).toHaveLength(1);
      if (!model.broken && model.ending === "normal" && model.errorBytes === 0) {
        expect(Buffer.concat(chunks).equals(Buffer.concat(model.data)), what).toBe(true);
        expect(ended, what).toBe(true);
        expect(logged, what).toEqual([]);
      }
    }
    await forward.close();
  });
});

/** A tar header's checksum field, recomputed after a mutation (ustar: 6 octal digits, NUL, space). */
function fixChecksum(block: Buffer): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
}

/** A random archive `tar cf - /src` could have sent, before mutation. */
async function randomArchive(rng: SeededRandom): Promise<Buffer> {
  const archive = pack();
  const names = ["src", "src/a", "src/b", "src/a/c", "src/../x", "src/./d", "src/é", "other/e"];
  const entries = rng.int(0, 6);
  for (let i = 0; i < entries; i++) {
    let name = rng.pick(names);
    if (rng.chance(0.1)) name = `${rng.pick(["src", "other"])}/${"n".repeat(rng.int(100, 20_000))}`;
    const type = rng.pick(["file", "file", "directory", "symlink", "link"] as const);
    if (type === "file") {
      archive.entry(
        { name, type, mode: rng.pick([0o644, 0o755, 0o000]) },
        randomBytes(rng, rng.int(0, 3000)),
      );
    } else {
      archive.entry(type === "directory" ? { name, type } : { name, type, linkname: "src/a" });
    }
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `archive` with random header fields changed (checksums kept valid), cut or extended. */
function mutated(rng: SeededRandom, archive: Buffer): Buffer {
  let bytes = Buffer.from(archive);
  const headers: number[] = [];
  for (let offset = 0; offset + 512 <= bytes.length; offset += 512) {
    if (bytes.toString("latin1", offset + 257, offset + 262) === "ustar") headers.push(offset);
  }
  const mutations = rng.int(0, 4);
  for (let i = 0; i < mutations; i++) {
    const kind = rng.int(0, 5);
    const intact = headers.filter((offset) => offset + 512 <= bytes.length);
    if (kind <= 1 && intact.length > 0) {
      const offset = rng.pick(intact);
      const block = bytes.subarray(offset, offset + 512);
      const field = rng.pick([
        [0, 100], // name
        [100, 124], // mode, uid, gid
        [124, 136], // size
        [156, 157], // type
        [157, 257], // link name
        [345, 500], // prefix
      ] as const);
      const at = rng.int(field[0], field[1]);
      block[at] = rng.pick([0, 0x30, 0x37, 0x39, 0x2f, 0x2e, 0x78, 0xff, rng.int(0, 256)]);
      fixChecksum(block);
    } else if (kind === 2) {
      bytes = bytes.subarray(0, rng.int(0, bytes.length + 1));
    } else if (kind === 3) {
      bytes = Buffer.concat([bytes, randomBytes(rng, rng.int(0, 1024))]);
    } else if (bytes.length > 0) {
      bytes[rng.int(0, bytes.length)] = rng.int(0, 256);
    }
  }
  return bytes;
}

function isFileSystemError(error: unknown): boolean {
  return error instanceof Error && "syscall" in error && "code" in error;
}

describe("copyFromPod against fuzzed archives", () => {
  it(`writes only under the destination and fails typed (seed 0x${TAR_SEED.toString(16)}, ${TAR_CASES} cases)`, async () => {
    const base = new SeededRandom(TAR_SEED);
    const archives = new Map<number, Buffer>();
    const server = await serve(async ({ ws, url }) => {
      const rng = base.derive(caseOf(url)).derive(1);
      const archive = archives.get(caseOf(url))!;
      for (let offset = 0; offset < archive.length;) {
        const size = rng.int(1, 4096);
        await sendOnChannel(ws, 1, archive.subarray(offset, offset + size));
        offset += size;
      }
      await sendOnChannel(ws, 3, exitStatus(0));
      ws.close(1000);
    });
    const streams = streamsFor(server);
    const root = await mkdtemp(path.join(tmpdir(), "kubekit-cp-fuzz-"));
    try {
      for (let n = 0; n < TAR_CASES; n++) {
        const what = `tar case ${n} of seed 0x${TAR_SEED.toString(16)}`;
        const rng = base.derive(n);
        archives.set(n, mutated(rng, await randomArchive(rng)));
        const sandbox = path.join(root, String(n));
        await mkdir(sandbox);
        const outcome = await streams
          .copyFromPod("ns", `case-${n}`, {
            source: "/src",
            destination: path.join(sandbox, "dest"),
          })
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        if ("error" in outcome) {
          const error = outcome.error;
          const typed =
            error instanceof PodCopyArchiveError ||
            error instanceof PodCopyCommandError ||
            isFileSystemError(error);
          expect(typed, `${what}: ${String(error)}`).toBe(true);
          if (!isFileSystemError(error)) {
            expect((error as Error).message.length, what).toBeLessThan(MAX_MESSAGE_CHARS);
          }
        }
        const left = await readdir(sandbox);
        expect(
          left.filter((name) => name !== "dest"),
          what,
        ).toEqual([]);
        await rm(sandbox, { recursive: true, force: true });
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
