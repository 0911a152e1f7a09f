/**
 * envtest's conveniences against the embedded server: `installCrds` from files and directories
 * (Established and served in discovery when it resolves), re-installing updates, files that are
 * not CRDs refused naming the file, `uninstallCrds` waiting until the CRDs are gone, and its
 * timeout naming a CRD held by a custom resource's finalizer.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Clientset, DiscoveryClient, DynamicClient, PatchTypes, isNotFound } from "kubekit";
import {
  CrdManifestError,
  CrdWaitTimeoutError,
  installCrds,
  uninstallCrds,
} from "@kubekit/cluster";
import { useServer } from "../../../support/server-test-helpers.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const WEBSITE_CRD = join(root, "packages/cluster/examples/website-operator/website-crd.yaml");
const GADGETS = join(root, "test/unit/cluster/generate/fixtures/gadgets.yaml");

describe("installCrds / uninstallCrds", () => {
  const harness = useServer();
  const dir = mkdtempSync(join(tmpdir(), "kubekit-envtest-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const discovery = (): DiscoveryClient =>
    new DiscoveryClient(harness.server.kubeConfig().restConfig());

  it("installs every CRD of files and directories, Established and served in discovery when it resolves", async () => {
    const { server } = harness;
    // A directory: its manifest files by name; other files are not read.
    const crdDir = join(dir, "crds");
    mkdirSync(crdDir);
    copyFileSync(GADGETS, join(crdDir, "gadgets.yaml"));
    writeFileSync(join(crdDir, "README.md"), "not a manifest");
    const crds = await installCrds({ server, paths: [WEBSITE_CRD, crdDir] });
    expect(crds.map((crd) => crd.metadata?.name)).toEqual([
      "websites.example.com",
      "gadgets.toys.example.com",
      "toyboxes.toys.example.com",
    ]);
    for (const crd of crds) {
      expect(crd.status?.conditions).toContainEqual(
        expect.objectContaining({ type: "Established", status: "True" }),
      );
    }
    // No wait needed: discovery serves every served version at once.
    const served = async (gv: string): Promise<string[]> =>
      (await discovery().serverResourcesForGroupVersion(gv)).resources.map((r) => r.name);
    expect(await served("example.com/v1")).toContain("websites");
    expect(await served("toys.example.com/v1")).toEqual(
      expect.arrayContaining(["gadgets", "toyboxes"]),
    );
    expect(await served("toys.example.com/v1beta1")).toContain("gadgets");
    const dynamic = new DynamicClient(server.kubeConfig().restConfig());
    const created = await dynamic
      .resource({ group: "example.com", version: "v1", resource: "websites" })
      .namespace("default")
      .create({
        apiVersion: "example.com/v1",
        kind: "Website",
        metadata: { name: "installed" },
        spec: { image: "nginx:1.27" },
      });
    expect(created.metadata.name).toBe("installed");
  });

  it("updates a CRD that is already installed", async () => {
    const { server } = harness;
    const [crd] = await installCrds({ server, paths: [WEBSITE_CRD] });
    const changed = structuredClone(crd);
    if (changed === undefined) throw new Error("nothing installed");
    delete changed.status;
    changed.metadata = { name: "websites.example.com" };
    changed.spec.names.shortNames = ["ws", "site"];
    const [updated] = await installCrds({ server, crds: [changed] });
    expect(updated?.spec.names.shortNames).toEqual(["ws", "site"]);
  });

  it("refuses a file that is not a CRD, naming it, before installing anything", async () => {
    const { server } = harness;
    const file = join(dir, "mixed.yaml");
    writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-a-crd}\n");
    const error = await installCrds({ server, paths: [file] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CrdManifestError);
    expect((error as CrdManifestError).source).toBe(file);
    expect((error as Error).message).toBe(
      `${file} (document 1): ConfigMap (v1) is not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
    );
    await expect(installCrds({ paths: [WEBSITE_CRD] })).rejects.toThrow(TypeError);
  });

  it("uninstalls and waits until the CRDs are gone", async () => {
    const { server } = harness;
    await uninstallCrds({ server, paths: [GADGETS] });
    const crds = new Clientset(
      server.kubeConfig().restConfig(),
    ).apiextensionsV1.customResourceDefinitions();
    for (const name of ["gadgets.toys.example.com", "toyboxes.toys.example.com"]) {
      const error = await crds.get(name).catch((err: unknown) => err);
      expect(isNotFound(error)).toBe(true);
    }
    // Uninstalling what is not there is done at once.
    await uninstallCrds({ server, paths: [GADGETS] });
  });

  it("times out naming a CRD whose custom resources a finalizer holds, then completes once released", async () => {
    const { server } = harness;
    const restConfig = server.kubeConfig().restConfig();
    const websites = new DynamicClient(restConfig)
      .resource({ group: "example.com", version: "v1", resource: "websites" })
      .namespace("default");
    await websites.patch("installed", PatchTypes.merge, {
      metadata: { finalizers: ["example.com/held"] },
    });
    const error = await uninstallCrds({ server, paths: [WEBSITE_CRD], timeoutMs: 300 }).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(CrdWaitTimeoutError);
    expect((error as CrdWaitTimeoutError).pending).toEqual(
      new Map([["websites.example.com", "still terminating"]]),
    );
    await websites.patch("installed", PatchTypes.merge, { metadata: { finalizers: null } });
    await uninstallCrds({ server, paths: [WEBSITE_CRD] });
  });
});
