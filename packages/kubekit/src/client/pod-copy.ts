/**
 * Copying files between the local file system and a container, as `kubectl cp` does: a tar
 * archive streamed over exec (`staging/src/k8s.io/kubectl/pkg/cmd/cp/cp.go`), read and
 * written with `tar-stream`. The container needs a `tar` binary (and `test` for copies
 * into it).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { lstat, mkdir, readdir, readlink } from "node:fs/promises";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Extract, Header, Pack } from "tar-stream";
import { extract, pack } from "tar-stream";
import { StatusError } from "../core/status.js";
import type { RESTClient } from "../rest/rest-client.js";
import type { ExecResult } from "./exec-result.js";
import { PodCopyArchiveError, PodCopyCommandError } from "./pod-copy-errors.js";
import { StreamClosedError } from "./stream-errors.js";
import { execInPod } from "./pod-exec.js";
import { textExcerpt } from "./text-excerpt.js";
import type { RemoteCommandSession } from "./remote-command-session.js";

/** Options of `copyToPod`. */
export interface CopyToPodOptions {
  /** The local file or directory (relative paths against `process.cwd()`). */
  readonly source: string;
  /**
   * The path in the container (POSIX; relative paths against the container's working
   * directory). When it is an existing directory, the source is copied into it under its
   * own name; otherwise the source is copied to this path.
   */
  readonly destination: string;
  /** The container; may be omitted when the pod has exactly one. */
  readonly container?: string;
  /** Aborting it closes the connection; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Options of `copyFromPod`. */
export interface CopyFromPodOptions {
  /** The file or directory in the container (POSIX path). */
  readonly source: string;
  /**
   * The local path the source is written to: the file itself for a file, the directory that
   * receives the content for a directory (created as needed).
   */
  readonly destination: string;
  /** The container; may be omitted when the pod has exactly one. */
  readonly container?: string;
  /** Aborting it closes the connection; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** An archive entry `copyFromPod` did not write, and why. */
export interface SkippedArchiveEntry {
  /** The entry's name in the archive. */
  readonly name: string;
  /**
   * `symlink`: links are never created (kubectl skips them too, so no link can point out of
   * the destination); `outside-destination`: the path would land outside the destination;
   * `unsupported-type`: hard links, devices, FIFOs.
   */
  readonly reason: "symlink" | "outside-destination" | "unsupported-type";
}

/** What `copyFromPod` wrote. */
export interface CopyFromPodResult {
  /** Regular files written. */
  readonly files: number;
  /** Entries not written, in archive order. */
  readonly skipped: readonly SkippedArchiveEntry[];
}

/** GNU tar's default record size (blocking factor 20): archives are padded to a multiple. */
const TAR_RECORD_BYTES = 10_240;

/** Longest stderr kept from a copy's command. */
const MAX_STDERR_BYTES = 64 * 1024;

/**
 * Copies the local `options.source` (a file, symlink or directory tree) into the container,
 * as `kubectl cp SOURCE POD:DESTINATION`: runs `test -d DESTINATION` to decide whether to
 * copy into it, then `tar -xmf - -C DIR` with an archive whose entries are named after the
 * destination's base name. Files keep their permission bits; directories are archived with
 * everything under them; symlinks are archived as links; sockets and FIFOs are left out.
 *
 * The archive's end is signalled with v5's close signal; under v4 the remote `tar` stops at
 * the archive's end-of-archive blocks (the archive is padded to a whole 10 KiB record).
 *
 * @throws {TypeError} when the source or the destination is empty.
 * @throws the file system's error (e.g. `ENOENT`) when the source cannot be read.
 * @throws {PodCopyCommandError} when `tar` in the container exits with a non-zero code.
 * @throws as exec (StatusError for a missing pod or container, ...), or the signal's reason.
 */
export async function copyToPod(
  client: RESTClient,
  namespace: string,
  pod: string,
  options: CopyToPodOptions,
): Promise<void> {
  assertPaths(options);
  const source = path.resolve(options.source);
  await lstat(source);
  let destination = path.posix.normalize(options.destination);
  if (await isRemoteDirectory(client, namespace, pod, options, destination)) {
    destination = path.posix.join(destination, path.basename(source));
  }
  const command = ["tar", "-xmf", "-", "-C", path.posix.dirname(destination)];
  const session = await execInPod(client, namespace, pod, {
    command,
    stdin: true,
    stdout: false,
    stderr: true,
    ...containerAndSignal(options),
  });
  const stderr = collectText(session.stderr);
  const archive = pack();
  let sessionEnded = false;
  /** A local read failure while the session ran (later ones come from tearing it down). */
  let readError: unknown;
  const producing = writeArchive(archive, source, path.posix.basename(destination)).catch(
    (err: unknown) => {
      if (sessionEnded) return;
      readError = err;
      session.close();
    },
  );
  const sending = session.stdin
    ? pipeline(Readable.from(paddedToRecords(archive), { objectMode: false }), session.stdin)
    : Promise.resolve();
  // A send cut short by the session's end shows in the status (or the command's failure).
  const sent = sending.catch(() => undefined);
  const outcome = await commandOutcome(session);
  sessionEnded = true;
  archive.destroy();
  await Promise.all([producing, sent]);
  await assertCommandSucceeded(outcome, namespace, pod, command, stderr);
  if (readError !== undefined) throw readError;
  if ("error" in outcome) throw outcome.error;
}

/**
 * Copies `options.source` out of the container, as `kubectl cp POD:SOURCE DESTINATION`:
 * runs `tar cf - SOURCE` and extracts the archive under `options.destination`.
 *
 * Safety (kubectl's checks, applied to whatever the container sends): every entry must lie
 * under the requested source path, else {@link PodCopyArchiveError} (nothing after it is
 * written); an entry whose path would leave the destination (`..`) is skipped, as are
 * symlinks (never created, so none can point outside the destination), hard links, devices
 * and FIFOs, each reported in the result. Files are written with the archive's permission
 * bits (under the process umask). Caveat: symlinks that already exist under the local
 * destination are followed.
 *
 * @throws {TypeError} when the source or the destination is empty.
 * @throws {PodCopyCommandError} when `tar` in the container exits with a non-zero code
 *   (e.g. the source does not exist).
 * @throws {PodCopyArchiveError} for an entry outside the source or output that is not a tar
 *   (its message quotes at most a few KiB of an entry's name).
 * @throws the file system's error when a file cannot be written; as exec otherwise, or the
 *   signal's reason. When the session ends by itself before the archive's end (the signal,
 *   a lost connection, a protocol error), that is the error, not the archive cut short.
 */
export async function copyFromPod(
  client: RESTClient,
  namespace: string,
  pod: string,
  options: CopyFromPodOptions,
): Promise<CopyFromPodResult> {
  assertPaths(options);
  const destination = path.resolve(options.destination);
  const prefix = archivePath(options.source);
  const command = ["tar", "cf", "-", options.source];
  const session = await execInPod(client, namespace, pod, {
    command,
    stdout: true,
    stderr: true,
    ...containerAndSignal(options),
  });
  const stderr = collectText(session.stderr);
  let extracted: CopyFromPodResult | undefined;
  let extractError: unknown;
  try {
    extracted = await extractArchive(session, prefix, destination);
  } catch (err) {
    extractError = err;
    session.close();
  }
  const outcome = await commandOutcome(session);
  await assertCommandSucceeded(outcome, namespace, pod, command, stderr);
  // A session that failed by itself (the signal, a lost connection, a protocol error) cut
  // the archive short: that failure, not the truncated archive, is why the copy failed.
  if ("error" in outcome && (extracted !== undefined || !closedByClient(outcome.error))) {
    throw outcome.error;
  }
  if (extracted === undefined) throw extractError;
  return extracted;
}

/** Whether the session ended because the copy closed it ({@link RemoteCommandSession.close}). */
function closedByClient(error: unknown): boolean {
  return error instanceof StreamClosedError && error.closedByClient;
}

/** How a copy's command ended: its result, or why there is none. */
type CommandOutcome = { readonly result: ExecResult } | { readonly error: unknown };

/** Waits for the session's end; never rejects. */
function commandOutcome(session: RemoteCommandSession): Promise<CommandOutcome> {
  return session.status.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
}

/**
 * @throws {PodCopyCommandError} when the command exited with a non-zero code, with what it
 *   wrote to stderr.
 */
async function assertCommandSucceeded(
  outcome: CommandOutcome,
  namespace: string,
  pod: string,
  command: readonly string[],
  stderr: Promise<string>,
): Promise<void> {
  if ("result" in outcome && outcome.result.exitCode !== 0) {
    throw new PodCopyCommandError(namespace, pod, command, outcome.result.exitCode, await stderr);
  }
}

/** kubectl's "filepath can not be empty". */
function assertPaths(options: CopyToPodOptions | CopyFromPodOptions): void {
  if (options.source === "" || options.destination === "") {
    throw new TypeError("filepath can not be empty: source and destination are required");
  }
}

/** The container and signal options of a copy, for its exec calls. */
function containerAndSignal(options: CopyToPodOptions | CopyFromPodOptions): {
  container?: string;
  signal?: AbortSignal;
} {
  return {
    ...(options.container !== undefined ? { container: options.container } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  };
}

/**
 * Whether `destination` is a directory in the container (`test -d`, kubectl's
 * `checkDestinationIsDir`). A non-zero exit or a Failure Status (no `test` binary) means
 * no; refusals and transport failures are thrown.
 */
async function isRemoteDirectory(
  client: RESTClient,
  namespace: string,
  pod: string,
  options: CopyToPodOptions,
  destination: string,
): Promise<boolean> {
  const session = await execInPod(client, namespace, pod, {
    command: ["test", "-d", destination],
    stdout: true,
    stderr: true,
    ...containerAndSignal(options),
  });
  session.stdout?.resume();
  session.stderr?.resume();
  try {
    return (await session.status).exitCode === 0;
  } catch (err) {
    if (err instanceof StatusError) return false;
    throw err;
  }
}

/**
 * Adds `source` to the archive under `name`, recursively (kubectl's `recursiveTar`), then
 * finalizes it. Rejects (and destroys the archive) when a file cannot be read.
 */
async function writeArchive(archive: Pack, source: string, name: string): Promise<void> {
  try {
    await addToArchive(archive, source, name);
    archive.finalize();
  } catch (err) {
    archive.destroy(err as Error);
    throw err;
  }
}

async function addToArchive(archive: Pack, file: string, name: string): Promise<void> {
  const stat = await lstat(file);
  const common = { name, mode: stat.mode & 0o7777, mtime: stat.mtime };
  if (stat.isDirectory()) {
    await addEntry(archive, { ...common, type: "directory" });
    for (const child of (await readdir(file)).sort()) {
      await addToArchive(archive, path.join(file, child), path.posix.join(name, child));
    }
  } else if (stat.isSymbolicLink()) {
    await addEntry(archive, { ...common, type: "symlink", linkname: await readlink(file) });
  } else if (stat.isFile()) {
    const entry = archive.entry({ ...common, type: "file", size: stat.size });
    const written = entryWritten(entry);
    for await (const chunk of createReadStream(file)) {
      if (!entry.write(chunk)) await drained(entry);
    }
    entry.end(null);
    await written;
  }
}

/** Adds an entry without content. */
function addEntry(archive: Pack, header: Partial<Header> & Pick<Header, "name">): Promise<void> {
  return new Promise((resolve, reject) => {
    archive.entry(header, (err) => (err ? reject(err) : resolve()));
  });
}

/** What waiting for `drain` needs of a stream (a Node stream or one of tar-stream's). */
interface DrainSource {
  readonly destroyed: boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/**
 * Resolves on the stream's next `drain`; rejects when it closes or fails first (a
 * destroyed stream never drains).
 */
function drained(stream: DrainSource): Promise<void> {
  if (stream.destroyed) return Promise.reject(new Error("the stream was destroyed"));
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      stream.off("close", onClose);
      resolve();
    };
    const onClose = (): void => {
      stream.off("drain", onDrain);
      reject(new Error("the stream closed before it drained"));
    };
    stream.once("drain", onDrain);
    stream.once("close", onClose);
  });
}

/** Settles when an entry stream finished (tar-stream's streams are not Node streams). */
function entryWritten(entry: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve, reject) => {
    entry.once("finish", () => resolve());
    entry.once("close", () => resolve());
    entry.once("error", reject);
  });
}

