import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  warnIfNoKubectl,
  succeeded,
  failed,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl write conformance tests");
interface ObjectMeta {
  name: string;
  namespace?: string;
  resourceVersion: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: { manager: string; operation: string; apiVersion: string }[];
}

interface Container {
  name: string;
  image: string;
}

interface Deployment {
  metadata: ObjectMeta;
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };
  };
}

function deploymentManifest(namespace: string, replicas: number, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${namespace}
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "${image}"}
      - {name: sidecar, image: "busybox:1.36"}
`;
}

describe.skipIf(!hasKubectl)("kubectl writes against kubekit serve", () => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  async function getJson<T>(...args: string[]): Promise<T> {
    return JSON.parse(succeeded(await kubectl("get", ...args, "-o", "json"))) as T;
  }

  async function jsonpath(expression: string, ...args: string[]): Promise<string> {
    return succeeded(await kubectl("get", ...args, "-o", `jsonpath=${expression}`));
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

  describe("generators (protobuf request bodies in kubectl 1.32)", () => {
    it("create namespace prints 'created'; a second create is AlreadyExists", async () => {
      expect(succeeded(await kubectl("create", "namespace", "gen"))).toBe(
        "namespace/gen created\n",
      );
      expect(await jsonpath("{.status.phase}", "namespace", "gen")).toBe("Active");
      expect(failed(await kubectl("create", "namespace", "gen"))).toBe(
        'Error from server (AlreadyExists): namespaces "gen" already exists\n',
      );
    });

    it("create configmap and secret generic store the literals", async () => {
      succeeded(await kubectl("create", "namespace", "gen-data"));
      expect(
        succeeded(
          await kubectl(
            "create",
            "configmap",
            "cfg",
            "-n",
            "gen-data",
            "--from-literal=a=b",
            "--from-literal=c=d",
          ),
        ),
      ).toBe("configmap/cfg created\n");
      const cm = await getJson<{ data: Record<string, string>; metadata: ObjectMeta }>(
        "cm",
        "cfg",
        "-n",
        "gen-data",
        "--show-managed-fields",
      );
      expect(cm.data).toEqual({ a: "b", c: "d" });
      expect(cm.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([
        ["kubectl-create", "Update"],
      ]);

      expect(
        succeeded(
          await kubectl(
            "create",
            "secret",
            "generic",
            "sec",
            "-n",
            "gen-data",
            "--from-literal=user=admin",
          ),
        ),
      ).toBe("secret/sec created\n");
      const secret = await getJson<{ data: Record<string, string> }>(
        "secret",
        "sec",
        "-n",
        "gen-data",
      );
      expect(secret.data).toEqual({ user: Buffer.from("admin").toString("base64") });
    });

    it("create secret generic without --type is defaulted to type Opaque", async () => {
      succeeded(await kubectl("create", "namespace", "gen-secret"));
      succeeded(
        await kubectl(
          "create",
          "secret",
          "generic",
          "plain",
          "-n",
          "gen-secret",
          "--from-literal=k=v",
        ),
      );
      expect(await jsonpath("{.type}", "secret", "plain", "-n", "gen-secret")).toBe("Opaque");
    });

    it("create configmap --dry-run=server creates nothing", async () => {
      succeeded(await kubectl("create", "namespace", "gen-dry"));
      expect(
        succeeded(await kubectl("create", "configmap", "dry", "-n", "gen-dry", "--dry-run=server")),
      ).toBe("configmap/dry created (server dry run)\n");
      expect(failed(await kubectl("get", "cm", "dry", "-n", "gen-dry"))).toBe(
        'Error from server (NotFound): configmaps "dry" not found\n',
      );
    });

    it("create deployment, service clusterip and serviceaccount", async () => {
      succeeded(await kubectl("create", "namespace", "gen-work"));
      expect(
        succeeded(
          await kubectl(
            "create",
            "deployment",
            "dep",
            "-n",
            "gen-work",
            "--image=nginx:1.27",
            "--replicas=2",
          ),
        ),
      ).toBe("deployment.apps/dep created\n");
      const dep = await getJson<Deployment>("deploy", "dep", "-n", "gen-work");
      expect(dep.spec.replicas).toBe(2);
      expect(dep.spec.selector.matchLabels).toEqual({ app: "dep" });
      expect(dep.spec.template.metadata.labels).toEqual({ app: "dep" });
      expect(dep.spec.template.spec.containers.map((c) => [c.name, c.image])).toEqual([
        ["nginx", "nginx:1.27"],
      ]);

      expect(
        succeeded(
          await kubectl("create", "service", "clusterip", "svc", "-n", "gen-work", "--tcp=80:8080"),
        ),
      ).toBe("service/svc created\n");
      const svc = await getJson<{
        spec: {
          type: string;
          clusterIP: string;
          selector: Record<string, string>;
          ports: { name: string; port: number; targetPort: number; protocol: string }[];
        };
      }>("svc", "svc", "-n", "gen-work");
      expect(svc.spec.type).toBe("ClusterIP");
      expect(svc.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(svc.spec.selector).toEqual({ app: "svc" });
      expect(svc.spec.ports).toEqual([
        { name: "80-8080", port: 80, targetPort: 8080, protocol: "TCP" },
      ]);

      expect(succeeded(await kubectl("create", "serviceaccount", "robot", "-n", "gen-work"))).toBe(
        "serviceaccount/robot created\n",
      );
      expect(await jsonpath("{.metadata.name}", "sa", "robot", "-n", "gen-work")).toBe("robot");
    });
  });

  describe("create -f", () => {
    it("creates a pod from a YAML file; again is AlreadyExists; a missing namespace is NotFound", async () => {
      succeeded(await kubectl("create", "namespace", "file"));
      const path = await session.writeManifest(
        "pod.yaml",
        `apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: file
  labels: {app: p1}
