import { describe, expect, it } from "vitest";
import { messageInfo } from "../../../packages/kubekit/src/core/field-table.js";
import {
  isInlineField,
  jsonFieldsOf,
  messageJsonShape,
} from "../../../packages/apiserver/src/schema/message-json-view.js";

function keys(messageName: string): string[] {
  const fields = jsonFieldsOf(messageName);
  if (!fields) throw new Error(`no message ${messageName}`);
  return [...fields.keys()];
}

describe("jsonFieldsOf", () => {
  it("flattens every inline embedded struct into its parent", () => {
    const cases: [string, string, string][] = [
      ["k8s.io.api.core.v1.Volume", "configMap", "volumeSource"],
      ["k8s.io.api.core.v1.PersistentVolumeSpec", "hostPath", "persistentVolumeSource"],
      ["k8s.io.api.core.v1.EphemeralContainer", "image", "ephemeralContainerCommon"],
      ["k8s.io.api.core.v1.Probe", "httpGet", "handler"],
      ["k8s.io.api.core.v1.ConfigMapKeySelector", "name", "localObjectReference"],
      ["k8s.io.api.core.v1.SecretEnvSource", "name", "localObjectReference"],
      ["k8s.io.api.networking.v1.IngressRule", "http", "ingressRuleValue"],
      [
        "k8s.io.api.admissionregistration.v1.NamedRuleWithOperations",
        "apiGroups",
        "ruleWithOperations",
      ],
      ["k8s.io.api.admissionregistration.v1.RuleWithOperations", "operations", "rule"],
      ["k8s.io.api.resource.v1.DeviceClassConfiguration", "opaque", "deviceConfiguration"],
    ];
    for (const [message, present, absent] of cases) {
      expect(keys(message), message).toContain(present);
      expect(keys(message), message).not.toContain(absent);
    }
  });

  it("records the inline path to a flattened field", () => {
    const loc = jsonFieldsOf("k8s.io.api.admissionregistration.v1.NamedRuleWithOperations")?.get(
      "apiGroups",
    );
    expect(loc?.inlinePath.map((f) => f.name)).toEqual(["ruleWithOperations", "rule"]);
    expect(jsonFieldsOf("k8s.io.api.core.v1.Volume")?.get("name")?.inlinePath).toEqual([]);
  });

  it("leaves out fields without a JSON name and unknown messages", () => {
    expect(keys("k8s.io.apimachinery.pkg.runtime.RawExtension")).toEqual([]);
    expect(jsonFieldsOf("com.example.Nope")).toBeUndefined();
  });

  it("does not inline same-named fields that Go keeps as keys", () => {
    const info = messageInfo("k8s.io.api.core.v1.WeightedPodAffinityTerm");
    const field = info?.byJsonName.get("podAffinityTerm");
    expect(field && isInlineField("k8s.io.api.core.v1.WeightedPodAffinityTerm", field)).toBe(false);
  });
});

describe("messageJsonShape", () => {
  it("classifies special and wrapper messages", () => {
    expect(messageJsonShape("k8s.io.apimachinery.pkg.apis.meta.v1.Time")).toBe("time");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime")).toBe("microTime");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.util.intstr.IntOrString")).toBe("intOrString");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.api.resource.Quantity")).toBe("quantity");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.runtime.RawExtension")).toBe("rawExtension");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1")).toBe("fieldsV1");
    expect(messageJsonShape("k8s.io.api.authentication.v1.ExtraValue")).toBe("stringList");
    expect(messageJsonShape("k8s.io.apimachinery.pkg.apis.meta.v1.Verbs")).toBe("stringList");
    expect(messageJsonShape("k8s.io.api.core.v1.Pod")).toBe("object");
    // one repeated string field, but not a named-slice wrapper
    expect(messageJsonShape("k8s.io.api.core.v1.NamespaceSpec")).toBe("object");
  });
});
