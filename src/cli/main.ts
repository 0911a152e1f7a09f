#!/usr/bin/env node
import { ApiServer } from "../testing/api-server.js";
import { serveCommand } from "./serve.js";

const USAGE = `usage: kubekit <command> [options]

commands:
  serve [--port N] [--tls] [--kubeconfig-out FILE]
        run the embedded Kubernetes API server until interrupted
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serveCommand(rest, ApiServer);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`kubekit: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kubekit: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