spec:
  containers:
  - name: main
    image: nginx:1.27
`,
      );
      expect(succeeded(await kubectl("create", "-f", path))).toBe("pod/p1 created\n");
      const pod = await getJson<{ metadata: ObjectMeta; spec: { containers: Container[] } }>(
        "pod",
        "p1",
        "-n",
        "file",
      );
      expect(pod.metadata.labels).toEqual({ app: "p1" });
      expect(pod.spec.containers.map((c) => c.image)).toEqual(["nginx:1.27"]);
      expect(failed(await kubectl("create", "-f", path))).toBe(
        `Error from server (AlreadyExists): error when creating "${path}": pods "p1" already exists\n`,
      );
      const elsewhere = await session.writeManifest(
        "pod-missing-ns.yaml",
        `apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: file-missing}
spec:
  containers: [{name: main, image: "nginx:1.27"}]
`,
      );
      expect(failed(await kubectl("create", "-f", elsewhere))).toBe(
        `Error from server (NotFound): error when creating "${elsewhere}": namespaces "file-missing" not found\n`,
      );
    });

    it("rejects an unknown field under the default strict validation", async () => {
      succeeded(await kubectl("create", "namespace", "file-strict"));
      const path = await session.writeManifest(
        "bad-pod.yaml",
        `apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: file-strict}
spec:
  containers:
  - {name: main, image: "nginx:1.27", bogusField: 1}
`,
      );
      expect(failed(await kubectl("create", "-f", path))).toBe(
        `Error from server (BadRequest): error when creating "${path}": Pod in version "v1" cannot be handled as a Pod: ` +
          `strict decoding error: unknown field "spec.containers[0].bogusField"\n`,
      );
      expect(failed(await kubectl("get", "pod", "bad", "-n", "file-strict"))).toContain("NotFound");
    });
  });

  describe("client-side apply", () => {
    it("apply prints created, then unchanged, then configured after a change", async () => {
      succeeded(await kubectl("create", "namespace", "csa"));
      const path = await session.writeManifest(
        "deploy.yaml",
        deploymentManifest("csa", 2, "nginx:1.27"),
      );
      expect(succeeded(await kubectl("apply", "-f", path))).toBe("deployment.apps/web created\n");
      const created = await getJson<Deployment>("deploy", "web", "-n", "csa");
      const lastApplied =
        created.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"];
      expect(lastApplied).toBeDefined();
      expect(JSON.parse(lastApplied ?? "null")).toMatchObject({
        kind: "Deployment",
        metadata: { name: "web", namespace: "csa", annotations: {} },
        spec: { replicas: 2 },
      });

      expect(succeeded(await kubectl("apply", "-f", path))).toBe("deployment.apps/web unchanged\n");
      const unchanged = await getJson<Deployment>("deploy", "web", "-n", "csa");
      expect(unchanged.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

      await session.writeManifest("deploy.yaml", deploymentManifest("csa", 3, "nginx:1.28"));
      expect(succeeded(await kubectl("apply", "-f", path))).toBe(
        "deployment.apps/web configured\n",
      );
      expect(
        await jsonpath(
          "{.spec.replicas} {.spec.template.spec.containers[*].image}",
          "deploy",
          "web",
          "-n",
          "csa",
        ),
      ).toBe("3 nginx:1.28 busybox:1.36");
      expect(succeeded(await kubectl("apply", "-f", path))).toBe("deployment.apps/web unchanged\n");
    });
  });

  describe("server-side apply", () => {
    const configMap = (value: string): string => `apiVersion: v1
