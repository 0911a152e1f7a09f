import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { createCertificateAuthority } from "../../../../packages/apiserver/src/auth/certificates.js";
import { createErrors, crdWithSchema, prepared, updateErrors } from "./crd-fixtures.js";

/**
 * A CRD's spec and status besides its schema (`validateCustomResourceDefinitionSpec`,
 * `ValidateCustomResourceDefinitionNames`, `...StoredVersions`, `validateCustomResourceConversion`,
 * `validateCustomResourceDefinitionSpecUpdate` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`).
 */

const SCHEMA = { type: "object", properties: { spec: { type: "object" } } };

function crd(spec: JsonObject = {}): JsonObject {
  return crdWithSchema(SCHEMA, spec);
}

function versionsOf(obj: JsonObject): JsonObject[] {
  return (obj["spec"] as JsonObject)["versions"] as JsonObject[];
}

describe("group, scope and names", () => {
  it("accepts a complete CRD", () => {
    expect(createErrors(crd())).toEqual([]);
  });

  it("requires group, scope and names with kube's Required/Unsupported wording", () => {
    const c = crd({ group: "", scope: "", names: { plural: "", kind: "" } });
    (c["metadata"] as JsonObject)["name"] = "widgets";
    expect(createErrors(c)).toEqual([
      'metadata.name: Invalid value: "widgets": must be spec.names.plural+"."+spec.group',
      "spec.group: Required value",
      "spec.scope: Required value",
      "spec.names.plural: Required value",
      "spec.names.singular: Required value",
      "spec.names.kind: Required value",
      "spec.names.listKind: Required value",
    ]);
    expect(createErrors(crd({ scope: "Global" }))).toEqual([
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    ]);
  });

  it("wants a group with a dot and DNS-1035 names", () => {
    const c = crd({
      group: "example",
      names: { plural: "Widgets", kind: "Wid_get", listKind: "Wid_get", shortNames: ["w_"] },
    });
    (c["metadata"] as JsonObject)["name"] = "Widgets.example";
    const errors = createErrors(c);
    expect(errors).toContain(
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    );
    expect(errors).toContainEqual(
      expect.stringMatching(/^spec\.names\.plural: Invalid value: "Widgets": a DNS-1035 label/),
    );
    expect(errors).toContainEqual(
      expect.stringMatching(
        /^spec\.names\.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label/,
      ),
    );
    expect(errors).toContain(
      'spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same',
    );
    expect(errors).toContainEqual(
      expect.stringMatching(/^spec\.names\.shortNames\[0\]: Invalid value: "w_"/),
    );
  });

  it("defaults singular, listKind and the conversion strategy", () => {
    const c = prepared(crd({ names: { plural: "widgets", kind: "Widget" } }));
    expect((c["spec"] as JsonObject)["names"]).toEqual({
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
    });
    expect((c["spec"] as JsonObject)["conversion"]).toEqual({ strategy: "None" });
  });
});

