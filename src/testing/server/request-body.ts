import type { IncomingMessage } from "node:http";
import { parse as parseYaml } from "yaml";
import { isJsonObject, type JsonValue } from "../../core/json.js";
import { decodeKubernetesProtobuf } from "../../core/protobuf.js";
import {
  newBadRequest,
  newRequestEntityTooLarge,
  newUnsupportedMediaType,
} from "../../core/status.js";
import { parseContentType } from "./media-type.js";

/** kube-apiserver's request body limit (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Reads a request body, answering 413 past the limit. */
export async function readBody(
  req: IncomingMessage,
  limit = MAX_REQUEST_BODY_BYTES,
): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw newRequestEntityTooLarge(`limit is ${limit}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw newRequestEntityTooLarge(`limit is ${limit}`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
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

/** Parses a JSON body, mapping syntax errors to a 400 like kube-apiserver's decoder. */
export function parseJsonBody(body: Buffer): JsonValue {
  const text = body.toString("utf8");
  if (text.trim() === "") throw newBadRequest("the body of the request was empty");
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw newBadRequest(`error decoding JSON body: ${(err as Error).message}`);
  }
}

/** Parses a YAML body (one document), mapping errors to a 400. */
export function parseYamlBody(body: Buffer): JsonValue {
  const text = body.toString("utf8");
  if (text.trim() === "") throw newBadRequest("the body of the request was empty");
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    throw newBadRequest(`error decoding YAML body: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!isJsonObject(value) && !Array.isArray(value)) {
    throw newBadRequest("error decoding YAML body: the document is not an object");
  }
  return value as JsonValue;
}
