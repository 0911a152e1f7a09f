import { describe, expect, it } from "vitest";
import {
  FieldSet,
  compareElements,
  fieldElement,
  formatPath,
  keyElement,
  valueElement,
} from "../../../packages/apiserver/src/apply/field-set.js";

const f = fieldElement;

describe("FieldSet FieldsV1 codec", () => {
  it("reads members, children and '.' and writes them back in structured-merge-diff order", () => {
    const fields = {
      "f:spec": { "f:replicas": {} },
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
      'k:{"name":"x"}': { ".": {}, "f:name": {} },
    };
    const set = FieldSet.fromFieldsV1(fields);
    expect(set.has([f("spec"), f("replicas")])).toBe(true);
    expect(set.has([f("spec")])).toBe(false);
    expect(set.has([f("metadata"), f("labels")])).toBe(true);
    expect(set.has([keyElement({ name: "x" })])).toBe(true);
    const out = set.toFieldsV1();
    expect(out).toEqual(fields);
    expect(Object.keys(out)).toEqual(["f:metadata", "f:spec", 'k:{"name":"x"}']);
    expect(Object.keys(out["f:metadata"] as object)).toEqual(["f:labels"]);
    expect(
      Object.keys((out["f:metadata"] as Record<string, object>)["f:labels"] as object),
    ).toEqual(["f:app", "."]);
  });

  it("canonicalizes key and value elements and drops unknown element kinds", () => {
    const set = FieldSet.fromFieldsV1({
      'k:{"protocol":"TCP", "containerPort":80}': {},
      'v:"a"': {},
      "x:what": {},
      "k:not-json": {},
    });
    expect(set.toFieldsV1()).toEqual({
      'k:{"containerPort":80,"protocol":"TCP"}': {},
      'v:"a"': {},
    });
  });

  it("treats a node whose children are all unknown as a member", () => {
    expect(FieldSet.fromFieldsV1({ "f:a": { "z:?": {} } }).has([f("a")])).toBe(true);
  });

  it("yields an empty set for non-object input", () => {
    expect(FieldSet.fromFieldsV1(undefined).isEmpty()).toBe(true);
    expect(FieldSet.fromFieldsV1("x").isEmpty()).toBe(true);
  });

  it("escapes HTML characters in keys like Go's encoder", () => {
    expect(keyElement({ name: "a<b>&c" })).toBe('k:{"name":"a\\u003cb\\u003e\\u0026c"}');
  });
});

describe("FieldSet operations", () => {
  const a = new FieldSet();
  a.insert([f("spec"), f("replicas")]);
  a.insert([f("spec"), f("paused")]);
  a.insert([f("data")]);
  const b = new FieldSet();
  b.insert([f("spec"), f("replicas")]);
  b.insert([f("spec")]);

  it("union, difference and intersection work member by member", () => {
    expect(a.union(b).paths()).toEqual([
      [f("data")],
      [f("spec")],
      [f("spec"), f("paused")],
      [f("spec"), f("replicas")],
    ]);
    expect(a.difference(b).paths()).toEqual([[f("data")], [f("spec"), f("paused")]]);
    expect(a.intersection(b).paths()).toEqual([[f("spec"), f("replicas")]]);
    expect(a.intersection(new FieldSet()).isEmpty()).toBe(true);
  });

  it("difference by a parent member does not remove its children", () => {
    const parent = new FieldSet();
    parent.insert([f("spec")]);
    expect(a.difference(parent).has([f("spec"), f("replicas")])).toBe(true);
  });

  it("answers at-or-below and covering queries", () => {
    expect(a.hasAtOrBelow([f("spec")])).toBe(true);
    expect(a.hasAtOrBelow([f("status")])).toBe(false);
    expect(b.covers([f("spec"), f("template"), f("x")])).toBe(true);
    expect(a.covers([f("spec"), f("template")])).toBe(false);
  });

  it("compares structurally", () => {
    const c = FieldSet.fromFieldsV1(a.toFieldsV1());
    expect(c.equals(a)).toBe(true);
    c.insert([f("x")]);
    expect(c.equals(a)).toBe(false);
  });

  it("orders fields before keys before values, keys by their fields", () => {
    const els = [
      valueElement("b"),
      keyElement({ name: "b" }),
      f("z"),
      keyElement({ name: "a" }),
      f("a"),
    ];
    expect(els.sort(compareElements)).toEqual([
      f("a"),
      f("z"),
      keyElement({ name: "a" }),
      keyElement({ name: "b" }),
      valueElement("b"),
    ]);
    expect(compareElements(keyElement({ port: 9 }), keyElement({ port: 10 }))).toBeLessThan(0);
  });
});

describe("formatPath", () => {
  it("prints paths the way kube-apiserver does in conflicts", () => {
    expect(formatPath([f("spec"), f("replicas")])).toBe(".spec.replicas");
    expect(
      formatPath([f("spec"), f("containers"), keyElement({ name: "nginx" }), f("image")]),
    ).toBe('.spec.containers[name="nginx"].image');
    expect(formatPath([f("ports"), keyElement({ protocol: "TCP", containerPort: 80 })])).toBe(
      '.ports[containerPort=80,protocol="TCP"]',
    );
    expect(formatPath([f("metadata"), f("finalizers"), valueElement("a/b")])).toBe(
      '.metadata.finalizers[="a/b"]',
    );
  });
});
