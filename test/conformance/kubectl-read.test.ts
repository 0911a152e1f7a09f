import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  hasKubectl,
  KubectlSession,
  tableRows,
  warnIfNoKubectl,
  succeeded,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl read conformance tests");
const AGE = /^\d+[smhd]/;

/** Rows of a table without the header, keyed by the first cell. */
function rowsByName(rows: string[][]): Map<string, string[]> {
  return new Map(rows.slice(1).map((row) => [row[0] ?? "", row]));
}

function podManifest(namespace: string, name: string, containers: readonly string[]): string {
  return [
    "apiVersion: v1",
    "kind: Pod",
    "metadata:",
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    `  labels: {app: ${name}}`,
    "spec:",
    "  containers:",
    ...containers.map((c) => `  - {name: ${c}, image: "busybox:1.36"}`),
  ].join("\n");
}

function deploymentManifest(namespace: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${namespace}
  labels: {app: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
      - {name: sidecar, image: "busybox:1.36"}
`;
}

describe.skipIf(!hasKubectl)("kubectl reads against kubekit serve", () => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  /** Creates a namespace and applies a multi-document manifest into it. */
  async function seed(namespace: string, documents: readonly string[]): Promise<void> {
    succeeded(await kubectl("create", "namespace", namespace));
    const path = await session.writeManifest(`${namespace}.yaml`, documents.join("\n---\n"));
    succeeded(await kubectl("create", "-f", path));
  }

  beforeAll(async () => {
    // The API server alone: these tests pin what it stores and serves, untouched by controllers.
    session = await KubectlSession.start(["--no-cluster"]);
  });

  afterAll(async () => {
    if (!session) return;
    const exit = await session.stop();
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toContain("kubekit API server stopped");
  });

  it("kubectl version shows the server version (minor 32) without a skew warning", async () => {
    const result = await kubectl("version");
    expect(succeeded(result)).toMatch(/^Server Version: v1\.32\.\d+\S*$/m);
    expect(result.stderr).toBe("");
    const json = JSON.parse(succeeded(await kubectl("version", "-o", "json"))) as {
      serverVersion: { major: string; minor: string; gitVersion: string };
    };
    expect(json.serverVersion.major).toBe("1");
    expect(json.serverVersion.minor).toBe("32");
    expect(json.serverVersion.gitVersion).toMatch(/^v1\.32\./);
  });

  it("kubectl api-resources lists built-ins with short names, groups and scope", async () => {
    const out = succeeded(await kubectl("api-resources"));
    const lines = out.split("\n").map((line) => line.trim().split(/\s+/));
    expect(lines[0]).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    expect(lines).toContainEqual(["pods", "po", "v1", "true", "Pod"]);
    expect(lines).toContainEqual(["namespaces", "ns", "v1", "false", "Namespace"]);
    expect(lines).toContainEqual(["deployments", "deploy", "apps/v1", "true", "Deployment"]);
    expect(lines).toContainEqual([
      "customresourcedefinitions",
      "crd,crds",
      "apiextensions.k8s.io/v1",
      "false",
      "CustomResourceDefinition",
    ]);
    const apps = succeeded(await kubectl("api-resources", "--api-group=apps", "-o", "name")).split(
      "\n",
    );
    expect(apps).toContain("deployments.apps");
    expect(apps).toContain("statefulsets.apps");
    expect(apps).not.toContain("pods");
  });

  it("kubectl get pod nope prints the NotFound Status message and exits 1", async () => {
    const result = await kubectl("get", "pod", "nope");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe('Error from server (NotFound): pods "nope" not found\n');
  });

  it("kubectl get of a named object in an absent namespace reports the namespace NotFound", async () => {
    // The server answers the pod's own 404; kubectl then GETs the namespace, and that 404 is
    // what it prints.
    const result = await kubectl("get", "pod", "nope", "-n", "read-absent");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error from server (NotFound): namespaces "read-absent" not found\n',
    );
  });

  it("kubectl get pods in an empty (even absent) namespace reports no resources, rc 0", async () => {
    const result = await kubectl("get", "pods", "-n", "read-nothing-here");
    expect(succeeded(result)).toBe("");
    expect(result.stderr).toBe("No resources found in read-nothing-here namespace.\n");
  });

  it("kubectl get namespaces shows the system namespaces as Active", async () => {
    const rows = tableRows(succeeded(await kubectl("get", "namespaces")));
    expect(rows[0]).toEqual(["NAME", "STATUS", "AGE"]);
    const byName = rowsByName(rows);
    for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      expect(byName.get(name)?.[1], name).toBe("Active");
    }
  });

  it("kubectl get pods prints the pod table (READY counts containers), also by name and short name", async () => {
    await seed("read-pods", [
      podManifest("read-pods", "solo", ["main"]),
      podManifest("read-pods", "duo", ["main", "helper"]),
    ]);
    const rows = tableRows(succeeded(await kubectl("get", "pods", "-n", "read-pods")));
    expect(rows[0]).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    expect(rows).toHaveLength(3);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["duo", "solo"]);
    const byName = rowsByName(rows);
    expect(byName.get("solo")?.slice(0, 4)).toEqual(["solo", "0/1", "Pending", "0"]);
    expect(byName.get("duo")?.slice(0, 4)).toEqual(["duo", "0/2", "Pending", "0"]);
    expect(byName.get("solo")?.[4]).toMatch(AGE);

    const short = tableRows(succeeded(await kubectl("get", "po", "-n", "read-pods")));
    expect(short.map((r) => r.slice(0, 4))).toEqual(rows.map((r) => r.slice(0, 4)));

    const single = tableRows(succeeded(await kubectl("get", "pod", "solo", "-n", "read-pods")));
    expect(single).toHaveLength(2);
    expect(single[1]?.slice(0, 4)).toEqual(["solo", "0/1", "Pending", "0"]);

    const labelled = tableRows(
      succeeded(await kubectl("get", "pods", "-n", "read-pods", "--show-labels")),
    );
    expect(labelled[0]).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "LABELS"]);
    expect(rowsByName(labelled).get("duo")?.[5]).toBe("app=duo");
  });

  it("kubectl get deploy -o wide adds containers, images and selector", async () => {
    await seed("read-deploy", [deploymentManifest("read-deploy")]);
    const rows = tableRows(
      succeeded(await kubectl("get", "deploy", "-n", "read-deploy", "-o", "wide")),
    );
    expect(rows[0]).toEqual([
      "NAME",
      "READY",
      "UP-TO-DATE",
      "AVAILABLE",
      "AGE",
      "CONTAINERS",
      "IMAGES",
      "SELECTOR",
    ]);
    expect(rows).toHaveLength(2);
    const web = rows[1] ?? [];
    expect(web[0]).toBe("web");
    expect(web[1]).toMatch(/^\d+\/3$/);
    expect(web[4]).toMatch(AGE);
    expect(web.slice(5)).toEqual(["nginx,sidecar", "nginx:1.27,busybox:1.36", "app=web"]);
    const narrow = tableRows(succeeded(await kubectl("get", "deploy", "-n", "read-deploy")));
    expect(narrow[0]).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
  });

  it("kubectl get -o json and -o yaml print the full object and lists", async () => {
    await seed("read-json", [deploymentManifest("read-json")]);
    interface Deployment {
      apiVersion: string;
      kind: string;
      metadata: {
        name: string;
        namespace: string;
        uid: string;
        resourceVersion: string;
        creationTimestamp: string;
        generation: number;
        labels: Record<string, string>;
      };
      spec: {
        replicas: number;
        template: { spec: { containers: { name: string; image: string }[] } };
      };
    }
    const check = (d: Deployment): void => {
      expect(d.apiVersion).toBe("apps/v1");
      expect(d.kind).toBe("Deployment");
      expect(d.metadata.name).toBe("web");
      expect(d.metadata.namespace).toBe("read-json");
      expect(d.metadata.uid).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      expect(d.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(d.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(d.metadata.generation).toBe(1);
      expect(d.metadata.labels).toEqual({ app: "web" });
      expect(d.spec.replicas).toBe(3);
      expect(d.spec.template.spec.containers.map((c) => [c.name, c.image])).toEqual([
        ["nginx", "nginx:1.27"],
        ["sidecar", "busybox:1.36"],
      ]);
    };
    const json = JSON.parse(
      succeeded(await kubectl("get", "deploy", "web", "-n", "read-json", "-o", "json")),
    ) as Deployment;
    check(json);
    const yaml = parseYaml(
      succeeded(await kubectl("get", "deploy", "web", "-n", "read-json", "-o", "yaml")),
    ) as Deployment;
    check(yaml);
    expect(yaml.metadata.uid).toBe(json.metadata.uid);

    const list = JSON.parse(
      succeeded(await kubectl("get", "deploy", "-n", "read-json", "-o", "json")),
    ) as {
      apiVersion: string;
      kind: string;
      items: Deployment[];
    };
    expect(list.kind).toBe("List");
    expect(list.apiVersion).toBe("v1");
    expect(list.items).toHaveLength(1);
    check(list.items[0] as Deployment);

    const name = succeeded(await kubectl("get", "deploy", "-n", "read-json", "-o", "name"));
    expect(name).toBe("deployment.apps/web\n");
    const path = succeeded(
      await kubectl(
        "get",
        "deploy",
        "web",
        "-n",
        "read-json",
        "-o",
        "jsonpath={.spec.template.spec.containers[*].name}",
      ),
    );
    expect(path).toBe("nginx sidecar");
  });

  it("kubectl get pods -A --chunk-size=2 follows continue tokens and lists each pod once", async () => {
    const names = ["c1", "c2", "c3", "c4", "c5"];
    await seed(
      "read-chunk",
      names.map((n) => podManifest("read-chunk", n, ["main"])),
    );
    const result = await kubectl("get", "pods", "-A", "--chunk-size=2", "-v=6");
    const rows = tableRows(succeeded(result));
    expect(rows[0]).toEqual(["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    expect(rows.filter((r) => r[0] === "NAMESPACE")).toHaveLength(1);
    const chunkRows = rows.filter((r) => r[0] === "read-chunk");
    expect(chunkRows.map((r) => r[1])).toEqual(names);
    const requests = result.stderr
      .split("\n")
      .filter((line) => /GET \S+\/api\/v1\/pods\?/.test(line));
    const dataRows = rows.length - 1;
    expect(requests).toHaveLength(Math.ceil(dataRows / 2));
    expect(requests[0]).toMatch(/\/api\/v1\/pods\?limit=2 200 OK/);
    for (const line of requests.slice(1))
      expect(line).toMatch(/\/api\/v1\/pods\?continue=[^&\s]+&limit=2 200 OK/);
  });

  it("kubectl get all expands the 'all' category (pods, services, deployments)", async () => {
    await seed("read-all", [
      podManifest("read-all", "lone", ["main"]),
      deploymentManifest("read-all"),
      `apiVersion: v1
kind: Service
metadata: {name: front, namespace: read-all}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`,
    ]);
    const out = succeeded(await kubectl("get", "all", "-n", "read-all"));
    const sections = out.split("\n\n").map((s) => tableRows(s));
    const pods = sections.find((s) => s[0]?.[0] === "NAME" && s[1]?.[0]?.startsWith("pod/"));
    expect(pods?.[0]).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    expect(pods?.slice(1).map((r) => r.slice(0, 4))).toEqual([["pod/lone", "0/1", "Pending", "0"]]);
    const services = sections.find((s) => s[1]?.[0]?.startsWith("service/"));
    expect(services?.[0]).toEqual(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]);
    const front = services?.[1] ?? [];
    expect(front[0]).toBe("service/front");
    expect(front[1]).toBe("ClusterIP");
    expect(front[2]).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(front.slice(3, 5)).toEqual(["<none>", "80/TCP"]);
    const deployments = sections.find((s) => s[1]?.[0]?.startsWith("deployment.apps/"));
    expect(deployments?.[0]).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    expect(deployments?.[1]?.[0]).toBe("deployment.apps/web");
  });
});
