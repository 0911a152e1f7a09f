/**
 * Credential sources whose credentials never change: none, a bearer token, basic auth.
 * `invalidate()` is a no-op for them (after a 401 there is nothing to refresh, as in
 * client-go). Their renderings (`toString`, `toJSON`, `util.inspect`) never show the secret.
 */
import type { CredentialSource, RequestCredentials } from "./rest-config.js";
import { INSPECT_CUSTOM, REDACTED, inspectSummary } from "./redaction.js";

const NO_HEADERS: RequestCredentials = Object.freeze({ headers: Object.freeze({}) });

/** Rejects with the abort reason when `signal` has aborted. */
function resolved(
  credentials: RequestCredentials,
  signal?: AbortSignal,
): Promise<RequestCredentials> {
  return signal?.aborted === true ? Promise.reject(signal.reason) : Promise.resolve(credentials);
}

/** No credentials: requests carry no `Authorization` header (plain http, or no user). */
export class NoCredentials implements CredentialSource {
  readonly kind = "none" as const;

  get(signal?: AbortSignal): Promise<RequestCredentials> {
    return resolved(NO_HEADERS, signal);
  }

  invalidate(): void {
    // Nothing is cached.
  }

  toString(): string {
    return "NoCredentials";
  }
}

/** A static bearer token (`Authorization: Bearer …`). */
export class StaticTokenCredentials implements CredentialSource {
  readonly kind = "token" as const;
  readonly #credentials: RequestCredentials;

  constructor(token: string) {
    this.#credentials = Object.freeze({
      headers: Object.freeze({ Authorization: `Bearer ${token}` }),
    });
  }

  get(signal?: AbortSignal): Promise<RequestCredentials> {
    return resolved(this.#credentials, signal);
  }

  invalidate(): void {
    // A static token cannot be refreshed.
  }

  toString(): string {
    return `StaticTokenCredentials { token: ${REDACTED} }`;
  }

  toJSON(): { kind: "token"; token: string } {
    return { kind: this.kind, token: REDACTED };
  }

  [INSPECT_CUSTOM](
    _depth: number,
    options: object,
    inspect?: (v: unknown, o?: object) => string,
  ): string {
    return inspectSummary("StaticTokenCredentials", this.toJSON(), options, inspect);
  }
}

/** HTTP basic auth (`Authorization: Basic base64(username:password)`). */
export class BasicAuthCredentials implements CredentialSource {
  readonly kind = "basic" as const;
  /** The user name (not a secret; shown in renderings). */
  readonly username: string;
  readonly #credentials: RequestCredentials;

  constructor(username: string, password: string) {
    this.username = username;
    const encoded = Buffer.from(`${username}:${password}`, "utf8").toString("base64");
    this.#credentials = Object.freeze({
      headers: Object.freeze({ Authorization: `Basic ${encoded}` }),
    });
  }

  get(signal?: AbortSignal): Promise<RequestCredentials> {
    return resolved(this.#credentials, signal);
  }

  invalidate(): void {
    // Static credentials cannot be refreshed.
  }

  toString(): string {
    return `BasicAuthCredentials { username: ${JSON.stringify(this.username)}, password: ${REDACTED} }`;
  }

  toJSON(): { kind: "basic"; username: string; password: string } {
    return { kind: this.kind, username: this.username, password: REDACTED };
  }

  [INSPECT_CUSTOM](
    _depth: number,
    options: object,
    inspect?: (v: unknown, o?: object) => string,
  ): string {
    return inspectSummary("BasicAuthCredentials", this.toJSON(), options, inspect);
  }
}
