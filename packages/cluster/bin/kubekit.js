#!/usr/bin/env node
// The `kubekit` command: runs the built CLI (dist/cli/main.js). A file of its own, committed
// with its executable bit, so that npm links it at install time, before any build, and
// `npx kubekit` works in the repository as soon as `npm run build` has run.
import("../dist/cli/main.js").catch((err) => {
  if (
    err &&
    err.code === "ERR_MODULE_NOT_FOUND" &&
    String(err.message).includes("dist/cli/main.js")
  ) {
    process.stderr.write("kubekit: @kubekit/cluster is not built (run `npm run build`)\n");
  } else {
    process.stderr.write(`kubekit: ${err && err.stack ? err.stack : String(err)}\n`);
  }
  process.exitCode = 1;
});
