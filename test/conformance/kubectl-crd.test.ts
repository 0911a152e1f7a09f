import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  tableRows,
  warnIfNoKubectl,
  succeeded,
  failed,
} from "../support/kubectl.js";
import type { KubectlResult } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl CRD conformance tests");
const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wd]}
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
            properties:
              size: {type: integer}
              color: {type: string}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;

function widget(name: string, size: number, color: string): string {
  return `apiVersion: example.com/v1
kind: Widget
metadata: {name: ${name}, namespace: crd}
spec: {size: ${size}, color: ${color}}
`;
}

/**
 * One CRD's life with kubectl, in order: the tests share the CRD and its widgets, so they
 * run sequentially and each builds on the previous one.
 */
describe.skipIf(!hasKubectl)(
  "kubectl with a CustomResourceDefinition against kubekit serve",
  () => {
    let session: KubectlSession;
    const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);
    const crd = "customresourcedefinition.apiextensions.k8s.io/widgets.example.com";

    beforeAll(async () => {
      session = await KubectlSession.start();
      succeeded(await kubectl("create", "namespace", "crd"));
      // Warm kubectl's discovery cache before the CRD exists, so that later commands must
      // notice the new group (kubectl re-fetches discovery when a resource is missing).
      succeeded(await kubectl("get", "pods", "-n", "crd"));
    });

    afterAll(async () => {
      if (!session) return;
      const exit = await session.stop();
      expect(exit.code, exit.stderr).toBe(0);
      expect(exit.stdout).toContain("kubekit API server stopped");
    });

    it("apply -f creates the CRD and wait --for=condition=established succeeds", async () => {
      const path = await session.writeManifest("crd.yaml", CRD);
      expect(succeeded(await kubectl("apply", "-f", path))).toBe(`${crd} created\n`);
      expect(
        succeeded(
          await kubectl(
            "wait",
            "--for=condition=established",
            "crd/widgets.example.com",
            "--timeout=10s",
          ),
        ),
      ).toBe(`${crd} condition met\n`);
      const conditions = JSON.parse(
        succeeded(
          await kubectl("get", "crd", "widgets.example.com", "-o", "jsonpath={.status.conditions}"),
        ),
      ) as { type: string; status: string }[];
      expect(conditions.map((c) => [c.type, c.status])).toEqual(
        expect.arrayContaining([
          ["NamesAccepted", "True"],
          ["Established", "True"],
        ]),
      );
      const rows = tableRows(succeeded(await kubectl("get", "crd")));
      expect(rows[0]).toEqual(["NAME", "CREATED AT"]);
      expect(rows[1]?.[0]).toBe("widgets.example.com");
      expect(rows[1]?.[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it("the new resource appears in api-resources with its short name", async () => {
      const lines = succeeded(await kubectl("api-resources", "--api-group=example.com")).split(
        "\n",
      );
      expect(lines.map((line) => line.trim().split(/\s+/))).toContainEqual([
        "widgets",
        "wd",
        "example.com/v1",
        "true",
        "Widget",
      ]);
    });

    it("apply -f creates widgets; get widgets / wd / widget NAME print the printer columns", async () => {
      const w1 = await session.writeManifest("w1.yaml", widget("w1", 3, "red"));
      const w2 = await session.writeManifest("w2.yaml", widget("w2", 7, "blue"));
      expect(succeeded(await kubectl("apply", "-f", w1))).toBe("widget.example.com/w1 created\n");
      expect(succeeded(await kubectl("apply", "-f", w2))).toBe("widget.example.com/w2 created\n");
      expect(succeeded(await kubectl("apply", "-f", w1))).toBe("widget.example.com/w1 unchanged\n");

      for (const resource of ["widgets", "wd", "widgets.example.com", "widget"]) {
        const rows = tableRows(succeeded(await kubectl("get", resource, "-n", "crd")));
        expect(rows[0], resource).toEqual(["NAME", "SIZE", "COLOR", "AGE"]);
        expect(
          rows.slice(1).map((r) => r.slice(0, 3)),
          resource,
        ).toEqual([
          ["w1", "3", "red"],
          ["w2", "7", "blue"],
        ]);
        expect(rows[1]?.[3]).toMatch(/^\d+s$/);
      }
      const single = tableRows(succeeded(await kubectl("get", "widget", "w2", "-n", "crd")));
      expect(single).toEqual([
        ["NAME", "SIZE", "COLOR", "AGE"],
        ["w2", "7", "blue", expect.stringMatching(/^\d+s$/) as unknown as string],
      ]);
      const all = tableRows(succeeded(await kubectl("get", "wd", "-A")));
      expect(all[0]).toEqual(["NAMESPACE", "NAME", "SIZE", "COLOR", "AGE"]);
      expect(all.slice(1).map((r) => r.slice(0, 2))).toEqual([
        ["crd", "w1"],
        ["crd", "w2"],
      ]);

      const object = JSON.parse(
        succeeded(await kubectl("get", "wd", "w1", "-n", "crd", "-o", "json")),
      ) as {
        apiVersion: string;
        kind: string;
        metadata: { name: string; namespace: string; generation: number; uid: string };
        spec: { size: number; color: string };
      };
      expect(object.apiVersion).toBe("example.com/v1");
      expect(object.kind).toBe("Widget");
      expect(object.metadata).toMatchObject({ name: "w1", namespace: "crd", generation: 1 });
      expect(object.spec).toEqual({ size: 3, color: "red" });
      expect(succeeded(await kubectl("get", "wd", "-n", "crd", "-o", "name"))).toBe(
        "widget.example.com/w1\nwidget.example.com/w2\n",
      );
    });

    it("apply -f with a change prints configured (merge patch for custom resources)", async () => {
      const w1 = await session.writeManifest("w1.yaml", widget("w1", 4, "red"));
      expect(succeeded(await kubectl("apply", "-f", w1))).toBe(
        "widget.example.com/w1 configured\n",
      );
      expect(
        succeeded(
          await kubectl(
            "get",
            "wd",
            "w1",
            "-n",
            "crd",
            "-o",
            "jsonpath={.spec.size} {.metadata.generation}",
          ),
        ),
      ).toBe("4 2");
    });

    it("patch with the default strategic type is 415; --type merge and json work", async () => {
      const strategic = await kubectl(
        "patch",
        "widget",
        "w1",
        "-n",
        "crd",
        "-p",
        '{"spec":{"size":5}}',
      );
      expect(failed(strategic)).toBe(
        "error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: " +
          "the body of the request was in an unknown format - accepted media types include: " +
          "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n",
      );
      expect(
        succeeded(await kubectl("get", "wd", "w1", "-n", "crd", "-o", "jsonpath={.spec.size}")),
      ).toBe("4");

      expect(
        succeeded(
          await kubectl(
            "patch",
            "widget",
            "w1",
            "-n",
            "crd",
            "--type",
            "merge",
            "-p",
            '{"spec":{"size":5}}',
          ),
        ),
      ).toBe("widget.example.com/w1 patched\n");
      expect(
        succeeded(
          await kubectl(
            "patch",
            "widget",
            "w1",
            "-n",
            "crd",
            "--type",
            "json",
            "-p",
            '[{"op":"replace","path":"/spec/color","value":"green"}]',
          ),
        ),
      ).toBe("widget.example.com/w1 patched\n");
      const rows = tableRows(succeeded(await kubectl("get", "wd", "w1", "-n", "crd")));
      expect(rows[1]?.slice(0, 3)).toEqual(["w1", "5", "green"]);
    });

    it("label and server-side apply work on custom resources", async () => {
      expect(succeeded(await kubectl("label", "wd", "w2", "-n", "crd", "tier=gold"))).toBe(
        "widget.example.com/w2 labeled\n",
      );
      expect(
        succeeded(await kubectl("get", "wd", "-n", "crd", "-l", "tier=gold", "-o", "name")),
      ).toBe("widget.example.com/w2\n");
      const w3 = await session.writeManifest("w3.yaml", widget("w3", 1, "black"));
      expect(succeeded(await kubectl("apply", "--server-side", "-f", w3))).toBe(
        "widget.example.com/w3 serverside-applied\n",
      );
      expect(
        succeeded(await kubectl("get", "wd", "w3", "-n", "crd", "-o", "jsonpath={.spec.color}")),
      ).toBe("black");
    });

    it("delete crd removes the resource: get widgets then fails", async () => {
      expect(succeeded(await kubectl("delete", "crd", "widgets.example.com"))).toBe(
        `customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n`,
      );
      expect(failed(await kubectl("get", "crd", "widgets.example.com"))).toBe(
        'Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "widgets.example.com" not found\n',
      );
      const stderr = failed(await kubectl("get", "widgets", "-n", "crd"));
      // With kubectl's discovery cache still naming widgets, the list itself is a 404;
      // with a fresh cache kubectl reports the unknown resource type. Both mean "gone".
      expect(stderr).toMatch(
        /^(error: the server doesn't have a resource type "widgets"|Error from server \(NotFound\): .*the server could not find the requested resource.*)\n$/,
      );
      // api-resources always re-fetches discovery: the group is gone, and with that fresh
      // cache kubectl no longer knows the resource type at all.
      const listed = tableRows(
        succeeded(await kubectl("api-resources", "--api-group=example.com")),
      );
      expect(listed).toEqual([["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]]);
      expect(failed(await kubectl("get", "wd", "-n", "crd"))).toBe(
        'error: the server doesn\'t have a resource type "wd"\n',
      );
    });
  },
);
