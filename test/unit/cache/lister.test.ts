import { describe, expect, it } from "vitest";
import {
  createIndexer,
  Lister,
  NamespaceLister,
  LabelSelector,
  SelectorParseError,
  isNotFound,
  StatusError,
} from "kubekit";
import type { Obj } from "./fixtures.js";
import { obj, show } from "./fixtures.js";
import { newLister } from "../../support/informer-mode.js";

function labelled(key: string, labels?: Record<string, string>): Obj {
  const o = obj(key);
  return labels === undefined ? o : { ...o, metadata: { ...o.metadata, labels } };
}

const objects: Obj[] = [
  labelled("ns1/web-0", { app: "web", tier: "fe" }),
  labelled("ns1/web-1", { app: "web", tier: "be" }),
  labelled("ns1/db-0", { app: "db" }),
  labelled("ns2/web-0", { app: "web", tier: "fe" }),
  labelled("ns2/plain"),
  labelled("cluster-thing", { app: "web" }),
];

function podLister(withNamespaceIndex = true): Lister<Obj> {
  return newLister(objects, { group: "", resource: "pods" }, withNamespaceIndex);
}

function names(list: Obj[]): string[] {
  return list.map((o) => show(o).split("@")[0] ?? "").sort();
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("Lister", () => {
  it("lists every cached object without a selector, in a fresh array", () => {
    const lister = podLister();
    const all = lister.list();
    expect(all).toHaveLength(objects.length);
    all.pop();
    expect(lister.list()).toHaveLength(objects.length);
  });

  it("filters by selector text or a parsed selector", () => {
    const lister = podLister();
    expect(names(lister.list("app=web"))).toEqual([
      "cluster-thing",
      "ns1/web-0",
      "ns1/web-1",
      "ns2/web-0",
    ]);
    expect(names(lister.list("app=web,tier in (fe)"))).toEqual(["ns1/web-0", "ns2/web-0"]);
    expect(names(lister.list("!app"))).toEqual(["ns2/plain"]);
    expect(names(lister.list(LabelSelector.fromSet({ app: "db" })))).toEqual(["ns1/db-0"]);
    expect(lister.list(LabelSelector.nothing())).toEqual([]);
    expect(lister.list("")).toHaveLength(objects.length);
    expect(lister.list(LabelSelector.everything())).toHaveLength(objects.length);
  });

  it("throws SelectorParseError for selector text that does not parse", () => {
    expect(() => podLister().list("app in (")).toThrow(SelectorParseError);
  });

  it("gets cluster-scoped objects by name", () => {
    const lister = podLister();
    expect(show(lister.get("cluster-thing"))).toBe("cluster-thing@1");
  });

  it("throws a NotFound StatusError naming the group and resource", () => {
    const err = thrown(() => podLister().get("nope"));
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe('pods "nope" not found');
    expect((err as StatusError).status.details).toEqual({ name: "nope", kind: "pods" });

    const deployments = new Lister(createIndexer<Obj>(), {
      group: "apps",
      resource: "deployments",
    });
    const err2 = thrown(() => deployments.namespace("ns").get("web")) as StatusError;
    expect(err2.message).toBe('deployments.apps "web" not found');
    expect(err2.status.code).toBe(404);
    expect(err2.status.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
  });

  it("does not find a namespaced object by its bare name", () => {
    expect(isNotFound(thrown(() => podLister().get("web-0")))).toBe(true);
  });
});

describe.each([true, false])("NamespaceLister (namespace index: %s)", (withIndex) => {
  it("lists one namespace, with or without a selector", () => {
    const ns1 = podLister(withIndex).namespace("ns1");
    expect(ns1).toBeInstanceOf(NamespaceLister);
    expect(ns1.namespace).toBe("ns1");
    expect(names(ns1.list())).toEqual(["ns1/db-0", "ns1/web-0", "ns1/web-1"]);
    expect(names(ns1.list("app=web"))).toEqual(["ns1/web-0", "ns1/web-1"]);
    expect(names(ns1.list("tier=be"))).toEqual(["ns1/web-1"]);
    expect(podLister(withIndex).namespace("empty").list()).toEqual([]);
  });

  it("gets namespace/name and throws NotFound otherwise", () => {
    const lister = podLister(withIndex);
    expect(show(lister.namespace("ns2").get("web-0"))).toBe("ns2/web-0@1");
    const err = thrown(() => lister.namespace("ns2").get("db-0")) as StatusError;
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe('pods "db-0" not found');
  });

  it('treats namespace "" as all namespaces', () => {
    const all = podLister(withIndex).namespace("");
    expect(all.list()).toHaveLength(objects.length);
    expect(names(all.list("tier=fe"))).toEqual(["ns1/web-0", "ns2/web-0"]);
    expect(show(all.get("cluster-thing"))).toBe("cluster-thing@1");
  });
});

describe("Lister over a live indexer", () => {
  it("reflects later writes", () => {
    const indexer = createIndexer<Obj>();
    const lister = new Lister(indexer, { group: "", resource: "configmaps" });
    expect(lister.namespace("ns").list()).toEqual([]);
    indexer.add(obj("ns/a"));
    expect(names(lister.namespace("ns").list())).toEqual(["ns/a"]);
    indexer.delete(obj("ns/a"));
    expect(isNotFound(thrown(() => lister.namespace("ns").get("a")))).toBe(true);
  });
});
