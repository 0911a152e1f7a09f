import type { JsonObject } from "kubekit";
import { parseStored } from "./stored-json.js";

/**
 * A committed change as storage hands it out (a `StorageEvent` of `storage.ts`): the bytes are always there, the parsed
 * `object` and `previous` are parsed from them on first access (a commit brings the object
 * it wrote, so its listeners never parse it) and kept for the event's lifetime.
 */
export class CommittedEvent {
  #object: JsonObject | undefined;
  #previous: JsonObject | undefined;

  constructor(
    readonly rv: number,
    readonly type: "ADDED" | "MODIFIED" | "DELETED",
    readonly resource: string,
    readonly key: string,
    readonly objectJson: Buffer,
    readonly previousJson: Buffer | undefined,
    object?: JsonObject,
    previous?: JsonObject,
  ) {
    this.#object = object;
    this.#previous = previous;
  }

  get object(): JsonObject {
    return (this.#object ??= parseStored(this.objectJson));
  }

  get previous(): JsonObject | undefined {
    if (this.previousJson === undefined) return undefined;
    return (this.#previous ??= parseStored(this.previousJson));
  }

  /** The same change holding only its bytes: what the bounded history keeps. */
  retained(): CommittedEvent {
    return new CommittedEvent(
      this.rv,
      this.type,
      this.resource,
      this.key,
      this.objectJson,
      this.previousJson,
    );
  }
}
