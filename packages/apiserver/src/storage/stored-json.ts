import type { JsonObject } from "kubekit";

/**
 * The stored form of an object: its JSON (UTF-8, no trailing newline) in a Buffer of its own
 * exact size, outside the JS heap. Not a slice of Node's shared pool: a pooled slice would keep
 * its whole 8 KiB slab alive for as long as the object is stored. Throws what `JSON.stringify`
 * throws (a BigInt, a cycle) before anything is allocated.
 */
export function encodeStored(obj: JsonObject): Buffer {
  const text = JSON.stringify(obj);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, "utf8"));
  bytes.write(text, 0, "utf8");
  return bytes;
}

/** Parses stored bytes (always a JSON object: storage only holds what {@link encodeStored} wrote). */
export function parseStored(json: Buffer): JsonObject {
  return JSON.parse(json.toString("utf8")) as JsonObject;
}
