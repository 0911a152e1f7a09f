#!/usr/bin/env node
/**
 * The `kubekit` command: `kubekit serve` runs the embedded API server, `kubekit demo` runs a
 * ReplicaSet-style controller through faults (what `npm start` runs); `--help` and `--version`
 * say what this is.
 */
import { packageVersion } from "../rest/user-agent.js";
import { ApiServer } from "../testing/api-server.js";
import { demoCommand } from "./demo.js";
import { serveCommand } from "./serve.js";
import { errorMessage } from "../core/error-message.js";

const USAGE = `usage: kubekit <command> [options]

commands:
  serve            run the embedded Kubernetes API server for kubectl and programs under test
                   until interrupted (kubekit serve --help)
  demo             run a ReplicaSet-style controller (informers and a workqueue) against the
                   embedded server through faults, narrated step by step (kubekit demo --help)

options:
  -h, --help       print this help
  -v, --version    print kubekit's version
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serveCommand(rest, ApiServer);
    case "demo":
      return demoCommand(rest);
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    case "--version":
    case "-v":
    case "version":
      process.stdout.write(`${packageVersion()}\n`);
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
