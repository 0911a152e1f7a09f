import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleLogger, createConsoleLogger, noopLogger } from "kubekit";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createConsoleLogger", () => {
  it("writes each level to the matching console method, with fields as a second argument", () => {
    const spies = {
      debug: vi.spyOn(console, "debug").mockImplementation(() => undefined),
      info: vi.spyOn(console, "info").mockImplementation(() => undefined),
      warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
      error: vi.spyOn(console, "error").mockImplementation(() => undefined),
    };
    const logger = createConsoleLogger({ level: "debug" });
    logger.debug("d");
    logger.info("i", { a: 1 });
    logger.warn("w");
    logger.error("e", { b: "x" });
    expect(spies.debug).toHaveBeenCalledWith("d");
    expect(spies.info).toHaveBeenCalledWith("i", { a: 1 });
    expect(spies.warn).toHaveBeenCalledWith("w");
    expect(spies.error).toHaveBeenCalledWith("e", { b: "x" });
  });

  it("drops messages below the level; the default (and consoleLogger) drop debug", () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => undefined);
    const info = vi.spyOn(console, "info").mockImplementation(() => undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    createConsoleLogger().debug("hidden");
    consoleLogger.debug("hidden too");
    consoleLogger.info("shown");
    const warnOnly = createConsoleLogger({ level: "warn" });
    warnOnly.info("hidden");
    warnOnly.warn("shown");
    expect(debug).not.toHaveBeenCalled();
    expect(info).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe("noopLogger", () => {
  it("writes nothing", () => {
    const spies = (["debug", "info", "warn", "error"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => undefined),
    );
    noopLogger.debug("x");
    noopLogger.info("x");
    noopLogger.warn("x");
    noopLogger.error("x", { y: 1 });
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
