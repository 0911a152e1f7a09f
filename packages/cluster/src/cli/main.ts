#!/usr/bin/env node
/**
 * The `kubekit` command: `kubekit serve` runs the embedded API server, `kubekit demo` runs a
 * ReplicaSet-style controller through faults (what `npm start` runs), `kubekit generate crd`
 * writes TypeScript for custom resources; `--help` and `--version` say what this is.
 */
import { createRequire } from "node:module";
import { errorMessage } from "kubekit/apimachinery";
import { demoCommand } from "./demo.js";
import { generateCommand } from "./generate.js";
import { serveCommand } from "./serve.js";

const USAGE = `usage: kubekit <command> [options]

commands:
  serve            run the embedded Kubernetes API server for kubectl and programs under test
                   until interrupted (kubekit serve --help)
  demo             run a ReplicaSet-style controller (informers and a workqueue) against the
                   embedded server through faults, narrated step by step (kubekit demo --help)
  generate crd     generate TypeScript types and typed clients from CustomResourceDefinitions
                   (kubekit generate crd FILE|DIR... --out DIR; kubekit generate --help)

options:
  -h, --help       print this help
  -v, --version    print kubekit's version
`;

/** The version of @kubekit/cluster (kubekit's packages share one version), from its manifest. */
function cliVersion(): string {
  // src/cli/ and dist/cli/ are both two levels below the package root.
  const manifest = createRequire(import.meta.url)("../../package.json") as { version?: unknown };
  return typeof manifest.version === "string" ? manifest.version : "unknown";
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serveCommand(rest);
    case "demo":
      return demoCommand(rest);
    case "generate":
      return generateCommand(rest);
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    case "--version":
    case "-v":
    case "version":
      process.stdout.write(`${cliVersion()}\n`);
      return 0;
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`kubekit: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kubekit: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
