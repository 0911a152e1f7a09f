import type { IncomingMessage } from "node:http";
import {
  BoundedParseError,
  parseJsonBounded,
  parseYamlBounded,
  isJsonObject,
} from "kubekit/apimachinery";
import {
  type JsonValue,
  type StatusError,
  newBadRequest,
  newRequestEntityTooLarge,
  newTimeout,
  newUnsupportedMediaType,
} from "kubekit";
import { rememberBodyText } from "./duplicate-fields.js";
import { decodeKubernetesProtobuf } from "./protobuf.js";
import { parseContentType } from "./media-type.js";
import { MAX_OBJECT_DEPTH, objectBoundsProblem } from "../schema/object-bounds.js";
import type { ServerContext } from "../server/server-context.js";

/** kube-apiserver's request body limit (3 MiB, `MaxRequestBodyBytes` of its server config). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads a request body. Answers 413 past `limit` (declared or received), and kube-apiserver's
 * 504 `Timeout: request did not complete within the allotted timeout` when the body has not
 * arrived in full within the server's `requestBodyTimeoutMs` (a body trickled a byte at a time
 * never holds a handler for longer; `WithTimeoutForNonLongRunningRequests` in
 * `staging/src/k8s.io/apiserver/pkg/server/filters/timeout.go` times the whole request out
 * after `--request-timeout`). The timer runs on the server's clock and is cancelled as soon as
 * the body ends, fails or its connection closes.
 */
export function readBody(
  req: IncomingMessage,
  ctx: ServerContext,
  limit = MAX_REQUEST_BODY_BYTES,
): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(newRequestEntityTooLarge(`limit is ${limit}`));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined): void => {
      timer.cancel();
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.resume();
        settle(newRequestEntityTooLarge(`limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle(undefined);
    const onError = (err: Error): void => settle(err);
    const onClose = (): void => {
      if (!req.complete) settle(new Error("the connection closed before the request body ended"));
    };
    const timer = ctx.clock.setTimer(ctx.behaviour.requestBodyTimeoutMs, () => {
      req.pause();
      settle(newTimeout("request did not complete within the allotted timeout", 0));
    });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** The media types accepted for object bodies (create, update). */
const OBJECT_MEDIA_TYPES = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];

/**
 * Decodes an object body by its Content-Type: JSON (also when the header is missing, as
 * kubectl's `scale` PUT sends it), YAML, or Kubernetes protobuf. Malformed bodies are a 400
 * with the decoder's message; other media types a 415.
 */
export function decodeObjectBody(contentType: string | undefined, body: Buffer): JsonValue {
  const mediaType = contentType ? parseContentType(contentType).mediaType : "application/json";
  switch (mediaType) {
    case "application/json":
    case "text/plain":
      return parseJsonBody(body);
    case "application/yaml":
    case "application/x-yaml":
    case "text/yaml":
      return parseYamlBody(body);
    case "application/vnd.kubernetes.protobuf":
      try {
        return decodeKubernetesProtobuf(body);
      } catch (err) {
        throw newBadRequest(`error decoding protobuf body: ${(err as Error).message}`);
      }
    default:
      throw newUnsupportedMediaType(
        `the body of the request was in an unknown format - accepted media types include: ${OBJECT_MEDIA_TYPES.join(", ")}`,
      );
  }
}

/**
 * The 4xx of a body the bounded parsers refused: too large is kube-apiserver's 413, anything
 * else (malformed, nested too deeply, alias expansion too large: go-yaml's "excessive
 * aliasing") a 400 naming the problem and its position, never quoting the body.
 */
function decodeError(format: string, err: unknown): StatusError {
  if (!(err instanceof BoundedParseError)) throw err;
  if (err.reason === "tooLarge") return newRequestEntityTooLarge(`limit is ${err.limit ?? 0}`);
  return newBadRequest(`error decoding ${format} body: ${err.message}`);
}

/** A decoded body as a JSON value within {@link MAX_OBJECT_DEPTH}, or the 400 naming why not. */
function checkedValue(format: string, value: unknown): JsonValue {
  const problem = objectBoundsProblem(value);
  if (problem?.kind === "tooDeep") {
    throw newBadRequest(
      `error decoding ${format} body: nested deeper than ${problem.limit} levels`,
    );
  }
  if (problem) throw newBadRequest(`error decoding ${format} body: ${problem.what}`);
  return value as JsonValue;
}

/**
 * Parses a JSON body within kube-apiserver's size limit and {@link MAX_OBJECT_DEPTH}, checked
 * before `JSON.parse` runs; failures are a 4xx (see {@link decodeError}). The text is
 * remembered for the decoded object, so that its repeated keys can be reported
 * (`duplicateFieldsOf` in duplicate-fields.ts) when `fieldValidation` asks for them.
 */
export function parseJsonBody(body: Buffer): JsonValue {
  const text = body.toString("utf8");
  if (text.trim() === "") throw newBadRequest("the body of the request was empty");
  let value: JsonValue;
  try {
    value = parseJsonBounded(text, {
      maxBytes: MAX_REQUEST_BODY_BYTES,
      maxDepth: MAX_OBJECT_DEPTH,
    });
  } catch (err) {
    throw decodeError("JSON", err);
  }
  rememberBodyText(value, text);
  return value;
}

/**
 * Parses the first YAML document of a body (as `sigs.k8s.io/yaml` does) within the size
 * limit, {@link MAX_OBJECT_DEPTH} and the bounded parser's alias-expanded size, all checked
 * before the document is composed; the result must be an object or an array of JSON values.
 */
export function parseYamlBody(body: Buffer): JsonValue {
  const text = body.toString("utf8");
  if (text.trim() === "") throw newBadRequest("the body of the request was empty");
  let value: unknown;
  try {
    // Repeated keys are decoded as go-yaml decodes them (the last one wins) and reported by
    // fieldValidation (duplicate-fields.ts), not refused here.
    value = parseYamlBounded(text, {
      limits: { maxBytes: MAX_REQUEST_BODY_BYTES, maxDepth: MAX_OBJECT_DEPTH },
      uniqueKeys: false,
    });
  } catch (err) {
    throw decodeError("YAML", err);
  }
  if (!isJsonObject(value) && !Array.isArray(value)) {
    throw newBadRequest("error decoding YAML body: the document is not an object");
  }
  const checked = checkedValue("YAML", value);
  rememberBodyText(checked, text, true);
  return checked;
}