describe("versions", () => {
  it("requires a schema per version", () => {
    expect(createErrors(crdWithSchema(undefined))).toEqual([
      "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
    ]);
  });

  it("wants unique DNS-1035 names and exactly one storage version", () => {
    const c = crd();
    versionsOf(c).push({
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: SCHEMA },
    });
    const errors = createErrors(c);
    expect(errors).toContainEqual(
      expect.stringMatching(
        /^spec\.versions: Invalid value: .*: must contain unique version names$/,
      ),
    );
    expect(errors).toContainEqual(
      expect.stringMatching(
        /^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/,
      ),
    );
    const upper = crd();
    (versionsOf(upper)[0] as JsonObject)["name"] = "V1";
    expect(createErrors(upper)).toContainEqual(
      expect.stringMatching(/^spec\.versions\[0\]\.name: Invalid value: "V1": a DNS-1035 label/),
    );
  });

  it("allows a deprecation warning only on a deprecated version", () => {
    const c = crd();
    (versionsOf(c)[0] as JsonObject)["deprecationWarning"] = "old";
    expect(createErrors(c)).toEqual([
      'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
    ]);
    (versionsOf(c)[0] as JsonObject)["deprecated"] = true;
    (versionsOf(c)[0] as JsonObject)["deprecationWarning"] = "x".repeat(257);
    expect(createErrors(c)).toEqual([
      `spec.versions[0].deprecationWarning: Invalid value: "${"x".repeat(257)}": must be <= 256 characters long`,
    ]);
  });

  it("checks printer columns and the scale subresource's paths", () => {
    const c = crd();
    Object.assign(versionsOf(c)[0] as JsonObject, {
      additionalPrinterColumns: [{ name: "", type: "float", jsonPath: "spec.size", format: "hex" }],
      subresources: { scale: { specReplicasPath: ".status.size", statusReplicasPath: "" } },
    });
    expect(createErrors(c)).toEqual([
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.size": should be a json path under .spec',
      "spec.subresources.scale.statusReplicasPath: Required value",
      "spec.additionalPrinterColumns[0].name: Required value",
      'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "hex": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
    ]);
  });

  it("resolves selectable fields to scalar fields outside metadata", () => {
    const c = crdWithSchema({
      type: "object",
      properties: {
        metadata: { type: "object" },
        spec: {
          type: "object",
          properties: {
            color: { type: "string" },
            tags: { type: "array", items: { type: "string" } },
          },
        },
      },
    });
    (versionsOf(c)[0] as JsonObject)["selectableFields"] = [
      { jsonPath: ".spec.color" },
      { jsonPath: ".spec.color" },
      { jsonPath: ".spec.tags" },
      { jsonPath: ".metadata.name" },
      { jsonPath: ".spec.nope" },
    ];
    expect(createErrors(c)).toEqual([
      'spec.selectableFields[1].jsonPath: Duplicate value: ".spec.color"',
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[3].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[4].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
    ]);
  });
});

