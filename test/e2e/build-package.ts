/**
 * Global setup of the end-to-end project: builds the package once per run as `npm run build`
 * does (the library into `dist/`, then the demo's programs into `dist/examples/`), so the
 * tests run exactly what a user installs.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  for (const project of ["tsconfig.build.json", "tsconfig.examples.json"]) {
    execFileSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
  }
}
