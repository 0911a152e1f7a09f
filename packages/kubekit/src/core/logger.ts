/**
 * A minimal structured logger that kubekit's layers write diagnostics to (client-side
 * throttling, retries, server warnings, ...). Inject your own to route messages into an
 * application's logging; the defaults are {@link consoleLogger} and {@link noopLogger}.
 */

/** Extra key/value context of a log message. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Severity of a log message, from least to most severe. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Where kubekit writes diagnostics. Implementations must not throw: a logger that throws
 * would turn a diagnostic into a failure of the operation that logged it.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const LEVEL_ORDER: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Options of {@link createConsoleLogger}. */
export interface ConsoleLoggerOptions {
  /** The least severe level written; messages below it are dropped (default `"info"`). */
  readonly level?: LogLevel;
}

/**
 * A logger writing to the global `console` (`console.debug/info/warn/error`), fields passed
 * as a second argument so Node formats them. Messages below `options.level` (default
 * `"info"`, which drops debug messages, like client-go's default verbosity) are dropped.
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? "info"];
  const write = (level: LogLevel, message: string, fields: LogFields | undefined): void => {
    if (LEVEL_ORDER[level] < threshold) return;
    if (fields === undefined) console[level](message);
    else console[level](message, fields);
  };
  return {
    debug: (message, fields) => write("debug", message, fields),
    info: (message, fields) => write("info", message, fields),
    warn: (message, fields) => write("warn", message, fields),
    error: (message, fields) => write("error", message, fields),
  };
}

/** The default logger: the console at level `"info"` (debug messages are dropped). */
export const consoleLogger: Logger = createConsoleLogger();

/** A logger that drops everything. */
export const noopLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * A child logger: writes to `logger` with `fields` added to every message's fields (logr's
 * `WithValues`); a message's own fields win over `fields` of the same name.
 */
export function withLogFields(logger: Logger, fields: LogFields): Logger {
  const merge = (own: LogFields | undefined): LogFields =>
    own === undefined ? fields : { ...fields, ...own };
  return {
    debug: (message, own) => logger.debug(message, merge(own)),
    info: (message, own) => logger.info(message, merge(own)),
    warn: (message, own) => logger.warn(message, merge(own)),
    error: (message, own) => logger.error(message, merge(own)),
  };
}
