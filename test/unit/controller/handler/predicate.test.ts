import { describe, expect, it } from "vitest";
import {
  type ObjectWithMetadata,
  annotationsChanged,
  allPredicate,
  anyPredicate,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  notPredicate,
  resourceVersionChanged,
  LabelSelector,
  SelectorParseError,
} from "kubekit";

function o(metadata: ObjectWithMetadata["metadata"]): ObjectWithMetadata {
  return { metadata };
}

describe("predicates", () => {
  it("generationChanged passes updates that change metadata.generation only", () => {
    expect(generationChanged.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(true);
    expect(generationChanged.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(false);
    expect(generationChanged.update?.(o({}), o({ generation: 1 }))).toBe(true);
    expect(generationChanged.create).toBeUndefined();
    expect(generationChanged.delete).toBeUndefined();
  });

  it("resourceVersionChanged drops resyncs (same resourceVersion)", () => {
    const a = o({ resourceVersion: "5" });
    expect(resourceVersionChanged.update?.(a, a)).toBe(false);
    expect(resourceVersionChanged.update?.(a, o({ resourceVersion: "6" }))).toBe(true);
  });

  it("labelsChanged and annotationsChanged compare the maps; absent equals empty", () => {
    expect(labelsChanged.update?.(o({ labels: { a: "1" } }), o({ labels: { a: "1" } }))).toBe(
      false,
    );
    expect(labelsChanged.update?.(o({ labels: { a: "1" } }), o({ labels: { a: "2" } }))).toBe(true);
    expect(labelsChanged.update?.(o({ labels: { a: "1" } }), o({ labels: { b: "1" } }))).toBe(true);
    expect(labelsChanged.update?.(o({}), o({ labels: {} }))).toBe(false);
    expect(labelsChanged.update?.(o({}), o({ labels: { a: "" } }))).toBe(true);
    expect(
      annotationsChanged.update?.(o({ annotations: { x: "1" } }), o({ annotations: { x: "1" } })),
    ).toBe(false);
    expect(annotationsChanged.update?.(o({ annotations: { x: "1" } }), o({}))).toBe(true);
    // Labels do not count for annotationsChanged, nor annotations for labelsChanged.
    expect(annotationsChanged.update?.(o({ labels: { a: "1" } }), o({}))).toBe(false);
    expect(labelsChanged.update?.(o({ annotations: { a: "1" } }), o({}))).toBe(false);
  });

  it("labelSelectorPredicate accepts text, a metav1.LabelSelector or a LabelSelector", () => {
    const web = o({ labels: { app: "web", tier: "fe" } });
    const db = o({ labels: { app: "db" } });
    for (const selector of [
      "app=web",
      { matchLabels: { app: "web" } },
      { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
      LabelSelector.parse("app in (web)"),
    ]) {
      const p = labelSelectorPredicate(selector);
      expect(p.create?.(web)).toBe(true);
      expect(p.create?.(db)).toBe(false);
      expect(p.delete?.(web, true)).toBe(true);
      expect(p.delete?.(db, false)).toBe(false);
      // Updates are judged on the new object.
      expect(p.update?.(db, web)).toBe(true);
      expect(p.update?.(web, db)).toBe(false);
    }
    expect(labelSelectorPredicate({}).create?.(o({}))).toBe(true);
    expect(() => labelSelectorPredicate("app in (")).toThrow(SelectorParseError);
  });

  it("anyPredicate ors, notPredicate negates; a missing method counts as passing", () => {
    const either = anyPredicate(generationChanged, labelsChanged);
    expect(either.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(false);
    expect(either.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(true);
    expect(either.update?.(o({ labels: { a: "1" } }), o({}))).toBe(true);
    expect(either.create?.(o({}))).toBe(true);
    expect(anyPredicate().create?.(o({}))).toBe(false);
    const not = notPredicate(generationChanged);
    expect(not.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(true);
    expect(not.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
    expect(not.create?.(o({}))).toBe(false);
  });

  it("allPredicate ands; a missing method counts as passing; no predicates pass everything", () => {
    const both = allPredicate(generationChanged, labelsChanged);
    expect(both.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
    expect(both.update?.(o({ labels: { a: "1" } }), o({ generation: 2 }))).toBe(true);
    expect(both.update?.(o({ labels: { a: "1" } }), o({}))).toBe(false);
    expect(both.create?.(o({}))).toBe(true);
    expect(both.delete?.(o({}), true)).toBe(true);
    expect(allPredicate().update?.(o({}), o({}))).toBe(true);
    const scoped = allPredicate(labelSelectorPredicate("app=web"), generationChanged);
    expect(scoped.create?.(o({ labels: { app: "db" } }))).toBe(false);
    expect(scoped.delete?.(o({ labels: { app: "web" } }), false)).toBe(true);
    // Composed: neither a generation nor a label change.
    const neither = notPredicate(anyPredicate(generationChanged, labelsChanged));
    expect(neither.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(true);
    expect(neither.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
  });
});
