import { describe, expect, it } from "vitest";
import {
  type ObjectWithMetadata,
  annotationsChanged,
  and,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  or,
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

  it("or ors, not negates; a missing method counts as passing", () => {
    const either = or(generationChanged, labelsChanged);
    expect(either.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(false);
    expect(either.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(true);
    expect(either.update?.(o({ labels: { a: "1" } }), o({}))).toBe(true);
    expect(either.create?.(o({}))).toBe(true);
    expect(or().create?.(o({}))).toBe(false);
    const unchanged = not(generationChanged);
    expect(unchanged.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(true);
    expect(unchanged.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
    expect(unchanged.create?.(o({}))).toBe(false);
    expect(unchanged.generic?.(o({}))).toBe(false);
  });

  it("and ands; a missing method counts as passing; no predicates pass everything", () => {
    const both = and(generationChanged, labelsChanged);
    expect(both.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
    expect(both.update?.(o({ labels: { a: "1" } }), o({ generation: 2 }))).toBe(true);
    expect(both.update?.(o({ labels: { a: "1" } }), o({}))).toBe(false);
    expect(both.create?.(o({}))).toBe(true);
    expect(both.delete?.(o({}), true)).toBe(true);
    expect(and().update?.(o({}), o({}))).toBe(true);
    const scoped = and(labelSelectorPredicate("app=web"), generationChanged);
    expect(scoped.create?.(o({ labels: { app: "db" } }))).toBe(false);
    expect(scoped.delete?.(o({ labels: { app: "web" } }), false)).toBe(true);
    // Composed: neither a generation nor a label change.
    const neither = not(or(generationChanged, labelsChanged));
    expect(neither.update?.(o({ generation: 1 }), o({ generation: 1 }))).toBe(true);
    expect(neither.update?.(o({ generation: 1 }), o({ generation: 2 }))).toBe(false);
  });

  it("combinators filter generic events (channel sources) too; labelSelectorPredicate matches them", () => {
    const web = labelSelectorPredicate("app=web");
    expect(web.generic?.(o({ labels: { app: "web" } }))).toBe(true);
    expect(web.generic?.(o({ labels: { app: "db" } }))).toBe(false);
    // The change predicates have no generic method: generic events pass them.
    expect(and(web, generationChanged).generic?.(o({ labels: { app: "web" } }))).toBe(true);
    expect(or(web).generic?.(o({}))).toBe(false);
    expect(not(web).generic?.(o({}))).toBe(true);
  });
});
