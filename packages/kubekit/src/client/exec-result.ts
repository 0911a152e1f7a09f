/**
 * The result of a remote command (exec or attach) as the server reports it on the error
 * channel: a metav1.Status, Success or Failure, decoded as client-go's `errorDecoderV4`
 * (`staging/src/k8s.io/client-go/tools/remotecommand/v4.go`).
 */
import { isJsonObject } from "../core/json.js";
import type { Status } from "../core/status.js";
import { decodeStatus, StatusError } from "../core/status.js";
import { StreamProtocolError } from "./stream-errors.js";
import { textExcerpt } from "./text-excerpt.js";

/**
 * The Status reason of a command that exited with a non-zero code
 * (`remotecommand.NonZeroExitCodeReason`).
 */
export const NON_ZERO_EXIT_CODE_REASON = "NonZeroExitCode";

/** The cause type (`reason` on the wire) that carries the exit code (`remotecommand.ExitCodeCauseType`). */
export const EXIT_CODE_CAUSE_TYPE = "ExitCode";

/** How a remote command ended, as the server reported it. */
export interface ExecResult {
  /** The command's exit code: 0 on Success, else the `ExitCode` cause of the Failure (1..255). */
  readonly exitCode: number;
  /**
   * The Status from the error channel; undefined when the server closed the connection
   * normally without sending one (client-go counts that as success).
   */
  readonly status: Status | undefined;
}

/**
 * Decodes the error channel's content (all of its bytes, which may have come in several
 * messages).
 *
 * - Success → `{ exitCode: 0, status }`.
 * - Failure with reason `NonZeroExitCode` → `{ exitCode, status }`, the code from the
 *   first cause of type `ExitCode` (a decimal 0..255, Go's `ParseUint(message, 10, 8)`).
 * - Any other Failure → throws a {@link StatusError} of that Status (e.g. InternalError
 *   when the runtime could not start the command).
 *
 * The server's Status carries no `kind`/`apiVersion` (kubelet marshals a bare
 * metav1.Status); they are filled in.
 *
 * The content is decoded whole: the caller bounds it (the session keeps at most
 * `MAX_ERROR_CHANNEL_BYTES`). Error messages quote at most a few KiB of it.
 *
 * @throws {StreamProtocolError} for content that is not a JSON object, a `status` other
 *   than Success or Failure, or a NonZeroExitCode Status without a valid `ExitCode` cause.
 */
export function decodeExecResult(protocol: string, content: Uint8Array): ExecResult {
  const text = new TextDecoder().decode(content);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new StreamProtocolError(
      protocol,
      `${(err as Error).message} in ${textExcerpt(content, { quoted: true })}`,
    );
  }
  if (!isJsonObject(parsed)) {
    throw new StreamProtocolError(
      protocol,
      `the error channel is not a Status: ${textExcerpt(content)}`,
    );
  }
  const outcome = parsed["status"];
  const status = decodeStatus({ ...parsed, kind: "Status", apiVersion: "v1" });
  if (status === undefined || (outcome !== "Success" && outcome !== "Failure")) {
    throw new StreamProtocolError(protocol, `unknown error: ${textExcerpt(content)}`);
  }
  if (outcome === "Success") return { exitCode: 0, status };
  if (status.reason !== (NON_ZERO_EXIT_CODE_REASON as string)) throw new StatusError(status);
  if (status.details === undefined) {
    throw new StreamProtocolError(protocol, "details must be set");
  }
  const cause = status.details.causes?.find((c) => c.reason === EXIT_CODE_CAUSE_TYPE);
  if (cause === undefined) {
    throw new StreamProtocolError(protocol, `no ${EXIT_CODE_CAUSE_TYPE} cause given`);
  }
  const value = cause.message ?? "";
  const exitCode = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!(exitCode <= 255)) {
    throw new StreamProtocolError(
      protocol,
      `invalid exit code value ${textExcerpt(value, { quoted: true })}`,
    );
  }
  return { exitCode, status };
}
