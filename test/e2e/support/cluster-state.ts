/**
 * What a server holds, read from outside the process under test: real kubectl when it is on
 * PATH (as a user would check), else kubekit's client from source.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Clientset, KubeConfig } from "kubekit";
import { hasKubectl } from "../../support/kubectl.js";

const run = promisify(execFile);

/** Runs real kubectl on `kubeconfig` (with a private HOME and cache) and resolves with its stdout. */
export async function kubectl(kubeconfig: string, args: readonly string[]): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), "kubekit-e2e-home-"));
  try {
    const { stdout } = await run(
      "kubectl",
      ["--kubeconfig", kubeconfig, "--cache-dir", join(home, "cache"), ...args],
      { env: { ...process.env, HOME: home }, timeout: 30_000 },
    );
    return stdout;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `[namespace/name, resourceVersion]` of every ConfigMap, sorted by key. */
export type ConfigMapVersions = [string, string][];

/** Every ConfigMap the server behind `kubeconfig` lists, as `kubectl get configmaps -A -o json`. */
export async function listConfigMapVersions(kubeconfig: string): Promise<ConfigMapVersions> {
  let items: { metadata?: { namespace?: string; name?: string; resourceVersion?: string } }[];
  if (hasKubectl) {
    const stdout = await kubectl(kubeconfig, ["get", "configmaps", "-A", "-o", "json"]);
    items = (JSON.parse(stdout) as { items: typeof items }).items;
  } else {
    const kc = await KubeConfig.load({ kubeconfig });
    items = (await new Clientset({ ...kc.restConfig(), qps: -1 }).coreV1.configMaps("").list())
      .items;
  }
  return items
    .map((cm): [string, string] => [
      `${cm.metadata?.namespace}/${cm.metadata?.name}`,
      cm.metadata?.resourceVersion ?? "",
    ])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Creates ConfigMaps `names` in namespace `default` of the server behind `kubeconfig`. */
export async function createConfigMaps(
  kubeconfig: string,
  names: readonly string[],
): Promise<void> {
  const kc = await KubeConfig.load({ kubeconfig });
  const configMaps = new Clientset({ ...kc.restConfig(), qps: -1 }).coreV1.configMaps("default");
  for (const name of names) await configMaps.create({ metadata: { name }, data: { from: name } });
}
