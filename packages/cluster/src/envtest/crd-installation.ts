/**
 * Installing CustomResourceDefinitions for a test and removing them afterwards, as
 * controller-runtime's envtest does (`pkg/envtest/crd.go`: `InstallCRDs`, `WaitForCRDs`,
 * `UninstallCRDs`): create each CRD (or update the one already there), then wait until every
 * CRD is Established and each of its served versions lists its resource in discovery, so that
 * clients, informers and RESTMappers of the test see it at once.
 */
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { isAlreadyExists, isNotFound } from "kubekit";
import { CrdWaitTimeoutError } from "./crd-install-errors.js";
import {
  resolveCrdInstallOptions,
  type CrdInstallOptions,
  type CrdInstallPlan,
} from "./crd-install-options.js";

/** The CRD's name (`plural.group`). */
function crdName(crd: CustomResourceDefinition): string {
  return crd.metadata?.name ?? `${crd.spec.names.plural}.${crd.spec.group}`;
}

/**
 * Checks `check` every `pollIntervalMs` until it reports nothing pending; rejects with a
 * {@link CrdWaitTimeoutError} naming what is still pending once `timeoutMs` has passed.
 */
async function pollUntilDone(
  plan: CrdInstallPlan,
  action: "installed" | "uninstalled",
  check: () => Promise<Map<string, string>>,
): Promise<void> {
  const deadline = plan.clock.now() + plan.timeoutMs;
  for (;;) {
    plan.signal?.throwIfAborted();
    const pending = await check();
    if (pending.size === 0) return;
    if (plan.clock.now() >= deadline)
      throw new CrdWaitTimeoutError(action, plan.timeoutMs, pending);
    await plan.clock.sleep(plan.pollIntervalMs, plan.signal);
  }
}

/** Creates the CRD, or updates the one of its name already there (envtest's `CreateCRDs`). */
async function createOrUpdate(plan: CrdInstallPlan, crd: CustomResourceDefinition): Promise<void> {
  const client = plan.clientset.apiextensionsV1.customResourceDefinitions();
  const options = plan.signal !== undefined ? { signal: plan.signal } : {};
  try {
    await client.create(crd, options);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await client.get(crdName(crd), options);
    const resourceVersion = existing.metadata?.resourceVersion;
    await client.update({ ...crd, metadata: { ...crd.metadata, resourceVersion } }, options);
  }
}

/** Why a CRD is not ready yet ("" when it is): not Established, or a version not in discovery. */
async function notReadyReason(
  plan: CrdInstallPlan,
  stored: CustomResourceDefinition,
  discovered: Map<string, Promise<ReadonlySet<string>>>,
): Promise<string> {
  const established = stored.status?.conditions?.some(
    (c) => c.type === "Established" && c.status === "True",
  );
  if (established !== true) return "not Established";
  for (const version of stored.spec.versions.filter((v) => v.served)) {
    const groupVersion = `${stored.spec.group}/${version.name}`;
    let resources = discovered.get(groupVersion);
    if (resources === undefined) {
      resources = plan.discovery.serverResourcesForGroupVersion(groupVersion, plan.signal).then(
        (list) => new Set(list.resources.map((r) => r.name)),
        (err: unknown) => {
          if (isNotFound(err)) return new Set<string>();
          throw err;
        },
      );
      discovered.set(groupVersion, resources);
    }
    if (!(await resources).has(stored.spec.names.plural)) {
      return `${stored.spec.names.plural} not served in discovery at ${groupVersion}`;
    }
  }
  return "";
}

/**
 * Installs CRDs into a cluster or an embedded server and waits until each is Established and
 * its resource is served in discovery at every served version (envtest's `InstallCRDs` with
 * `WaitForCRDs`). A CRD that already exists is updated to the given one. Resolves with the CRDs
 * as stored once ready, in the order given (`paths` first, then `crds`).
 *
 * @throws {CrdManifestError} (as a rejection, nothing installed) when a file cannot be read or a
 *   document is not a CRD: it names the file and document.
 * @throws {CrdWaitTimeoutError} when a CRD is not ready within `timeoutMs` (default 10 s).
 * @throws {StatusError} when the API server refuses a CRD (e.g. 422 Invalid).
 * @example
 * ```ts
 * import { ApiServer } from "@kubekit/apiserver";
 * import { installCrds, uninstallCrds } from "@kubekit/cluster";
 *
 * const server = await ApiServer.start();
 * const crds = await installCrds({ server, paths: ["config/crd/bases"] });
 * console.log(crds.map((crd) => crd.metadata?.name));
 * await uninstallCrds({ server, crds });
 * await server.stop();
 * ```
 */
export async function installCrds(options: CrdInstallOptions): Promise<CustomResourceDefinition[]> {
  const plan = await resolveCrdInstallOptions(options);
  for (const crd of plan.crds) await createOrUpdate(plan, crd);
  const client = plan.clientset.apiextensionsV1.customResourceDefinitions();
  const callOptions = plan.signal !== undefined ? { signal: plan.signal } : {};
  const ready = new Map<string, CustomResourceDefinition>();
  await pollUntilDone(plan, "installed", async () => {
    const pending = new Map<string, string>();
    const discovered = new Map<string, Promise<ReadonlySet<string>>>();
    for (const crd of plan.crds) {
      const name = crdName(crd);
      if (ready.has(name)) continue;
      const stored = await client.get(name, callOptions);
      const reason = await notReadyReason(plan, stored, discovered);
      if (reason === "") ready.set(name, stored);
      else pending.set(name, reason);
    }
    return pending;
  });
  return plan.crds.map((crd) => ready.get(crdName(crd)) as CustomResourceDefinition);
}

/**
 * Deletes CRDs (from files or objects, as {@link installCrds} takes them) and waits until each
 * is gone: its custom resources deleted and the CRD removed (envtest's `UninstallCRDs`). A CRD
 * that does not exist counts as gone.
 *
 * @throws {CrdManifestError} (as a rejection, nothing deleted) for a file that is not a CRD.
 * @throws {CrdWaitTimeoutError} when a CRD still exists after `timeoutMs` (default 10 s).
 */
export async function uninstallCrds(options: CrdInstallOptions): Promise<void> {
  const plan = await resolveCrdInstallOptions(options);
  const client = plan.clientset.apiextensionsV1.customResourceDefinitions();
  const callOptions = plan.signal !== undefined ? { signal: plan.signal } : {};
  const names = [...new Set(plan.crds.map(crdName))];
  for (const name of names) {
    try {
      await client.delete(name, callOptions);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  await pollUntilDone(plan, "uninstalled", async () => {
    const pending = new Map<string, string>();
    for (const name of names) {
      try {
        const stored = await client.get(name, callOptions);
        const terminating = stored.metadata?.deletionTimestamp !== undefined;
        pending.set(name, terminating ? "still terminating" : "still exists");
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return pending;
  });
}
