/**
 * Typed errors of `copyToPod` / `copyFromPod` beyond those of exec itself.
 */

/** Longest stderr excerpt kept in an error message (the full captured text is on the error). */
const MESSAGE_STDERR_CHARS = 512;

/**
 * The `tar` (or `test`) command run in the container for a copy exited with a non-zero
 * code: a missing source path, a destination that cannot be written, no `tar` in the image
 * (exit code 126/127 from a shell, or a runtime error), ...
 */
export class PodCopyCommandError extends Error {
  /** The argv run in the container. */
  readonly command: readonly string[];
  readonly exitCode: number;
  /** What the command wrote to stderr (at most 64 KiB). */
  readonly stderr: string;

  constructor(
    namespace: string,
    pod: string,
    command: readonly string[],
    exitCode: number,
    stderr: string,
  ) {
    const excerpt = stderr.trim().slice(0, MESSAGE_STDERR_CHARS);
    super(
      `${JSON.stringify(command.join(" "))} in pod ${namespace}/${pod} exited with code ${exitCode}${excerpt === "" ? "" : `: ${excerpt}`}`,
    );
    this.name = "PodCopyCommandError";
    this.command = [...command];
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/**
 * The archive a container sent for `copyFromPod` is not what `tar cf - SOURCE` produces:
 * an entry outside the requested source path (kubectl's "tar contents corrupted"), or bytes
 * that are not a tar archive (`cause` is the tar reader's error).
 */
export class PodCopyArchiveError extends Error {
  /** The offending entry name, when the problem is an entry. */
  readonly entry: string | undefined;

  constructor(message: string, entry?: string, cause?: unknown) {
    super(`tar contents corrupted: ${message}`, cause === undefined ? undefined : { cause });
    this.name = "PodCopyArchiveError";
    this.entry = entry;
  }
}
