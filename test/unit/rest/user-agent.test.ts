import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultUserAgent } from "kubekit";

describe("defaultUserAgent", () => {
  it("is kubekit/<package version> (<GOOS>/<GOARCH>)", () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    const ua = defaultUserAgent();
    expect(ua.startsWith(`kubekit/${pkg.version} (`)).toBe(true);
    const platform = ua.slice(ua.indexOf("(") + 1, -1);
    const [os, arch] = platform.split("/");
    expect(os).toBe(process.platform === "win32" ? "windows" : process.platform);
    expect(arch).not.toBe("x64");
    if (process.arch === "x64") expect(arch).toBe("amd64");
  });
});
