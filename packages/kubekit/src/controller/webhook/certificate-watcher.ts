/**
 * Watches a serving certificate and key on disk and reloads them when they change
 * (controller-runtime's `pkg/certwatcher/certwatcher.go`: file events plus a poll every 10 s,
 * a pair replaced only by a valid pair), as cert-manager rotates a Secret mounted in a pod.
 */
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createSecureContext } from "node:tls";
import type { Clock, TimerHandle } from "../../core/clock.js";
import type { Logger } from "../../core/logger.js";

/** controller-runtime's `defaultWatchInterval`: the files are re-read every 10 s besides on events. */
export const DEFAULT_CERTIFICATE_POLL_MS = 10_000;

/** A PEM certificate chain and its private key. */
export interface CertificatePair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Where the watcher reads and how it reports. */
export interface CertificateWatcherOptions {
  readonly certFile: string;
  readonly keyFile: string;
  readonly pollIntervalMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called with every new valid pair (not with the first one, which {@link CertificateWatcher.read} returns). */
  readonly onChange: (pair: CertificatePair) => void;
}

/**
 * Reads the pair and, once started, re-reads it on file events in the files' directories
 * (which survive the symlink swap a kubelet makes when a mounted Secret changes) and every
 * `pollIntervalMs`. A pair that cannot be read, or whose key does not match the certificate
 * (e.g. between the writes of the two files), is logged and skipped: the last valid pair
 * stays in use.
 */
export class CertificateWatcher {
  readonly #options: CertificateWatcherOptions;
  #current: CertificatePair | undefined;
  readonly #watchers: FSWatcher[] = [];
  #timer: TimerHandle | undefined;
  #stopped = false;
  /** The reload running, and whether another was asked for meanwhile. */
  #reloading: Promise<void> | undefined;
  #again = false;

  constructor(options: CertificateWatcherOptions) {
    this.#options = options;
  }

  /**
   * Reads and checks the pair; it becomes the current one.
   *
   * @throws the read error (e.g. `ENOENT`) or the TLS error of a pair that does not match.
   */
  async read(): Promise<CertificatePair> {
    const [cert, key] = await Promise.all([
      readFile(this.#options.certFile),
      readFile(this.#options.keyFile),
    ]);
    createSecureContext({ cert, key }); // throws for a malformed pair or a key of another certificate
    this.#current = { cert, key };
    return this.#current;
  }

  /** Starts watching and polling, until {@link stop}. */
  start(): void {
    const directories = new Set([dirname(this.#options.certFile), dirname(this.#options.keyFile)]);
    for (const directory of directories) {
      try {
        const watcher = watch(directory, { persistent: false }, () => this.reload());
        watcher.on("error", (error) =>
          this.#options.logger.warn("certificate watcher: watch failed; polling only", {
            directory,
            error,
          }),
        );
        this.#watchers.push(watcher);
      } catch (error) {
        this.#options.logger.warn("certificate watcher: cannot watch; polling only", {
          directory,
          error,
        });
      }
    }
    this.#schedulePoll();
  }

  /** Stops watching and polling; resolves after a reload in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    for (const watcher of this.#watchers.splice(0)) watcher.close();
    await this.#reloading;
  }

  /** Re-reads the pair now (coalescing with a reload in progress) and reports a change. */
  reload(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#reloading !== undefined) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = this.#reloadLoop().finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async #reloadLoop(): Promise<void> {
    do {
      this.#again = false;
      const previous = this.#current;
      try {
        const pair = await this.read();
        if (
          previous === undefined ||
          !pair.cert.equals(previous.cert) ||
          !pair.key.equals(previous.key)
        ) {
          this.#options.logger.info("certificate watcher: updated the serving certificate", {
            certFile: this.#options.certFile,
          });
          this.#options.onChange(pair);
        }
      } catch (error) {
        this.#options.logger.warn(
          "certificate watcher: cannot read the certificate; keeping the last one",
          {
            certFile: this.#options.certFile,
            keyFile: this.#options.keyFile,
            error,
          },
        );
      }
    } while (this.#again && !this.#stopped);
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#timer = this.#options.clock.setTimer(this.#options.pollIntervalMs, () => {
      void this.reload().then(() => this.#schedulePoll());
    });
  }
}