describe("conversion", () => {
  it("wants strategy None or Webhook, and a client config with Webhook", () => {
    expect(createErrors(crd({ conversion: { strategy: "Magic" } }))).toEqual([
      'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"',
    ]);
    expect(
      createErrors(
        crd({ conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"] } } }),
      ),
    ).toEqual([
      "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
    ]);
    expect(
      createErrors(
        crd({
          conversion: {
            strategy: "None",
            webhook: { clientConfig: { url: "https://x" }, conversionReviewVersions: ["v1"] },
          },
        }),
      ),
    ).toEqual([
      "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
      "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
    ]);
  });

  it("checks the webhook URL or service and the review versions", () => {
    const webhook = (clientConfig: JsonObject, conversionReviewVersions: string[]): JsonObject =>
      crd({
        conversion: { strategy: "Webhook", webhook: { clientConfig, conversionReviewVersions } },
      });
    expect(createErrors(webhook({ url: "https://conv.example.com/convert" }, ["v1"]))).toEqual([]);
    expect(createErrors(webhook({ url: "http://u@h/p?q#f" }, ["v2", "v2"]))).toEqual([
      "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'spec.conversion.webhookClientConfig.url: Invalid value: "u": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "q": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
    ]);
    expect(
      createErrors(webhook({ service: { namespace: "ns", name: "", path: "/a//b" } }, ["v1"])),
    ).toEqual([
      // kube 1.32 swaps name and namespace in this call: an empty name is reported on .namespace.
      "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required",
      'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
    ]);
    expect(createErrors(webhook({}, []))).toEqual([
      "spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required",
      "spec.conversion.conversionReviewVersions: Required value",
    ]);
  });
});

describe("status and protected groups", () => {
  it("needs the storage version in storedVersions and every stored version in the spec", () => {
    const old = prepared(crd());
    const next = structuredClone(old);
    (versionsOf(next)[0] as JsonObject)["name"] = "v2";
    expect(updateErrors(next, old)).toEqual([
      'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
      'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    ]);
  });

  it("asks for the API approval annotation in k8s.io and kubernetes.io groups", () => {
    const c = crd({ group: "widgets.k8s.io" });
    (c["metadata"] as JsonObject)["name"] = "widgets.widgets.k8s.io";
    expect(createErrors(c)).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    (c["metadata"] as JsonObject)["annotations"] = {
      "api-approved.kubernetes.io": "unapproved, testing",
    };
    expect(createErrors(c)).toEqual([]);
  });

  it("refuses spec.preserveUnknownFields true", () => {
    expect(createErrors(crd({ preserveUnknownFields: true }))).toContain(
      "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
    );
  });
});

describe("updates", () => {
  it("keeps group and plural, and scope and kind once Established", () => {
    const old = prepared(crd());
    const next = structuredClone(old);
    Object.assign(next["spec"] as JsonObject, {
      group: "other.com",
      scope: "Cluster",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    });
    expect(updateErrors(next, old)).toEqual([
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
    const established = structuredClone(old);
    (established["status"] as JsonObject)["conditions"] = [{ type: "Established", status: "True" }];
    expect(updateErrors(next, established)).toEqual([
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
  });

  it("does not ask a CRD stored without schemas for them, only served versions are pruned", () => {
    const old = prepared(crdWithSchema(undefined));
    const next = structuredClone(old);
    (versionsOf(next)[0] as JsonObject)["served"] = false;
    expect(updateErrors(next, old)).toEqual([]);
    (versionsOf(next)[0] as JsonObject)["served"] = true;
    expect(updateErrors(next, old)).toEqual([
      "spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned",
    ]);
  });
});

describe("bad input", () => {
  it("answers field errors, never throws, for values of unexpected JSON types", () => {
    const odd = [null, 7, "x", true, [], [1, "a", null], { a: [] }];
    const targets: [string, (c: JsonObject, v: unknown) => void][] = [
      ["spec", (c, v) => (c["spec"] = v as never)],
      ["names", (c, v) => ((c["spec"] as JsonObject)["names"] = v as never)],
      ["versions", (c, v) => ((c["spec"] as JsonObject)["versions"] = v as never)],
      ["version", (c, v) => (versionsOf(c)[0] = v as never)],
      ["schema", (c, v) => ((versionsOf(c)[0] as JsonObject)["schema"] = v as never)],
      [
        "openAPIV3Schema",
        (c, v) => ((versionsOf(c)[0] as JsonObject)["schema"] = { openAPIV3Schema: v as never }),
      ],
      [
        "properties",
        (c, v) =>
          ((versionsOf(c)[0] as JsonObject)["schema"] = {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: v as never,
                b: {
                  items: v,
                  properties: v,
                  allOf: v,
                  "x-kubernetes-validations": v,
                  "x-kubernetes-list-map-keys": v,
                } as never,
              },
            },
          }),
      ],
      [
        "conversion",
        (c, v) =>
          ((c["spec"] as JsonObject)["conversion"] = { strategy: "Webhook", webhook: v as never }),
      ],
      ["status", (c, v) => (c["status"] = v as never)],
    ];
    for (const [, set] of targets) {
      for (const v of odd) {
        const c = crd();
        set(c, v);
        expect(Array.isArray(createErrors(c))).toBe(true);
        expect(Array.isArray(updateErrors(c, prepared(crd())))).toBe(true);
      }
    }
  });

  it("walks a deeply nested schema", () => {
    let node: JsonObject = { type: "string" };
    for (let i = 0; i < 200; i++) node = { type: "object", properties: { a: node } };
    expect(createErrors(crdWithSchema(node))).toEqual([]);
  });
});

describe("conversion caBundle", () => {
  function withBundle(caBundle: string): JsonObject {
    return crd({
      conversion: {
        strategy: "Webhook",
        webhook: {
          clientConfig: { url: "https://conv.example.com", caBundle },
          conversionReviewVersions: ["v1"],
        },
      },
    });
  }
  const INVALID = Buffer.from("not a certificate").toString("base64");

  it("accepts an invalid bundle until the CRD is Established, then refuses a new one", async () => {
    expect(createErrors(withBundle(INVALID))).toEqual([]);
    const old = prepared(crd());
    expect(updateErrors(prepared(withBundle(INVALID)), old)).toEqual([]);
    (old["status"] as JsonObject)["conditions"] = [{ type: "Established", status: "True" }];
    expect(updateErrors(prepared(withBundle(INVALID)), old)).toEqual([
      `spec.conversion.webhookClientConfig.caBundle: Invalid value: "${INVALID}": unable to load root certificates: unable to parse bytes as PEM block`,
    ]);
    const { ca } = await createCertificateAuthority();
    expect(
      updateErrors(prepared(withBundle(Buffer.from(ca.certPem).toString("base64"))), old),
    ).toEqual([]);
  });
});
