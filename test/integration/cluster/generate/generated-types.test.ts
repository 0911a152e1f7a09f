/**
 * What `generateCrdTypes` writes compiles under the repository's strict compiler options, catches
 * a field typo at compile time, and round-trips objects through the embedded API server: create,
 * get and list through the generated `ResourceClient` accessor, and the generated informer's
 * lister sees them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, DiscoveryClient } from "kubekit";
import { generateCrdTypes, installCrds, readCrdManifests } from "@kubekit/cluster";
import { useServer } from "../../../support/server-test-helpers.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const FIXTURE = join(root, "test/unit/cluster/generate/fixtures/gadgets.yaml");

/** A program using the generated module as a user would; one line must not compile. */
const USAGE = `import { Clientset, SharedInformerFactory } from "kubekit";
import { gadgetInformer, gadgets, type Gadget } from "./toys.example.com/v1.js";

export async function roundTrip(cs: Clientset, namespace: string): Promise<string[]> {
  const gadget: Gadget = {
    apiVersion: "toys.example.com/v1",
    kind: "Gadget",
    metadata: { name: "g1" },
    spec: { size: "medium", hostURL: "http://g1", port: "http", labels: { a: "b" } },
  };
  const created = await gadgets(cs, namespace).create(gadget);
  const read = await gadgets(cs, namespace).get("g1");
  const list = await gadgets(cs, namespace).list();
  const factory = new SharedInformerFactory(cs, { namespace });
  const informer = gadgetInformer(factory);
  const stop = new AbortController();
  factory.start(stop.signal);
  await factory.waitForCacheSync(stop.signal);
  const cached = informer.lister.namespace(namespace).get("g1");
  await factory.shutdown();
  const size: "small" | "medium" | "large" = read.spec?.size ?? "small";
  return [
    created.metadata?.uid ?? "",
    size,
    String(read.spec?.port),
    list.items.map((item) => item.metadata?.name).join(","),
    cached.spec?.hostURL ?? "",
  ];
}

export const typo: Gadget = {
  // @ts-expect-error -- "sise" is not a field of GadgetSpec
  spec: { sise: "small", size: "small", hostURL: "x" },
};

export const wrongEnum: Gadget = {
  // @ts-expect-error -- "huge" is not one of the enum's values
  spec: { size: "huge", hostURL: "x" },
};
`;

describe("the generated types", () => {
  const harness = useServer();
  const dir = mkdtempSync(join(root, ".generated-crd-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    const crds = (await readCrdManifests([FIXTURE])).map((m) => m.crd);
    for (const file of generateCrdTypes(crds)) {
      const target = join(dir, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
    writeFileSync(join(dir, "usage.ts"), USAGE);
  });

  it("compile with the repository's strict options (a typo and a wrong enum value do not)", () => {
    const config = ts.readConfigFile(join(root, "tsconfig.json"), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    expect(parsed.options.strict).toBe(true);
    const files = ["usage.ts", "toys.example.com/v1.ts", "toys.example.com/v1beta1.ts"].map((f) =>
      join(dir, f),
    );
    const program = ts.createProgram(files, {
      ...parsed.options,
      noEmit: true,
      incremental: false,
    });
    const errors = files.flatMap((file) => {
      const source = program.getSourceFile(file);
      if (source === undefined) return [`${file}: not compiled`];
      return [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ].map((d) => `${file}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    });
    expect(errors).toEqual([]);
  }, 120_000);

  it("round-trip an object through the embedded server: create, get, list, informer", async () => {
    const { server } = harness;
    await installCrds({ server, paths: [FIXTURE] });
    const cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    const usage = (await import(pathToFileURL(join(dir, "usage.ts")).href)) as {
      roundTrip(cs: Clientset, namespace: string): Promise<string[]>;
    };
    const [uid, ...rest] = await usage.roundTrip(cs, "default");
    expect(uid).not.toBe("");
    expect(rest).toEqual(["medium", "http", "g1", "http://g1"]);
    // The generated ResourceInfo agrees with what discovery serves.
    const { gadgetResource } = (await import(
      pathToFileURL(join(dir, "toys.example.com/v1.ts")).href
    )) as { gadgetResource: { plural: string; shortNames: string[]; namespaced: boolean } };
    const discovery = new DiscoveryClient(server.kubeConfig().restConfig());
    const served = await discovery.serverResourcesForGroupVersion("toys.example.com/v1");
    const resource = served.resources.find((r) => r.name === gadgetResource.plural);
    expect(resource?.shortNames).toEqual(gadgetResource.shortNames);
    expect(resource?.namespaced).toBe(gadgetResource.namespaced);
  });
});
