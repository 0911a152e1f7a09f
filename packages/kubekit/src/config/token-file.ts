/**
 * A bearer token read from a file (kubeconfig `tokenFile`, and the in-cluster service account
 * token, which the kubelet rotates). Like client-go's cached file token source: the file is
 * re-read at most once a minute and right after `invalidate()` (a 401); when a re-read fails
 * the last token read (else the fallback token) is used, so a briefly missing file does not
 * break requests.
 */
import { readFile } from "node:fs/promises";
import { realClock, type Clock } from "../core/clock.js";
import { abortable } from "./abortable.js";
import { ConfigError, type ConfigErrorLocation } from "./config-error.js";
import { INSPECT_CUSTOM, REDACTED, inspectSummary } from "./redaction.js";
import { describeFileError } from "./referenced-files.js";
import type { CredentialSource, RequestCredentials } from "./rest-config.js";

/** How long a token read from a file is used before the file is read again. */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** Options of {@link TokenFileCredentials}. */
export interface TokenFileCredentialsOptions {
  /** The token file (absolute path). Its content is trimmed of surrounding whitespace. */
  readonly path: string;
  /**
   * The token to use while the file cannot be read and nothing was read yet (kubeconfig
   * `token` next to `tokenFile`, or the token read when the config was built).
   */
  readonly fallbackToken?: string;
  /** `inCluster` for the service account token (default `tokenFile`). */
  readonly kind?: "tokenFile" | "inCluster";
  /** Re-read interval (default 60 000 ms, `TOKEN_FILE_REFRESH_MS`). */
  readonly refreshIntervalMs?: number;
  readonly clock?: Clock;
  /** Where the token file is configured, for error messages. */
  readonly location?: ConfigErrorLocation;
}

/** Bearer credentials from a token file; see the module documentation for the refresh rules. */
export class TokenFileCredentials implements CredentialSource {
  readonly kind: "tokenFile" | "inCluster";
  /** The token file. */
  readonly path: string;
  readonly #fallbackToken: string | undefined;
  readonly #refreshIntervalMs: number;
  readonly #clock: Clock;
  readonly #location: ConfigErrorLocation;
  #cached: { readonly token: string; readonly readAt: number } | undefined;
  #reading: Promise<string> | undefined;

  constructor(options: TokenFileCredentialsOptions) {
    this.kind = options.kind ?? "tokenFile";
    this.path = options.path;
    this.#fallbackToken = options.fallbackToken;
    this.#refreshIntervalMs = options.refreshIntervalMs ?? TOKEN_FILE_REFRESH_MS;
    this.#clock = options.clock ?? realClock;
    this.#location = options.location ?? {};
  }

  /**
   * The `Authorization: Bearer` header with the current token; reads the file when the
   * cached token is older than the refresh interval or was invalidated. Concurrent calls
   * share one read.
   *
   * @throws {ConfigError} when the file cannot be read (or is empty) and no token is known.
   */
  async get(signal?: AbortSignal): Promise<RequestCredentials> {
    signal?.throwIfAborted();
    const cached = this.#cached;
    let token: string;
    if (cached !== undefined && this.#clock.now() - cached.readAt < this.#refreshIntervalMs) {
      token = cached.token;
    } else {
      this.#reading ??= this.#read().finally(() => {
        this.#reading = undefined;
      });
      token = await abortable(this.#reading, signal);
    }
    return { headers: { Authorization: `Bearer ${token}` } };
  }

  /** Drops the cached token: the next {@link get} reads the file again. */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #read(): Promise<string> {
    let problem: string;
    let cause: unknown;
    try {
      const token = (await readFile(this.path, "utf8")).trim();
      if (token !== "") {
        this.#cached = { token, readAt: this.#clock.now() };
        return token;
      }
      problem = "is empty";
    } catch (error) {
      problem = describeFileError(error);
      cause = error;
    }
    const known = this.#cached?.token ?? this.#fallbackToken;
    if (known !== undefined) return known;
    throw new ConfigError(`file ${this.path} ${problem}`, this.#location, { cause });
  }

  toString(): string {
    return `TokenFileCredentials { kind: ${this.kind}, path: ${JSON.stringify(this.path)} }`;
  }

  toJSON(): { kind: string; path: string; token: string } {
    return { kind: this.kind, path: this.path, token: REDACTED };
  }

  [INSPECT_CUSTOM](
    _depth: number,
    options: object,
    inspect?: (v: unknown, o?: object) => string,
  ): string {
    return inspectSummary("TokenFileCredentials", this.toJSON(), options, inspect);
  }
}
