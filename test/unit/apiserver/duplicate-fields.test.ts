import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  duplicateFieldErrorsOf,
  duplicateFieldsOf,
  findDuplicateJsonFields,
  findDuplicateYamlKeys,
} from "../../../packages/apiserver/src/encoding/duplicate-fields.js";
import {
  parseJsonBody,
  parseYamlBody,
} from "../../../packages/apiserver/src/encoding/request-body.js";
import {
  enforceKnownFields,
  type FieldValidationMode,
} from "../../../packages/apiserver/src/schema/field-validation.js";

/** kube's test body (test/integration/apiserver/field_validation_test.go, invalidBodyJSON). */
const DEPLOYMENT = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "dupename",
    "name": "web",
    "labels": {"app": "nginx"},
    "unknownMeta": "metaVal"
  },
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;

const KUBE_ERRORS = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

describe("findDuplicateJsonFields", () => {
  it("reports each repeated key once, at its path, in document order", () => {
    const text = '{"a":1,"b":{"c":[{"d":1,"d":2,"d":3}],"c":0},"a":2,"[x]":{"k.y":1,"k.y":2}}';
    expect(findDuplicateJsonFields(text).map((d) => d.path)).toEqual([
      "b.c[0].d",
      "b.c",
      "a",
      "[x].k.y",
    ]);
  });

  it("compares keys after unescaping and ignores braces inside strings", () => {
    const text = '{"a\\u0062":"{\\"x\\":1}","ab":"}","s":"[","t":[1,{"u":1,"u":2}]}';
    expect(findDuplicateJsonFields(text).map((d) => d.path)).toEqual(["ab", "t[1].u"]);
  });

  it("reports keys repeated in a top-level array's objects", () => {
    expect(findDuplicateJsonFields('[{"a":1},{"a":1,"a":2}]').map((d) => d.path)).toEqual([
      "[1].a",
    ]);
  });

  it("stops at 100 duplicates", () => {
    const body = `{${Array.from({ length: 300 }, (_, i) => `"k${i}":1,"k${i}":2`).join(",")}}`;
    expect(findDuplicateJsonFields(body)).toHaveLength(100);
  });

  it("finds nothing in a body without repeated keys", () => {
    expect(findDuplicateJsonFields('{"a":{"a":{"a":[{"a":1},{"a":2}]}}}')).toEqual([]);
  });
});

describe("duplicate fields of a decoded request body", () => {
  function decode(text: string): JsonObject {
    return parseJsonBody(Buffer.from(text)) as JsonObject;
  }

  it("remembers the JSON text of a decoded body; last value wins as in Go", () => {
    const body = decode('{"a":1,"a":2}');
    expect(body).toEqual({ a: 2 });
    expect(duplicateFieldsOf(body).map((d) => d.path)).toEqual(["a"]);
    expect(duplicateFieldsOf({ a: 2 })).toEqual([]);
  });

  const MESSAGE = "k8s.io.api.apps.v1.Deployment";

  function enforce(mode: FieldValidationMode): { obj: JsonObject; warnings: string[] } {
    const body = decode(DEPLOYMENT);
    const warnings: string[] = [];
    const obj = enforceKnownFields({ ...body }, MESSAGE, mode, warnings, body);
    return { obj, warnings };
  }

  it("Warn: one warning per duplicate and unknown field, in kube's document order", () => {
    const { obj, warnings } = enforce("Warn");
    expect(warnings).toEqual(KUBE_ERRORS);
    expect((obj["spec"] as JsonObject)["paused"]).toBe(false);
    expect((obj["metadata"] as JsonObject)["name"]).toBe("web");
  });

  it("Strict: a 400 listing the same errors", () => {
    expect(() => enforce("Strict")).toThrowError(
      `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${KUBE_ERRORS.join(", ")}`,
    );
  });

  it("Ignore: nothing reported", () => {
    expect(enforce("Ignore").warnings).toEqual([]);
  });

  it("reports duplicates of a body without unknown fields", () => {
    const body = decode('{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1","a":"2"}}');
    const warnings: string[] = [];
    enforceKnownFields(body, "k8s.io.api.core.v1.ConfigMap", "Warn", warnings, body);
    expect(warnings).toEqual(['duplicate field "data.a"']);
  });
});

/** kube's YAML test body (invalidBodyYAML). */
const DEPLOYMENT_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: web
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;

const YAML_LINES = [
  'line 5: key "name" already set in map',
  'line 12: key "unknownDupe" already set in map',
  'line 14: key "paused" already set in map',
  'line 28: key "imagePullPolicy" already set in map',
];

describe("duplicate keys of YAML bodies (go-yaml's wording)", () => {
  it("reports the line of each repetition", () => {
    expect(findDuplicateYamlKeys(DEPLOYMENT_YAML)).toEqual(YAML_LINES);
  });

  it("lists them as one yaml error of a decoded body", () => {
    const body = parseYamlBody(Buffer.from(DEPLOYMENT_YAML)) as JsonObject;
    expect(duplicateFieldErrorsOf(body)).toEqual([
      `yaml: unmarshal errors:\n  ${YAML_LINES.join("\n  ")}`,
    ]);
  });

  const UNKNOWN_SORTED = [
    'unknown field "metadata.unknownMeta"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknownDupe"',
  ];

  it("Strict: the yaml error, then the unknown fields (sorted, as kube's YAML-to-JSON step sorts keys)", () => {
    const body = parseYamlBody(Buffer.from(DEPLOYMENT_YAML)) as JsonObject;
    expect(() =>
      enforceKnownFields({ ...body }, "k8s.io.api.apps.v1.Deployment", "Strict", [], body),
    ).toThrowError(
      `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: yaml: unmarshal errors:\n  ${YAML_LINES.join("\n  ")}, ${UNKNOWN_SORTED.join(", ")}`,
    );
  });

  it("Warn: one warning per yaml line, then per unknown field", () => {
    const body = parseYamlBody(Buffer.from(DEPLOYMENT_YAML)) as JsonObject;
    const warnings: string[] = [];
    enforceKnownFields({ ...body }, "k8s.io.api.apps.v1.Deployment", "Warn", warnings, body);
    expect(warnings).toEqual([...YAML_LINES, ...UNKNOWN_SORTED]);
  });
});