/** The archive's bytes, then zeros up to a whole {@link TAR_RECORD_BYTES} record. */
async function* paddedToRecords(archive: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  let length = 0;
  for await (const chunk of archive) {
    const bytes = chunk as Buffer;
    length += bytes.length;
    yield bytes;
  }
  const partial = length % TAR_RECORD_BYTES;
  if (partial !== 0) yield Buffer.alloc(TAR_RECORD_BYTES - partial);
}

/**
 * The path `tar cf - SOURCE` names entries with: leading slashes, `./` and `../` removed
 * (GNU tar strips them; kubectl's `stripPathShortcuts`), cleaned, no trailing slash; `""`
 * for the root or the working directory.
 */
function archivePath(name: string): string {
  let cleaned = path.posix.normalize(name.replace(/^\/+/, ""));
  for (;;) {
    const stripped = cleaned.replace(/^(\.\.?\/)+/, "").replace(/^\/+/, "");
    if (stripped === cleaned) break;
    cleaned = stripped;
  }
  cleaned = cleaned.replace(/\/+$/, "");
  return cleaned === "." || cleaned === ".." ? "" : cleaned;
}

/** Extracts the session's stdout (a tar archive) under `destination`; see `copyFromPod`. */
async function extractArchive(
  session: RemoteCommandSession,
  prefix: string,
  destination: string,
): Promise<CopyFromPodResult> {
  const extractor = extract();
  const feeding = feed(session.stdout, extractor);
  const skipped: SkippedArchiveEntry[] = [];
  let files = 0;
  try {
    for await (const entry of extractor) {
      const { name, type } = entry.header;
      // Only what tar itself adds is stripped: `..` stays, for the destination check below.
      const member = name.replace(/^(\.?\/)+/, "").replace(/\/+$/, "");
      let relative: string;
      if (prefix === "" || member === prefix) {
        relative = prefix === "" ? member : "";
      } else if (member.startsWith(`${prefix}/`)) {
        relative = member.slice(prefix.length + 1);
      } else {
        throw new PodCopyArchiveError(
          `entry ${textExcerpt(name, { quoted: true })} is outside ${prefix}`,
          name,
        );
      }
      const target = path.resolve(destination, ...relative.split("/"));
      const fromDestination = path.relative(destination, target);
      let skip: SkippedArchiveEntry["reason"] | undefined;
      if (
        fromDestination === ".." ||
        fromDestination.startsWith(`..${path.sep}`) ||
        path.isAbsolute(fromDestination)
      ) {
        skip = "outside-destination";
      } else if (type === "symlink") {
        skip = "symlink";
      } else if (type !== "file" && type !== "contiguous-file" && type !== "directory") {
        skip = "unsupported-type";
      }
      if (skip !== undefined) {
        skipped.push({ name, reason: skip });
        entry.resume();
        continue;
      }
      if (type === "directory") {
        await mkdir(target, { recursive: true });
        entry.resume();
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      const mode = (entry.header.mode ?? 0o644) & 0o777;
      await pipeline(
        Readable.from(entry, { objectMode: false }),
        createWriteStream(target, { mode }),
      );
      files++;
    }
  } catch (err) {
    // The feeder stops at the destroyed extractor, or when the caller closes the session.
    extractor.destroy();
    throw err instanceof PodCopyArchiveError || isFileSystemError(err)
      ? err
      : new PodCopyArchiveError("the output is not a tar archive", undefined, err);
  }
  await feeding;
  return { files, skipped };
}

/** Writes `source` into `extractor` with backpressure, then ends it; never rejects. */
async function feed(source: Readable | undefined, extractor: Extract): Promise<void> {
  try {
    if (source !== undefined) {
      for await (const chunk of source) {
        if (!extractor.write(chunk)) await drained(extractor);
      }
    }
    extractor.end(null);
  } catch {
    // The extractor was destroyed: its consumer reports why.
  }
}

/** Whether an error comes from the file system (it carries an errno `code` and a `syscall`). */
function isFileSystemError(err: unknown): boolean {
  return err instanceof Error && "syscall" in err && "code" in err;
}

/** The text of a stream, at most {@link MAX_STDERR_BYTES} (the rest is read and dropped). */
async function collectText(stream: Readable | undefined): Promise<string> {
  if (stream === undefined) return "";
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    if (length < MAX_STDERR_BYTES) chunks.push(bytes.subarray(0, MAX_STDERR_BYTES - length));
    length += bytes.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}
