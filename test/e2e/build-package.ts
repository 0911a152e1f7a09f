/**
 * Global setup of the end-to-end project: builds every package once per run as `npm run
 * build` does (kubekit, then @kubekit/apiserver, then @kubekit/cluster with the demo's
 * programs), so the tests run exactly what a user installs. `.ci/run` builds the packages
 * itself right before the tests and says so with `KUBEKIT_PACKAGES_BUILT=1`; the build is then
 * not repeated.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  if (process.env["KUBEKIT_PACKAGES_BUILT"] === "1") return;
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const npm = process.env["npm_execpath"];
  // Under `npm test` npm's own CLI script is known; otherwise the `npm` on PATH.
  if (npm) execFileSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" });
  else execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}
