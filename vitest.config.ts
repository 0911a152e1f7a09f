import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Examples import the package by name, as users do; in-process tests run them on the source.
  resolve: {
    alias: [
      { find: /^kubekit$/, replacement: source("./src/index.ts") },
      { find: /^kubekit\/testing$/, replacement: source("./src/testing/index.ts") },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // A test that leaves an unhandled rejection fails the run.
    dangerouslyIgnoreUnhandledErrors: false,
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          include: ["test/{unit,integration,conformance}/**/*.test.ts"],
        },
      },
      {
        // The built package in child processes, as users run it: built once per run.
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/build-package.ts"],
        },
      },
    ],
  },
});
