import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Packages, examples and tests import each package by name, as users do; in-process tests
  // run them on the sources (the same map as tsconfig.json's `paths`).
  resolve: {
    alias: [
      { find: /^kubekit$/, replacement: source("./packages/kubekit/src/index.ts") },
      {
        find: /^kubekit\/testing$/,
        replacement: source("./packages/kubekit/src/testing/index.ts"),
      },
      {
        find: /^kubekit\/apimachinery$/,
        replacement: source("./packages/kubekit/src/apimachinery/index.ts"),
      },
      { find: /^@kubekit\/apiserver$/, replacement: source("./packages/apiserver/src/index.ts") },
      { find: /^@kubekit\/cluster$/, replacement: source("./packages/cluster/src/index.ts") },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Two workers on CI's two cores: most of a test's time is waiting on loopback I/O and
    // module loading, and the suite passes with both cores busy (tests wait on conditions,
    // never on timings).
    maxWorkers: 2,
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
