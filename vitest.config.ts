import { defineConfig } from "vitest/config";

export default defineConfig({
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
