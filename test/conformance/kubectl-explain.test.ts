import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  failed,
  hasKubectl,
  KubectlSession,
  succeeded,
  warnIfNoKubectl,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl explain conformance tests");

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: websites.explain.example.com
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: websites, singular: website, kind: Website, listKind: WebsiteList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A website served by the operator.
        properties:
          spec:
            type: object
            description: What the operator should serve.
            required: [image]
            properties:
              image: {type: string, description: The container image to serve.}
              replicas: {type: integer, format: int32, minimum: 0}
              tier: {type: string, enum: [free, paid]}
`;

/**
 * `kubectl explain` against `kubekit serve`: kubectl reads `/openapi/v3` (the default
 * `plaintext` output) or `/openapi/v2` in protobuf (`-o plaintext-openapiv2`) and renders the
 * schemas the server publishes.
 */
describe.skipIf(!hasKubectl)("kubectl explain against kubekit serve", () => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  beforeAll(async () => {
    session = await KubectlSession.start();
  });

  afterAll(async () => {
    if (!session) return;
    const exit = await session.stop();
    expect(exit.code, exit.stderr).toBe(0);
  });

  it("explain pods prints the kind, version and its top-level fields", async () => {
    const out = succeeded(await kubectl("explain", "pods"));
    expect(out).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n/);
    expect(out).toContain("FIELDS:");
    for (const field of ["apiVersion\t<string>", "kind\t<string>", "metadata\t<ObjectMeta>"]) {
      expect(out).toContain(field);
    }
    expect(out).toContain("spec\t<PodSpec>");
    expect(out).toContain("status\t<PodStatus>");
  });

  it("explain pods.spec.containers follows references into a list of objects", async () => {
    const out = succeeded(await kubectl("explain", "pods.spec.containers"));
    expect(out).toContain("FIELD: containers <[]Container>");
    expect(out).toMatch(/name\t<string> -required-/);
    expect(out).toContain("image\t<string>");
    expect(out).toContain("ports\t<[]ContainerPort>");
    expect(out).toContain("resources\t<ResourceRequirements>");
  });

  it("explain deployment --recursive prints the nested field tree", async () => {
    const out = succeeded(await kubectl("explain", "deployment", "--recursive"));
    expect(out).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
    expect(out).toMatch(/\n {2}spec\t<DeploymentSpec>\n/);
    expect(out).toMatch(/\n {4}replicas\t<integer>\n/);
    expect(out).toMatch(/\n {4}template\t<PodTemplateSpec> -required-\n/);
    expect(out).toMatch(/\n {8}containers\t<\[\]Container> -required-\n/);
    expect(out).toMatch(
      /\n {6}rollingUpdate\t<RollingUpdateDeployment>\n {8}maxSurge\t<IntOrString>\n/,
    );
  });

  it("explain cronjobs.spec, services.spec.ports and configmaps.data", async () => {
    const cron = succeeded(await kubectl("explain", "cronjobs.spec"));
    expect(cron).toMatch(/^GROUP:\s+batch\nKIND:\s+CronJob\nVERSION:\s+v1\n/);
    expect(cron).toContain("FIELD: spec <CronJobSpec>");
    expect(cron).toMatch(/schedule\t<string> -required-/);
    expect(cron).toMatch(/jobTemplate\t<JobTemplateSpec> -required-/);

    const ports = succeeded(await kubectl("explain", "services.spec.ports"));
    expect(ports).toContain("FIELD: ports <[]ServicePort>");
    expect(ports).toMatch(/port\t<integer> -required-/);
    expect(ports).toContain("targetPort\t<IntOrString>");

    const data = succeeded(await kubectl("explain", "configmaps.data"));
    expect(data).toContain("FIELD: data <map[string]string>");
  });

  it("explain statefulsets, nodes.status and ingresses.spec.rules resolve their types", async () => {
    const sts = succeeded(await kubectl("explain", "statefulsets.spec.volumeClaimTemplates"));
    expect(sts).toContain("FIELD: volumeClaimTemplates <[]PersistentVolumeClaim>");
    const nodes = succeeded(await kubectl("explain", "nodes.status.capacity"));
    expect(nodes).toContain("FIELD: capacity <map[string]Quantity>");
    const rules = succeeded(await kubectl("explain", "ingresses.spec.rules.http.paths"));
    expect(rules).toContain("FIELD: paths <[]HTTPIngressPath>");
    expect(rules).toMatch(/pathType\t<string> -required-/);
  });

  it("an unknown field is kubectl's error", async () => {
    const err = failed(await kubectl("explain", "pods.spec.nope"));
    expect(err).toContain(`field "nope" does not exist`);
  });

  it("explain -o plaintext-openapiv2 reads the protobuf v2 document", async () => {
    const out = succeeded(
      await kubectl("explain", "deployments.spec.strategy", "-o", "plaintext-openapiv2"),
    );
    expect(out).toMatch(/KIND:\s+Deployment/);
    expect(out).toMatch(/RESOURCE:\s+strategy <(Object|DeploymentStrategy)>/);
    expect(out).toContain("rollingUpdate");
  });

  // A kind without a PATCH operation (create-only reviews) is validated by kubectl itself
  // against the /openapi/v2 document (kubectl's pkg/validation), not by the server.
  it("client-side validation of a create-only kind uses the v2 schemas", async () => {
    const review = (spec: string): string => `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: alice
  resourceAttributes: {namespace: default, verb: get, resource: secrets${spec}}
`;
    const ok = await session.writeManifest("sar.yaml", review(""));
    const created = JSON.parse(succeeded(await kubectl("create", "-f", ok, "-o", "json"))) as {
      kind: string;
    };
    expect(created.kind).toBe("SubjectAccessReview");
    const bad = await session.writeManifest("sar-bad.yaml", review(", bogus: 1"));
    const err = failed(await kubectl("create", "-f", bad, "-o", "json"));
    expect(err).toContain(
      'unknown field "bogus" in io.k8s.api.authorization.v1.ResourceAttributes',
    );
  });

  it("explains a custom resource from its CRD's schema, with descriptions and enums", async () => {
    const path = await session.writeManifest("crd.yaml", CRD);
    succeeded(await kubectl("apply", "-f", path));
    succeeded(
      await kubectl(
        "wait",
        "--for=condition=established",
        "crd/websites.explain.example.com",
        "--timeout=20s",
      ),
    );
    const top = succeeded(await kubectl("explain", "websites"));
    expect(top).toMatch(/^GROUP:\s+explain\.example\.com\nKIND:\s+Website\nVERSION:\s+v1\n/);
    expect(top).toContain("A website served by the operator.");
    expect(top).toContain("metadata\t<ObjectMeta>");
    const spec = succeeded(await kubectl("explain", "websites.spec"));
    expect(spec).toContain("FIELD: spec <Object>");
    expect(spec).toContain("What the operator should serve.");
    expect(spec).toMatch(/image\t<string> -required-\n\s+The container image to serve\./);
    expect(spec).toMatch(/tier\t<string>\n\s+enum: free, paid/);
    const v2 = succeeded(
      await kubectl("explain", "websites.spec.image", "-o", "plaintext-openapiv2"),
    );
    expect(v2).toContain("The container image to serve.");
  });
});
