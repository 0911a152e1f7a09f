import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  warnIfNoKubectl,
  succeeded,
  failed,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl validation conformance tests");
/**
 * Real kubectl against `kubekit serve`: per-kind validation (422 with kube-apiserver's field
 * paths, as kubectl prints them), defaults visible in `kubectl get -o yaml`, a forbidden Pod
 * spec update, and a Service's clusterIP kept from client-side to server-side apply.
 */

const POD_UPDATE_MESSAGE =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

describe.skipIf(!hasKubectl)("kubectl: validation, defaulting and allocated values", () => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  beforeAll(async () => {
    session = await KubectlSession.start();
    succeeded(await kubectl("create", "namespace", "val"));
  });

  afterAll(async () => {
    if (!session) return;
    const exit = await session.stop();
    expect(exit.code, exit.stderr).toBe(0);
  });

  it("rejects invalid objects with kube-apiserver's field paths", async () => {
    const pod = await session.writeManifest(
      "bad-pod.yaml",
      `apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: val}
spec:
  containers:
  - {name: Bad_Name, image: ""}
`,
    );
    const stderr = failed(await kubectl("apply", "-f", pod));
    expect(stderr).toContain('The Pod "bad" is invalid: ');
    expect(stderr).toContain(
      'spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label',
    );
    expect(stderr).toContain("spec.containers[0].image: Required value");

    const deploy = await session.writeManifest(
      "bad-deploy.yaml",
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: bad, namespace: val}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`,
    );
    expect(failed(await kubectl("apply", "-f", deploy))).toBe(
      'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`\n',
    );

    const cm = await session.writeManifest(
      "bad-cm.yaml",
      `apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: val}
data: {"bad key!": x}
---
apiVersion: v1
kind: Service
metadata: {name: bad, namespace: val}
spec:
  ports: [{port: 0}]
`,
    );
    const both = failed(await kubectl("apply", "-f", cm));
    expect(both).toContain('data[bad key!]: Invalid value: "bad key!"');
    // The defaulted targetPort (the port, 0) is invalid too, as kube-apiserver reports it.
    expect(both).toContain(
      ': Service "bad" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]',
    );
    expect(failed(await kubectl("get", "pod", "bad", "-n", "val"))).toContain("NotFound");
  });

  it("shows server defaults in kubectl get -o yaml", async () => {
    succeeded(await kubectl("run", "web", "-n", "val", "--image=nginx"));
    const yaml = succeeded(await kubectl("get", "pod", "web", "-n", "val", "-o", "yaml"));
    for (const line of [
      "  dnsPolicy: ClusterFirst",
      "  enableServiceLinks: true",
      "  restartPolicy: Always",
      "  schedulerName: default-scheduler",
      "  securityContext: {}",
      "  terminationGracePeriodSeconds: 30",
      "    imagePullPolicy: Always",
      "    terminationMessagePath: /dev/termination-log",
      "    terminationMessagePolicy: File",
    ]) {
      expect(yaml).toContain(`${line}\n`);
    }
    succeeded(await kubectl("create", "deployment", "web", "-n", "val", "--image=nginx:1.27"));
    const deploy = succeeded(await kubectl("get", "deployment", "web", "-n", "val", "-o", "yaml"));
    for (const line of [
      "  progressDeadlineSeconds: 600",
      "  revisionHistoryLimit: 10",
      "      maxSurge: 25%",
      "      maxUnavailable: 25%",
      "    type: RollingUpdate",
      "        imagePullPolicy: IfNotPresent",
    ]) {
      expect(deploy).toContain(`${line}\n`);
    }
  });

  it("rejects a forbidden pod spec update and accepts an image change", async () => {
    succeeded(await kubectl("run", "frozen", "-n", "val", "--image=nginx:1.26"));
    const patch = JSON.stringify({
      spec: { containers: [{ name: "frozen", env: [{ name: "A", value: "1" }] }] },
    });
    expect(failed(await kubectl("patch", "pod", "frozen", "-n", "val", "-p", patch))).toBe(
      `The Pod "frozen" is invalid: spec: Forbidden: ${POD_UPDATE_MESSAGE}\n`,
    );
    succeeded(await kubectl("set", "image", "pod/frozen", "frozen=nginx:1.27", "-n", "val"));
    expect(
      succeeded(
        await kubectl(
          "get",
          "pod",
          "frozen",
          "-n",
          "val",
          "-o",
          "jsonpath={.spec.containers[0].image}",
        ),
      ),
    ).toBe("nginx:1.27");
  });

  it("keeps clusterIP from kubectl apply to kubectl apply --server-side", async () => {
    const path = await session.writeManifest(
      "svc.yaml",
      `apiVersion: v1
kind: Service
metadata: {name: web, namespace: val}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`,
    );
    succeeded(await kubectl("apply", "-f", path));
    const ip = succeeded(
      await kubectl("get", "service", "web", "-n", "val", "-o", "jsonpath={.spec.clusterIP}"),
    );
    expect(ip).toMatch(/^10\.96\.\d+\.\d+$/);
    succeeded(await kubectl("apply", "--server-side", "-f", path));
    expect(
      succeeded(
        await kubectl(
          "get",
          "service",
          "web",
          "-n",
          "val",
          "-o",
          "jsonpath={.spec.clusterIP} {.spec.clusterIPs[0]}",
        ),
      ),
    ).toBe(`${ip} ${ip}`);
    succeeded(await kubectl("apply", "-f", path));
    expect(
      succeeded(
        await kubectl("get", "service", "web", "-n", "val", "-o", "jsonpath={.spec.clusterIP}"),
      ),
    ).toBe(ip);
  });
});