kind: ConfigMap
metadata: {name: ssa, namespace: ssa}
data: {key: "${value}"}
`;

    it("applies, reports conflicts with another manager, and --force-conflicts takes over", async () => {
      succeeded(await kubectl("create", "namespace", "ssa"));
      const first = await session.writeManifest("ssa-1.yaml", configMap("one"));
      expect(succeeded(await kubectl("apply", "--server-side", "-f", first))).toBe(
        "configmap/ssa serverside-applied\n",
      );
      const applied = await getJson<{ metadata: ObjectMeta }>(
        "cm",
        "ssa",
        "-n",
        "ssa",
        "--show-managed-fields",
      );
      expect(applied.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([
        ["kubectl", "Apply"],
      ]);

      expect(succeeded(await kubectl("apply", "--server-side", "-f", first))).toBe(
        "configmap/ssa serverside-applied\n",
      );
      const reapplied = await getJson<{ metadata: ObjectMeta }>("cm", "ssa", "-n", "ssa");
      expect(reapplied.metadata.resourceVersion).toBe(applied.metadata.resourceVersion);

      const second = await session.writeManifest("ssa-2.yaml", configMap("two"));
      const conflict = failed(
        await kubectl("apply", "--server-side", "--field-manager=other", "-f", second),
      );
      expect(conflict).toMatch(
        /^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.key\n/,
      );
      expect(conflict).toContain("--force-conflicts");
      expect(await jsonpath("{.data.key}", "cm", "ssa", "-n", "ssa")).toBe("one");

      expect(
        succeeded(
          await kubectl(
            "apply",
            "--server-side",
            "--field-manager=other",
            "--force-conflicts",
            "-f",
            second,
          ),
        ),
      ).toBe("configmap/ssa serverside-applied\n");
      const forced = await getJson<{ data: Record<string, string>; metadata: ObjectMeta }>(
        "cm",
        "ssa",
        "-n",
        "ssa",
        "--show-managed-fields",
      );
      expect(forced.data).toEqual({ key: "two" });
      expect(forced.metadata.managedFields?.find((m) => m.manager === "other")?.operation).toBe(
        "Apply",
      );
    });

    it("a conflict with an Update manager names its API version", async () => {
      succeeded(await kubectl("create", "namespace", "ssa-update"));
      succeeded(
        await kubectl("create", "configmap", "made", "-n", "ssa-update", "--from-literal=a=1"),
      );
      const path = await session.writeManifest(
        "ssa-update.yaml",
        `apiVersion: v1
