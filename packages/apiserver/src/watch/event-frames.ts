import type { JsonObject } from "kubekit";
import type { StorageEvent } from "../storage/storage.js";

/** The type of a watch event that carries an object of the watched resource. */
export type ObjectEventType = "ADDED" | "MODIFIED" | "DELETED";

const FRAME_PREFIXES: Readonly<Record<ObjectEventType, Buffer>> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
};
const FRAME_SUFFIX = Buffer.from("}\n");

/**
 * One watch frame, `{"type":TYPE,"object":OBJECT}` and a newline (kube's watch encoding:
 * one JSON document per line), around an object's JSON given as text or as UTF-8 bytes.
 */
export function watchFrame(type: string, objectJson: string | Uint8Array): Buffer {
  if (typeof objectJson === "string")
    return Buffer.from(`{"type":"${type}","object":${objectJson}}\n`);
  const prefix =
    FRAME_PREFIXES[type as ObjectEventType] ?? Buffer.from(`{"type":"${type}","object":`);
  return Buffer.concat([prefix, objectJson, FRAME_SUFFIX]);
}

/**
 * The encoded frames of one storage change, made once and shared by every watch that sends
 * the same frame: watches of one resource differ only by event type (selector transitions),
 * output format and served version, so a change is encoded at most once per such
 * combination however many watches receive it. Frames handed out are shared: never modify
 * them.
 */
export class EventFrames {
  readonly event: StorageEvent;
  #frames: Map<string, Buffer> | undefined;
  #departed: JsonObject | undefined;

  constructor(event: StorageEvent) {
    this.event = event;
  }

  /**
   * The frame known as `key` (event type, format and version: the caller's choice of what
   * makes frames equal), made by `make` the first time it is asked for. When `make` throws
   * nothing is kept and the error propagates.
   */
  frame(key: string, make: () => Buffer): Buffer {
    let frame = this.#frames?.get(key);
    if (frame === undefined) {
      frame = make();
      (this.#frames ??= new Map()).set(key, frame);
    }
    return frame;
  }

  /**
   * The object a watch whose selector no longer matches receives in its DELETED event: the
   * previous state stamped with the change's revision, as the watch cache sends it
   * (`cache_watcher.go` in `staging/src/k8s.io/apiserver/pkg/storage/cacher/`).
   */
  get departed(): JsonObject {
    if (this.#departed === undefined) {
      const prev = this.event.previous ?? this.event.object;
      this.#departed = {
        ...prev,
        metadata: {
          ...(prev["metadata"] as JsonObject),
          resourceVersion: String(this.event.rv),
        },
      };
    }
    return this.#departed;
  }
}
