/**
 * kubectl against a CRD with a schema (issue 19's "Done when"): an invalid custom resource is
 * refused with kube-apiserver's message, strict field validation (kubectl's default) refuses an
 * unknown field, `--validate=warn` passes it with the server's warning, and two
 * `kubectl apply --server-side` managers own different entries of a `map` list.
 */
import { describe, expect, it } from "vitest";
import {
  failed,
  hasKubectl,
  succeeded,
  useKubectlSession,
  warnIfNoKubectl,
  type KubectlResult,
} from "../support/kubectl.js";

warnIfNoKubectl("the kubectl custom resource schema conformance tests");

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gateways.schema.example.com
spec:
  group: schema.example.com
  scope: Namespaced
  names: {plural: gateways, singular: gateway, kind: Gateway, listKind: GatewayList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              listeners:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
`;

function gateway(name: string, spec: string): string {
  return `apiVersion: schema.example.com/v1
kind: Gateway
metadata: {name: ${name}, namespace: default}
spec: ${spec}
`;
}

describe.skipIf(!hasKubectl)("kubectl with a CRD schema against kubekit serve", () => {
  const session = useKubectlSession();
  const kubectl = (...args: string[]): Promise<KubectlResult> => session().run(args);

  async function apply(name: string, manifest: string, ...flags: string[]): Promise<KubectlResult> {
    const path = await session().writeManifest(`${name}.yaml`, manifest);
    return kubectl("apply", "-f", path, ...flags);
  }

  it("installs the CRD and waits until it is established", async () => {
    succeeded(await apply("crd", CRD));
    succeeded(
      await kubectl(
        "wait",
        "--for=condition=established",
        "crd/gateways.schema.example.com",
        "--timeout=10s",
      ),
    );
  });

  it("refuses a custom resource of the wrong type with kube's Invalid message", async () => {
    const result = await apply("bad", gateway("bad", '{size: "big"}'));
    expect(failed(result)).toContain(
      'The Gateway "bad" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    );
    const missing = await apply("missing", gateway("missing", "{listeners: []}"));
    expect(failed(missing)).toContain("spec.size: Required value");
    expect(failed(await kubectl("get", "gateway", "bad"))).toContain("NotFound");
  });

  it("refuses an unknown field under kubectl's default strict validation; --validate=warn prunes it", async () => {
    const strict = await apply("strict", gateway("strict", "{size: 1, bogus: true}"));
    expect(failed(strict)).toContain('unknown field "spec.bogus"');
    const warned = await apply(
      "warned",
      gateway("warned", "{size: 1, bogus: true}"),
      "--validate=warn",
    );
    expect(succeeded(warned)).toBe("gateway.schema.example.com/warned created\n");
    expect(warned.stderr).toContain('unknown field "spec.bogus"');
    expect(succeeded(await kubectl("get", "gateway", "warned", "-o", "jsonpath={.spec}"))).toBe(
      '{"size":1}',
    );
  });

  it("two server-side apply managers own different entries of a map list", async () => {
    succeeded(
      await apply(
        "a",
        gateway("shared", "{size: 1, listeners: [{name: http, port: 80}]}"),
        "--server-side",
        "--field-manager=team-a",
      ),
    );
    const b = await apply(
      "b",
      gateway("shared", "{size: 1, listeners: [{name: https, port: 443}]}"),
      "--server-side",
      "--field-manager=team-b",
    );
    expect(succeeded(b)).toBe("gateway.schema.example.com/shared serverside-applied\n");
    // The names, sorted: the merged order follows structured-merge-diff's list merge.
    const listeners = async (): Promise<string> =>
      succeeded(
        await kubectl("get", "gateway", "shared", "-o", "jsonpath={.spec.listeners[*].name}"),
      )
        .split(" ")
        .sort()
        .join(" ");
    expect(await listeners()).toBe("http https");

    // team-b takes http's port by force: team-a keeps nothing of it, and https stays.
    const forced = await apply(
      "b2",
      gateway(
        "shared",
        "{size: 1, listeners: [{name: https, port: 443}, {name: http, port: 8080}]}",
      ),
      "--server-side",
      "--field-manager=team-b",
      "--force-conflicts",
    );
    succeeded(forced);
    expect(await listeners()).toBe("http https");
    expect(
      succeeded(
        await kubectl(
          "get",
          "gateway",
          "shared",
          "-o",
          "jsonpath={.spec.listeners[?(@.name=='http')].port}",
        ),
      ),
    ).toBe("8080");

    // team-a's next apply without http no longer removes it: team-b owns it now.
    succeeded(
      await apply(
        "a2",
        gateway("shared", "{size: 1, listeners: []}"),
        "--server-side",
        "--field-manager=team-a",
      ),
    );
    expect(await listeners()).toBe("http https");
  });
});