kind: ConfigMap
metadata: {name: made, namespace: ssa-update}
data: {a: "2"}
`,
      );
      expect(failed(await kubectl("apply", "--server-side", "-f", path))).toMatch(
        /^error: Apply failed with 1 conflict: conflict with "kubectl-create" using v1: \.data\.a\n/,
      );
    });
  });

  describe("label and annotate", () => {
    beforeAll(async () => {
      succeeded(await kubectl("create", "namespace", "meta"));
    });

    it("label adds, refuses to overwrite without --overwrite, and removes (the empty map is omitted)", async () => {
      succeeded(await kubectl("create", "configmap", "l", "-n", "meta", "--from-literal=k=v"));
      const cm = ["cm", "l", "-n", "meta"];
      expect(succeeded(await kubectl("label", ...cm, "tier=front"))).toBe("configmap/l labeled\n");
      expect(await jsonpath("{.metadata.labels}", ...cm)).toBe('{"tier":"front"}');
      expect(failed(await kubectl("label", ...cm, "tier=back"))).toBe(
        "error: 'tier' already has a value (front), and --overwrite is false\n",
      );
      expect(succeeded(await kubectl("label", ...cm, "tier=back", "--overwrite"))).toBe(
        "configmap/l labeled\n",
      );
      expect(await jsonpath("{.metadata.labels.tier}", ...cm)).toBe("back");
      const managers = (await getJson<{ metadata: ObjectMeta }>(...cm, "--show-managed-fields"))
        .metadata.managedFields;
      expect(managers?.map((m) => [m.manager, m.operation])).toEqual([
        ["kubectl-create", "Update"],
        ["kubectl-label", "Update"],
      ]);
      expect(succeeded(await kubectl("label", ...cm, "tier-"))).toBe("configmap/l unlabeled\n");
      expect(await jsonpath("{.metadata.labels.tier}", ...cm)).toBe("");
      // A built-in kind's empty labels map is omitted (Go omitempty), as kube-apiserver serves it.
      expect(await jsonpath("{.metadata.labels}", ...cm)).toBe("");
    });

    it("annotate adds and removes an annotation (the empty map is omitted)", async () => {
      succeeded(await kubectl("create", "configmap", "a", "-n", "meta"));
      const cm = ["cm", "a", "-n", "meta"];
      expect(succeeded(await kubectl("annotate", ...cm, "note=hello"))).toBe(
        "configmap/a annotated\n",
      );
      expect(await jsonpath("{.metadata.annotations.note}", ...cm)).toBe("hello");
      expect(succeeded(await kubectl("annotate", ...cm, "note-"))).toBe("configmap/a annotated\n");
      expect(await jsonpath("{.metadata.annotations.note}", ...cm)).toBe("");
      expect(await jsonpath("{.metadata.annotations}", ...cm)).toBe("");
    });
  });

  describe("patch", () => {
    const web = ["deploy", "web", "-n", "patch"];

    beforeAll(async () => {
      succeeded(await kubectl("create", "namespace", "patch"));
      const path = await session.writeManifest(
        "patch-deploy.yaml",
        deploymentManifest("patch", 1, "nginx:1.27"),
      );
      succeeded(await kubectl("create", "-f", path));
    });

    it("--type merge replaces fields", async () => {
      expect(
        succeeded(
          await kubectl("patch", ...web, "--type", "merge", "-p", '{"spec":{"replicas":2}}'),
        ),
      ).toBe("deployment.apps/web patched\n");
      expect(await jsonpath("{.spec.replicas}", ...web)).toBe("2");
    });

    it("--type json applies operations; a failed test op is Invalid", async () => {
      expect(
        succeeded(
          await kubectl(
            "patch",
            ...web,
            "--type",
            "json",
            "-p",
            '[{"op":"replace","path":"/spec/replicas","value":3},{"op":"add","path":"/metadata/labels/patched","value":"yes"}]',
          ),
        ),
      ).toBe("deployment.apps/web patched\n");
      expect(await jsonpath("{.spec.replicas} {.metadata.labels.patched}", ...web)).toBe("3 yes");
      const before = await jsonpath("{.metadata.resourceVersion}", ...web);
      const stderr = failed(
        await kubectl(
          "patch",
          ...web,
          "--type",
          "json",
          "-p",
          '[{"op":"test","path":"/spec/replicas","value":99}]',
        ),
      );
      // kube-apiserver answers 422 Invalid with empty details except one cause (no field), so
      // kubectl prints the generic prefix and ": <field>: <message>" with an empty field.
      expect(stderr).toBe(
        "The request is invalid: : testing value /spec/replicas failed: test failed\n",
      );
      expect(await jsonpath("{.metadata.resourceVersion}", ...web)).toBe(before);
    });

    it("the default (strategic) type merges containers by name; an identical patch prints (no change)", async () => {
      const patch =
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.29"}]}}}}';
      expect(succeeded(await kubectl("patch", ...web, "-p", patch))).toBe(
        "deployment.apps/web patched\n",
      );
      expect(
        await jsonpath("{range .spec.template.spec.containers[*]}{.name}={.image} {end}", ...web),
      ).toBe("nginx=nginx:1.29 sidecar=busybox:1.36 ");
      const before = await jsonpath("{.metadata.resourceVersion}", ...web);
      expect(succeeded(await kubectl("patch", ...web, "-p", patch))).toBe(
        "deployment.apps/web patched (no change)\n",
      );
      expect(await jsonpath("{.metadata.resourceVersion}", ...web)).toBe(before);

      const remove =
        '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}';
      expect(succeeded(await kubectl("patch", ...web, "-p", remove))).toBe(
        "deployment.apps/web patched\n",
      );
      expect(await jsonpath("{.spec.template.spec.containers[*].name}", ...web)).toBe("nginx");
    });

    it("merge patch on a missing object is NotFound", async () => {
      expect(
        failed(
          await kubectl("patch", "deploy", "ghost", "-n", "patch", "--type", "merge", "-p", "{}"),
        ),
      ).toBe('Error from server (NotFound): deployments.apps "ghost" not found\n');
    });
  });

  describe("scale", () => {
    it("scales through the scale subresource, with and without --current-replicas", async () => {
      succeeded(await kubectl("create", "namespace", "scale"));
      const path = await session.writeManifest(
        "scale-deploy.yaml",
        deploymentManifest("scale", 1, "nginx:1.27"),
      );
      succeeded(await kubectl("create", "-f", path));
      const web = ["deploy", "web", "-n", "scale"];
      expect(
        succeeded(await kubectl("scale", "deployment", "web", "-n", "scale", "--replicas=5")),
      ).toBe("deployment.apps/web scaled\n");
      expect(await jsonpath("{.spec.replicas}", ...web)).toBe("5");
      expect(
        succeeded(
          await kubectl(
            "scale",
            "deployment",
            "web",
            "-n",
            "scale",
            "--current-replicas=5",
            "--replicas=4",
          ),
        ),
      ).toBe("deployment.apps/web scaled\n");
      expect(await jsonpath("{.spec.replicas}", ...web)).toBe("4");
      expect(
        failed(
          await kubectl(
            "scale",
            "deployment",
            "web",
            "-n",
            "scale",
            "--current-replicas=5",
            "--replicas=3",
          ),
        ),
      ).toBe("error: Expected replicas to be 5, was 4\n");
      expect(await jsonpath("{.spec.replicas}", ...web)).toBe("4");
    });
  });

  describe("delete", () => {
    it("delete prints 'deleted', then get is NotFound; deleting again fails unless --ignore-not-found", async () => {
      succeeded(await kubectl("create", "namespace", "del"));
      succeeded(await kubectl("create", "configmap", "gone", "-n", "del"));
      expect(succeeded(await kubectl("delete", "cm", "gone", "-n", "del"))).toBe(
        'configmap "gone" deleted\n',
      );
      const get = await kubectl("get", "cm", "gone", "-n", "del");
      expect(failed(get)).toBe('Error from server (NotFound): configmaps "gone" not found\n');
      expect(get.stdout).toBe("");
      expect(failed(await kubectl("delete", "cm", "gone", "-n", "del"))).toBe(
        'Error from server (NotFound): configmaps "gone" not found\n',
      );
      const ignored = await kubectl("delete", "cm", "gone", "-n", "del", "--ignore-not-found");
      expect(succeeded(ignored)).toBe("");
      expect(ignored.stderr).toBe("");
    });

    it("delete pods -l deletes exactly the matching pods", async () => {
      succeeded(await kubectl("create", "namespace", "del-sel"));
      const pods = ["g1", "g2", "g3", "other"].map(
        (name) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: del-sel, labels: {app: ${name === "other" ? "other" : "gamma"}}}
spec:
  containers: [{name: main, image: "busybox:1.36"}]
`,
      );
      succeeded(
        await kubectl(
          "create",
          "-f",
          await session.writeManifest("del-sel.yaml", pods.join("---\n")),
        ),
      );
      expect(succeeded(await kubectl("delete", "pods", "-n", "del-sel", "-l", "app=gamma"))).toBe(
        'pod "g1" deleted\npod "g2" deleted\npod "g3" deleted\n',
      );
      expect(succeeded(await kubectl("get", "pods", "-n", "del-sel", "-o", "name"))).toBe(
        "pod/other\n",
      );
      const none = await kubectl("get", "pods", "-n", "del-sel", "-l", "app=gamma");
      expect(succeeded(none)).toBe("");
      expect(none.stderr).toBe("No resources found in del-sel namespace.\n");
    });

    it("delete -f deletes what the file names; again is NotFound naming the file", async () => {
      succeeded(await kubectl("create", "namespace", "del-file"));
      const path = await session.writeManifest(
        "del-deploy.yaml",
        deploymentManifest("del-file", 1, "nginx:1.27"),
      );
      succeeded(await kubectl("create", "-f", path));
      expect(succeeded(await kubectl("delete", "-f", path))).toBe(
        'deployment.apps "web" deleted\n',
      );
      expect(failed(await kubectl("delete", "-f", path))).toBe(
        `Error from server (NotFound): error when deleting "${path}": deployments.apps "web" not found\n`,
      );
    });

    it("delete namespace waits until the namespace and its contents are gone", async () => {
      succeeded(await kubectl("create", "namespace", "del-ns"));
      succeeded(await kubectl("create", "configmap", "inside", "-n", "del-ns"));
      expect(succeeded(await kubectl("delete", "namespace", "del-ns"))).toBe(
        'namespace "del-ns" deleted\n',
      );
      expect(failed(await kubectl("get", "namespace", "del-ns"))).toBe(
        'Error from server (NotFound): namespaces "del-ns" not found\n',
      );
      const contents = await kubectl("get", "cm", "-n", "del-ns");
      expect(succeeded(contents)).toBe("");
      expect(contents.stderr).toBe("No resources found in del-ns namespace.\n");
    });
  });
});
